"""Tabular sinks: ``parquet://DIR`` (one Parquet file per golden table) and
``duckdb:///FILE.duckdb`` (one table per golden table plus a joined view).

Both stream unit by unit (one verified shard in memory at a time, plus a bounded write
buffer) and are idempotent: exporting a run twice leaves the same tables, never
duplicated rows. Parquet files are written to temporary names and renamed only once every
table has been read and checked; DuckDB tables are replaced in one transaction, so a
failed export (a tampered shard) leaves the previous result untouched.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from docfleet.core.errors import MissingExtraError
from docfleet.export.reader import ExportError, RunReader

#: rows buffered before a Parquet row group is written
ROW_GROUP_ROWS = 65_536
#: the DuckDB view over invoices, fields and line items (one row per printed field)
VIEW_NAME = "invoice_fields"
META_TABLE = "_docfleet_export"


@dataclass
class ExportResult:
    """What an export wrote: rows per table, units read, where it went."""

    target: str
    rows: dict[str, int] = field(default_factory=dict)
    units: int = 0
    partial: bool = False
    extra: dict[str, object] = field(default_factory=dict)


def check_tables(reader: RunReader, wanted: list[str] | None) -> list[str]:
    """The tables to export: ``wanted`` (each must exist in the run) or all of them."""
    available = reader.tables()
    if not wanted:
        return available
    unknown = [t for t in wanted if t not in available]
    if unknown:
        raise ExportError(f"run {reader.run_id} has no table {', '.join(unknown)}",
                          f"its tables are: {', '.join(available) or 'none'}")
    return list(dict.fromkeys(wanted))


def _first_schema(reader: RunReader, table: str) -> pa.Schema:
    for part in reader.parts():
        return reader.shard(part, table).schema.remove_metadata()
    raise ExportError(f"run {reader.run_id} has no units to export")


def _batches(reader: RunReader, table: str, schema: pa.Schema, seen: list[int]
             ) -> Iterator[pa.RecordBatch]:
    """Every row of ``table`` as record batches of ``schema``; counts rows in ``seen``."""
    for _part, shard in reader.iter_table(table):
        shard = shard.replace_schema_metadata(None)
        if shard.schema != schema:
            shard = shard.cast(schema)
        seen[0] += shard.num_rows
        yield from shard.to_batches()


def _check_rows(reader: RunReader, table: str, rows: int) -> None:
    expected = reader.expected_rows(table)
    if expected is not None and rows != expected:
        raise ExportError(f"table {table}: read {rows} rows, the root manifest says {expected}")


def export_parquet(reader: RunReader, directory: Path, tables: list[str] | None = None
                   ) -> ExportResult:
    """Write ``DIR/<table>.parquet`` per table and ``DIR/_export.json``. Idempotent; on
    any error no file in ``DIR`` is changed."""
    directory.mkdir(parents=True, exist_ok=True)
    names = check_tables(reader, tables)
    result = ExportResult(target=f"parquet://{directory}", partial=reader.partial,
                          units=len(reader.units))
    temps: list[tuple[Path, Path]] = []
    try:
        for table in names:
            final = directory / f"{table}.parquet"
            tmp = directory / f".{table}.parquet.{os.getpid()}.tmp"
            temps.append((tmp, final))
            schema = _first_schema(reader, table)
            seen = [0]
            with pq.ParquetWriter(tmp, schema, compression="zstd") as writer:
                buffer: list[pa.RecordBatch] = []
                buffered = 0
                for batch in _batches(reader, table, schema, seen):
                    buffer.append(batch)
                    buffered += batch.num_rows
                    if buffered >= ROW_GROUP_ROWS:
                        writer.write_table(pa.Table.from_batches(buffer, schema))
                        buffer, buffered = [], 0
                if buffer or seen[0] == 0:
                    writer.write_table(pa.Table.from_batches(buffer, schema))
            _check_rows(reader, table, seen[0])
            result.rows[table] = seen[0]
        meta_tmp = directory / f"._export.json.{os.getpid()}.tmp"
        meta_tmp.write_text(json.dumps(_meta(reader, result), indent=1, sort_keys=True) + "\n")
        temps.append((meta_tmp, directory / "_export.json"))
        for tmp, final in temps:
            os.replace(tmp, final)
    finally:
        for tmp, _ in temps:
            tmp.unlink(missing_ok=True)
    return result


def _meta(reader: RunReader, result: ExportResult) -> dict[str, object]:
    return {
        "run_id": reader.run_id,
        "fingerprint": reader.root.get("fingerprint") if reader.root else None,
        "partial": reader.partial,
        "units": reader.units if reader.partial else len(reader.units),
        "rows": result.rows,
    }


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def export_duckdb(reader: RunReader, path: Path, tables: list[str] | None = None
                  ) -> ExportResult:
    """Replace one DuckDB table per golden table in ``path`` and (when invoices, fields
    and line_items are all present) the view :data:`VIEW_NAME`, in one transaction:
    readers see the old tables or all the new ones. Idempotent. Raises
    :class:`MissingExtraError` without the 'export' extra (the generation image has none)."""
    try:
        import duckdb
    except ImportError:
        raise MissingExtraError("the duckdb:// export", "export") from None

    names = check_tables(reader, tables)
    path.parent.mkdir(parents=True, exist_ok=True)
    result = ExportResult(target=f"duckdb:///{path}", partial=reader.partial,
                          units=len(reader.units))
    try:
        con = duckdb.connect(str(path))
    except duckdb.Error as exc:
        raise ExportError(f"cannot open {path}: {str(exc).splitlines()[0]}",
                          "close other programs using it, or export to another file") from None
    failure: list[BaseException] = []
    try:
        con.execute("BEGIN TRANSACTION")
        for table in names:
            schema = _first_schema(reader, table)
            seen = [0]

            def guarded(table: str = table, schema: pa.Schema = schema,
                        seen: list[int] = seen) -> Iterator[pa.RecordBatch]:
                try:
                    yield from _batches(reader, table, schema, seen)
                except BaseException as exc:  # surfaced after DuckDB gives up
                    failure.append(exc)
                    raise

            source = pa.RecordBatchReader.from_batches(schema, guarded())
            con.register("__docfleet_source", source)
            try:
                con.execute(f"CREATE OR REPLACE TABLE {_quote(table)} AS "
                            "SELECT * FROM __docfleet_source")
            except duckdb.Error:
                if failure:
                    raise failure[0] from None
                raise
            finally:
                with contextlib.suppress(duckdb.Error):
                    con.unregister("__docfleet_source")
            _check_rows(reader, table, seen[0])
            result.rows[table] = seen[0]
        con.execute(f"CREATE TABLE IF NOT EXISTS {META_TABLE} (\"table\" VARCHAR PRIMARY KEY, "
                    "run_id VARCHAR, fingerprint VARCHAR, partial BOOLEAN, units INTEGER, "
                    "\"rows\" BIGINT)")
        meta = _meta(reader, result)
        for table, rows in result.rows.items():
            con.execute(f"INSERT OR REPLACE INTO {META_TABLE} VALUES (?, ?, ?, ?, ?, ?)",
                        [table, reader.run_id, meta["fingerprint"], reader.partial,
                         len(reader.units), rows])
        present = {r[0] for r in con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_type='BASE TABLE'"
        ).fetchall()}
        if {"invoices", "fields", "line_items"} <= present:
            con.execute(VIEW_SQL)
            result.extra["view"] = VIEW_NAME
        con.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(duckdb.Error):
            con.execute("ROLLBACK")
        raise
    finally:
        con.close()
    return result


VIEW_SQL = f"""
CREATE OR REPLACE VIEW {VIEW_NAME} AS
SELECT i.document, i.file, i.archetype, i.locale, i.condition, i.currency,
       f.field, f.line, f.occurrence, f.text, f.value,
       f.page, f.x0, f.y0, f.x1, f.y1,
       l.sku, l.description AS line_description, l.pricing, l.quantity, l.unit,
       l.unit_price, l.net_amount, l.tax_rate
FROM invoices AS i
JOIN fields AS f ON f.document = i.document
LEFT JOIN line_items AS l ON l.document = f.document AND l.line = f.line
"""
