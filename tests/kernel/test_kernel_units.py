"""Fast in-process tests of the kernel's pure parts: identity, planning, settings,
seeding, manifests and shards."""

from __future__ import annotations

import subprocess
import sys

import pyarrow as pa
import pyarrow.parquet
import pytest

from docfleet.core.columns import Columns
from docfleet.core.errors import ConfigError
from docfleet.core.identity import task_identity
from docfleet.core.models import RunSpec
from docfleet.core.seeding import document_seed
from docfleet.core.settings import load_settings
from docfleet.core.uris import redact
from docfleet.dataset.manifest import Part, build_root, parse_json
from docfleet.dataset.shards import TableRows, read_shard, shard_bytes
from docfleet.kernel.planner import MAX_UNIT_SIZE, choose_unit_size, plan_units


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"CLOUD_RUN_TASK_INDEX": "3", "CLOUD_RUN_TASK_COUNT": "10",
          "CLOUD_RUN_TASK_ATTEMPT": "2", "CLOUD_RUN_EXECUTION": "docfleet-abc",
          "JOB_COMPLETION_INDEX": "9"},
         ("cloud-run", 3, 10, 2, "docfleet-abc")),
        ({"JOB_COMPLETION_INDEX": "4", "DOCFLEET_TASK_COUNT": "8", "DOCFLEET_EXECUTION": "k"},
         ("kubernetes", 4, 8, 0, "k")),
        ({"AWS_BATCH_JOB_ARRAY_INDEX": "1", "AWS_BATCH_JOB_ID": "job-42:1",
          "AWS_BATCH_JOB_ATTEMPT": "3", "DOCFLEET_TASK_COUNT": "4"},
         ("aws-batch", 1, 4, 3, "job-42")),
        ({"DOCFLEET_TASK_INDEX": "2", "DOCFLEET_TASK_COUNT": "5", "DOCFLEET_EXECUTION": "e"},
         ("docfleet", 2, 5, 0, "e")),
    ],
)
def test_task_identity_first_match_wins(env: dict, expected: tuple) -> None:
    ident = task_identity(env)
    assert (ident.engine, ident.index, ident.count, ident.attempt, ident.execution) == expected


def test_single_task_and_unique_owners() -> None:
    a, b = task_identity({}), task_identity({})
    assert (a.engine, a.index, a.count) == ("single", 0, 1)
    assert a.owner != b.owner, "two processes never share an owner identity"


def test_identity_rejects_an_index_past_the_count() -> None:
    with pytest.raises(ConfigError, match="not below the task count"):
        task_identity({"DOCFLEET_TASK_INDEX": "5", "DOCFLEET_TASK_COUNT": "5"})
    with pytest.raises(ConfigError, match="not an integer"):
        task_identity({"CLOUD_RUN_TASK_INDEX": "x"})


@pytest.mark.parametrize(("total", "tasks", "size"),
                         [(200, 2, 34), (10, 8, 1), (10_000_000, 4, MAX_UNIT_SIZE), (1, 1, 1)])
def test_unit_size_aims_at_three_units_per_task(total: int, tasks: int, size: int) -> None:
    assert choose_unit_size(total, tasks) == size


def test_plan_covers_every_index_once() -> None:
    spec = RunSpec(run_id="r", total=103, unit_size=10, pack="bench")
    units = list(plan_units(spec))
    assert len(units) == spec.unit_count == 11
    covered = [i for u in units for i in range(u.start, u.stop)]
    assert covered == list(range(103))


def test_fingerprint_depends_on_every_parameter() -> None:
    base = RunSpec(run_id="r", total=10, unit_size=2, pack="bench")
    assert base.fingerprint() == RunSpec(run_id="r", total=10, unit_size=2,
                                         pack="bench").fingerprint()
    for change in ({"total": 11}, {"unit_size": 3}, {"pack": "invoice"},
                   {"options": {"a": 1}}, {"max_attempts": 5}):
        assert RunSpec(**{**base.parameters(), **change}).fingerprint() != base.fingerprint()


def test_document_seed_is_stable_across_processes() -> None:
    code = "from docfleet.core.seeding import document_seed; print(document_seed('run-a', 42))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert int(out.stdout) == document_seed("run-a", 42) != document_seed("run-a", 43)


def test_settings_defaults_and_derived_values(monkeypatch) -> None:
    monkeypatch.setenv("DOCFLEET_LEASE_SECONDS", "9")
    s = load_settings(total=5)
    assert s.state == "sqlite:///.docfleet/state.db" and s.out == "file://./out"
    assert s.heartbeat == 3 and s.linger == 18 and s.total == 5
    assert load_settings(lease_seconds=30).lease_seconds == 30, "flags override env"


def test_heartbeat_must_be_shorter_than_the_lease() -> None:
    with pytest.raises(ConfigError, match="heartbeat_seconds must be shorter"):
        load_settings(lease_seconds=5, heartbeat_seconds=5)


def test_redact_drops_credentials_and_query() -> None:
    assert redact("s3://key:secret@bucket/p?endpoint=x") == "s3://bucket/p"


