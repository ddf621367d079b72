"""Bad input gets one clear line and a non-zero exit, no traceback, nothing written that
looks complete."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from docfleet.blob import open_blob_store
from docfleet.core.errors import ConfigError, ManifestGapError
from docfleet.core.settings import load_settings
from docfleet.dataset.manifest import RunFiles
from docfleet.kernel.finalize import finalize_run
from docfleet.state import open_state_store
from docfleet.telemetry.logs import get_logger
from support.errors import assert_one_line_error
from support.fleet import cli, start_worker, worker_env


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (["--state", "postgres://x/y"], ["unknown state store URI scheme 'postgres://'",
                                          "sqlite://, firestore://, dynamodb://"]),
        (["--state", "nonsense"], ["has no scheme"]),
        (["--out", "ftp://host/x"], ["unknown output URI scheme 'ftp://'", "file://, gs://, s3://"]),
        (["--total", "-5"], ["total: Input should be greater than or equal to 1"]),
        (["--unit-size", "0"], ["unit_size: Input should be greater than or equal to 1"]),
        (["--lease-seconds", "0"], ["lease_seconds"]),
        (["--pack", "nope"], ["unknown pack 'nope'", "installed packs:"]),
        (["--run-id", "bad id!"], ["run_id: must be 1-100 characters"]),
        (["--option", "colour=red"], ["the bench pack takes no options"]),
    ],
)
def test_bad_flags_give_one_clear_line(tmp_path: Path, args: list[str], needles: list) -> None:
    base = ["--run-id", "r1", "--total", "10", "--state", f"sqlite:///{tmp_path}/s.db",
            "--out", f"file://{tmp_path}/out", "--pack", "bench"]
    result = cli("work", *base, *args)
    assert_one_line_error(result, *needles, code=2)
    assert not (tmp_path / "out" / "r1" / "manifest.json").exists()


def test_a_bad_flag_value_type_is_a_usage_error(tmp_path: Path) -> None:
    result = cli("run", "--total", "many")
    assert_one_line_error(result, "'many' is not a valid integer", code=2)


def test_settings_from_env_are_validated_with_their_source(monkeypatch) -> None:
    monkeypatch.setenv("DOCFLEET_UNIT_SIZE", "0")
    with pytest.raises(ConfigError, match="DOCFLEET_UNIT_SIZE"):
        load_settings()


def test_a_run_id_reused_with_other_parameters_is_refused(tmp_path: Path, run_id: str) -> None:
    state, out = f"sqlite:///{tmp_path}/s.db", f"file://{tmp_path}/out"
    assert start_worker(worker_env(state, out, run_id, 20, unit_size=5), tmp_path / "a.log"
                        ).wait(30) == 0
    result = cli("work", "--run-id", run_id, "--total", "25", "--unit-size", "5",
                 "--pack", "bench", "--state", state, "--out", out)
    assert_one_line_error(result, f"run '{run_id}' already exists with other parameters",
                       "total: stored 20 vs given 25", "use a new --run-id", code=2)


def test_a_new_run_without_total_is_refused(tmp_path: Path) -> None:
    result = cli("work", "--run-id", "fresh", "--state", f"sqlite:///{tmp_path}/s.db")
    assert_one_line_error(result, "does not exist yet and no total was given", code=2)


def test_status_of_an_unknown_run(tmp_path: Path) -> None:
    from docfleet.state import open_state_store

    open_state_store(f"sqlite:///{tmp_path}/s.db").close()
    result = cli("status", "ghost", "--state", f"sqlite:///{tmp_path}/s.db")
    assert_one_line_error(result, "run 'ghost' does not exist", code=2)


def test_read_only_commands_never_create_state(tmp_path: Path) -> None:
    """status / verify --state / resume on a mistyped path: one line, nothing created."""
    typo = tmp_path / "no" / "such" / "state.db"
    for args in (["status", "r1"], ["verify", "r1", "--out", f"file://{tmp_path}/o"],
                 ["resume", "r1"]):
        result = cli(*args, "--state", f"sqlite:///{typo}")
        assert_one_line_error(result, "does not exist", "nothing was created", code=2)
    assert not (tmp_path / "no").exists()


def test_an_empty_or_foreign_sqlite_file_is_named_for_what_it_is(tmp_path: Path) -> None:
    """A file with no tables (the moment a task creates the store, or an empty file) holds
    no run yet; an SQLite file with other tables is not a state store. Neither is changed."""
    import sqlite3

    empty = tmp_path / "empty.db"
    sqlite3.connect(empty).execute("PRAGMA journal_mode = WAL").fetchone()
    result = cli("status", "r1", "--state", f"sqlite:///{empty}")
    assert_one_line_error(result, "holds no runs yet", code=2)
    foreign = tmp_path / "foreign.db"
    with sqlite3.connect(foreign) as conn:
        conn.execute("CREATE TABLE notes (x)")
    result = cli("status", "r1", "--state", f"sqlite:///{foreign}")
    assert_one_line_error(result, "an SQLite file but not a docfleet state store", code=2)
    with sqlite3.connect(foreign) as conn:
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master")]
    assert names == ["notes"]


def test_missing_extra_names_it(tmp_path: Path) -> None:
    """The message names the extra to install when a cloud SDK is missing."""
    from docfleet.core.errors import MissingExtraError

    assert "pip install 'docfleet[gcp]'" in str(MissingExtraError("firestore://", "gcp"))


def _finished_run(tmp_path: Path, run_id: str) -> tuple[str, str]:
    state, out = f"sqlite:///{tmp_path}/s.db", f"file://{tmp_path}/out"
    assert start_worker(worker_env(state, out, run_id, 30, unit_size=10), tmp_path / "w.log"
                        ).wait(30) == 0
    return state, out


def test_verify_names_a_tampered_document(tmp_path: Path, run_id: str) -> None:
    _, out = _finished_run(tmp_path, run_id)
    doc = tmp_path / "out" / run_id / "documents" / "000012.json"
    doc.write_bytes(doc.read_bytes().replace(b"value", b"VALUE"))
    result = cli("verify", run_id, "--out", out)
    assert_one_line_error(result, "unit 1:", "000012.json does not match", code=1,
                          in_line=False)  # the report names it under its header


def test_verify_refuses_a_corrupt_root(tmp_path: Path, run_id: str) -> None:
    _, out = _finished_run(tmp_path, run_id)
    root = tmp_path / "out" / run_id / "manifest.json"
    root.write_bytes(root.read_bytes()[:40])
    assert_one_line_error(cli("verify", run_id, "--out", out), "is not valid JSON", code=1,
                          in_line=False)


@pytest.mark.parametrize("damage", ["delete-part", "corrupt-part", "delete-shard"])
def test_finalize_refuses_a_gap_and_resume_regenerates_it(
    tmp_path: Path, run_id: str, damage: str
) -> None:
    state, out = _finished_run(tmp_path, run_id)
    run_dir = tmp_path / "out" / run_id
    (run_dir / "manifest.json").unlink()  # as if the root had not been written yet
    part = run_dir / "manifest" / "unit-000001.json"
    if damage == "delete-part":
        part.unlink()
    elif damage == "corrupt-part":
        part.write_bytes(part.read_bytes()[:-20])
    else:
        (run_dir / "golden" / "items" / "unit-000001.parquet").unlink()
    store = open_state_store(state)
    files = RunFiles(open_blob_store(out), run_id)
    with pytest.raises(ManifestGapError, match="unit 1") as caught:
        finalize_run(store, files, get_logger())
    assert "docfleet resume" in str(caught.value)
    assert not (run_dir / "manifest.json").exists(), "no root over a gap"
    resumed = cli("resume", run_id, "--state", state, "--out", out)
    assert "1 damaged unit(s) reopened" in resumed.stdout, resumed.stdout + resumed.stderr
    assert start_worker(worker_env(state, out, run_id), tmp_path / "again.log").wait(30) == 0
    assert cli("verify", run_id, "--out", out).returncode == 0
    root = json.loads((run_dir / "manifest.json").read_text())
    assert root["units"] == 3 and root["rows"] == {"items": 30}
