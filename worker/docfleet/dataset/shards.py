"""Golden shards: one Parquet file per unit per table, byte-deterministic."""

from __future__ import annotations

import importlib.abc
import io
import sys
from collections.abc import Iterable, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from docfleet.core.columns import Columns


class TableRows:
    """One table's rows of a unit as its documents give them, in order: row dicts, or
    :class:`Columns` kept as they are (no conversion until :func:`shard_bytes`)."""

    def __init__(self) -> None:
        self.chunks: list[list[dict[str, Any]] | pa.Table] = []
        self._count = 0

    def extend(self, rows: Iterable[dict[str, Any]]) -> None:
        if isinstance(rows, Columns):
            self.chunks.append(rows.table)
            self._count += len(rows)
            return
        if not isinstance(rows, Sequence):  # any iterable of row dicts, as a list took
            rows = list(rows)
        if rows:
            if not self.chunks or not isinstance(self.chunks[-1], list):
                self.chunks.append([])
            self.chunks[-1].extend(rows)
        self._count += len(rows)

    def __len__(self) -> int:
        return self._count


def shard_bytes(schema: pa.Schema, rows: Sequence[dict[str, Any]] | TableRows) -> bytes:
    """Encode ``rows`` as Parquet with ``schema``: a key missing from a row is null, a key
    not in the schema is ignored; :class:`Columns` (alone or among a :class:`TableRows`'
    chunks) go in as they are, the same bytes as their rows would give. Same rows → same
    bytes (no timestamps, fixed writer options). Raises ``pyarrow.ArrowInvalid``/
    ``TypeError`` if a value does not fit its column's type, ``ValueError`` if a
    ``Columns``' schema is not ``schema``."""
    if isinstance(rows, TableRows):
        chunks = rows.chunks
    elif isinstance(rows, Columns):
        chunks = [rows.table]
    else:
        chunks = [rows if isinstance(rows, list) else list(rows)]
    tables = [_from_rows(schema, c) if isinstance(c, list) else _checked(schema, c)
              for c in chunks] or [_from_rows(schema, [])]
    table = tables[0] if len(tables) == 1 else pa.concat_tables(tables).combine_chunks()
    sink = io.BytesIO()
    pq.write_table(
        table, sink, compression="zstd", use_dictionary=True, write_statistics=True,
        store_schema=True,
    )
    return sink.getvalue()


def _from_rows(schema: pa.Schema, rows: list[dict[str, Any]]) -> pa.Table:
    # one conversion of the rows as structs (in Arrow, not a Python list per column):
    # the same columns, a missing key null, a key not in the schema ignored
    columns = pa.array(rows, type=pa.struct(list(schema))).flatten()
    return pa.Table.from_arrays(columns, schema=schema)


def _checked(schema: pa.Schema, table: pa.Table) -> pa.Table:
    if not table.schema.equals(schema, check_metadata=True):
        raise ValueError(f"columns with schema {table.schema} for a table of {schema}")
    return table


def read_shard(data: bytes) -> pa.Table:
    """Decode one shard's bytes, on the calling thread.

    Not ``pq.read_table(io.BytesIO(...))``: that goes through Arrow's dataset scanner,
    whose thread pool is still running when the interpreter finalises after an export
    and aborts the process ("terminate called without an active exception", SIGABRT,
    exit 134) now and then. A ``ParquetFile`` over a ``BufferReader`` read with
    ``use_threads=False`` starts no pool thread. Raises ``pyarrow.ArrowInvalid`` on
    bytes that are not Parquet."""
    with pq.ParquetFile(pa.BufferReader(data)) as shard:
        return shard.read(use_threads=False)


class _NoPandas(importlib.abc.MetaPathFinder):
    def find_spec(self, name: str, path: Any = None, target: Any = None) -> None:
        if name == "pandas" or name.startswith("pandas."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)


def skip_pandas_probe() -> None:
    """Tell pyarrow this process has no pandas, so its first array conversion does not
    import it (0.15-0.9 s of CPU per task where pandas is installed, e.g. next to
    ``datasets``). pyarrow looks twice, each once per process: its Python shim (asked
    for ``have_pandas``) and its C++ converter of Python values (the first
    ``pa.scalar``, or compute call with a Python number, such as ``round3``'s); both are
    asked here, with pandas hidden. For task processes: nothing they run converts to or from
    pandas, and afterwards ``Table.to_pandas()`` raises in this process. ``import
    pandas`` keeps working. Idempotent; a no-op once pandas is imported."""
    if "pandas" in sys.modules:
        return
    blocker = _NoPandas()
    sys.meta_path.insert(0, blocker)
    try:
        pa.lib._pandas_api.have_pandas  # noqa: B018 - the shim caches its answer
        pa.scalar(0.0)  # the C++ converter's own look, cached likewise
    finally:
        sys.meta_path.remove(blocker)