def test_parts_and_root_are_deterministic() -> None:
    def part() -> bytes:
        p = Part("r", 1, 10, 2)
        p.add_document("documents/000011.json", b"b")
        p.add_document("documents/000010.json", b"a")
        p.add_shard("items", "golden/items/unit-000001.parquet", b"xyz", 2)
        return p.to_bytes()

    assert part() == part()
    parsed = parse_json(part(), "part")
    assert [d["key"] for d in parsed["documents"]] == ["documents/000010.json",
                                                       "documents/000011.json"]
    root = parse_json(build_root("r", {"total": 12}, "f", [(1, part())]), "root")
    assert root["files"] == 2 and root["rows"] == {"items": 2} and root["units"] == 1


def test_shards_are_byte_deterministic_and_typed() -> None:
    schema = pa.schema([("document", pa.int64()), ("amount", pa.decimal128(12, 2))])
    from decimal import Decimal

    rows = [{"document": 1, "amount": Decimal("1234.50")}]
    assert shard_bytes(schema, rows) == shard_bytes(schema, rows)
    assert read_shard(shard_bytes(schema, rows)).to_pylist() == rows
    with pytest.raises((pa.ArrowInvalid, pa.ArrowTypeError, TypeError)):
        shard_bytes(schema, [{"document": "x", "amount": 1.5}])



def test_a_shard_is_the_rows_column_by_column() -> None:
    """A missing key is null, a key not in the schema is ignored, nested values keep
    their type, no rows is an empty shard with the schema; the bytes equal those of the
    columns converted one by one (what shards held before the rows went in as structs)."""
    schema = pa.schema([("document", pa.int64()), ("text", pa.string()),
                        ("quad", pa.list_(pa.float64())),
                        ("boxes", pa.list_(pa.struct([("x0", pa.float64())])))],
                       metadata={b"table": b"t"})
    rows = [{"document": 1, "text": "a", "quad": [1.0, 2.5], "boxes": [{"x0": 0.5}],
             "extra": object()},
            {"document": 2, "quad": None},
            {"text": "ü", "boxes": []}]
    shard = read_shard(shard_bytes(schema, rows))
    assert shard.schema == schema
    assert shard.to_pylist() == [
        {"document": 1, "text": "a", "quad": [1.0, 2.5], "boxes": [{"x0": 0.5}]},
        {"document": 2, "text": None, "quad": None, "boxes": None},
        {"document": None, "text": "ü", "quad": None, "boxes": []}]
    by_column = pa.Table.from_arrays(
        [pa.array([r.get(n) for r in rows], type=schema.field(n).type) for n in schema.names],
        schema=schema)
    sink = pa.BufferOutputStream()
    pa.parquet.write_table(by_column, sink, compression="zstd", use_dictionary=True,
                           write_statistics=True, store_schema=True)
    assert shard_bytes(schema, rows) == sink.getvalue().to_pybytes()
    assert read_shard(shard_bytes(schema, [])).num_rows == 0


def test_columns_give_the_bytes_of_their_rows() -> None:
    """A table's rows given as Arrow columns (``Columns``, what a pack gives for
    ``chars``) write the bytes their rows as dicts write, alone or among a unit's dict
    rows in document order (``TableRows``); they read back as those rows; a ``Columns``
    of another schema is refused."""
    schema = pa.schema([pa.field("document", pa.int64(), nullable=False),
                        ("text", pa.string()), ("quad", pa.list_(pa.float64()))],
                       metadata={b"table": b"t"})

    def rows(document: int, n: int) -> list[dict]:
        return [{"document": document, "text": f"{document}.{k}", "quad": [k / 3, -0.0]}
                for k in range(n)]

    def columns(document: int, n: int) -> Columns:
        return Columns(pa.Table.from_pylist(rows(document, n), schema=schema))

    assert shard_bytes(schema, columns(1, 5)) == shard_bytes(schema, rows(1, 5))
    unit = TableRows()
    for piece in (rows(0, 2), columns(1, 3), [], columns(2, 0), rows(3, 1), iter(rows(4, 2)),
                  columns(5, 4)):
        unit.extend(piece)
    everything = [r for d, n in ((0, 2), (1, 3), (3, 1), (4, 2), (5, 4)) for r in rows(d, n)]
    assert len(unit) == len(everything) == 12
    assert shard_bytes(schema, unit) == shard_bytes(schema, everything)
    assert read_shard(shard_bytes(schema, unit)).to_pylist() == everything
    assert shard_bytes(schema, TableRows()) == shard_bytes(schema, [])
    # a sequence of its rows, equal to them
    c = columns(7, 3)
    assert len(c) == 3 and list(c) == rows(7, 3) and c[1] == rows(7, 3)[1]
    assert c[-1] == rows(7, 3)[-1] and c[1:] == rows(7, 3)[1:]
    with pytest.raises(IndexError):
        c[3]
    assert c == rows(7, 3) and c == columns(7, 3) and c != rows(7, 2)
    other = Columns(pa.Table.from_pylist(rows(1, 1)))  # inferred types: not the schema
    with pytest.raises(ValueError, match="schema"):
        shard_bytes(schema, other)

