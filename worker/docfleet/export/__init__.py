"""Export a run's golden tables: ``parquet://DIR``, ``duckdb:///FILE.duckdb``,
``coco://DIR``, ``funsd://DIR``, ``docile://DIR``, ``hf://DIR`` (a ``datasets``
DatasetDict). Every export also writes the dataset card (:mod:`.card`). The run is
read from any blob store (:func:`docfleet.blob.open_blob_store`) through its root
manifest; see :mod:`.reader` for what is verified and refused."""

from __future__ import annotations

from pathlib import Path

from docfleet.core.uris import parse_uri
from docfleet.export.reader import (
    ExportError,
    RunIncompleteError,
    RunReader,
    TamperedError,
)
from docfleet.export.tabular import ExportResult, export_duckdb, export_parquet

__all__ = [
    "SINK_SCHEMES", "ExportError", "ExportResult", "RunIncompleteError", "RunReader",
    "TamperedError", "export_run", "sink_path",
]

SINK_SCHEMES = ("parquet", "duckdb", "coco", "funsd", "docile", "hf")
#: sinks that read page images / layout (no --tables)
LAYOUT_SINKS = ("coco", "funsd", "docile", "hf")


def sink_path(uri: str) -> tuple[str, Path]:
    """(scheme, local path) of an export target. ``parquet://``, ``coco://``,
    ``funsd://``, ``docile://`` and ``hf://`` take a directory (``parquet://./out`` relative, ``parquet:///abs``
    absolute); ``duckdb://`` follows the SQLAlchemy convention of ``sqlite://``:
    ``duckdb:///relative.duckdb``, ``duckdb:////absolute.duckdb``."""
    parsed = parse_uri(uri, SINK_SCHEMES, "export target")
    if parsed.scheme == "duckdb":
        path = parsed.netloc + parsed.path if parsed.netloc else parsed.path[1:]
        if not path or path.endswith("/"):
            raise ExportError(f"export target {uri!r} names no database file",
                              "use duckdb:///run.duckdb or duckdb:////abs/run.duckdb")
    else:
        path = parsed.netloc + parsed.path
        if not path:
            raise ExportError(f"export target {uri!r} names no directory",
                              f"use {parsed.scheme}://./dir or {parsed.scheme}:///abs/dir")
    return parsed.scheme, Path(path)


def card_path(scheme: str, path: Path) -> Path:
    """Where an export to ``scheme``/``path`` writes its dataset card."""
    return path.with_suffix(".md") if scheme == "duckdb" else path / "README.md"


def export_run(reader: RunReader, to: str, tables: list[str] | None = None,
               dpi: int = 150) -> ExportResult:
    """Export ``reader``'s run to ``to`` and write its dataset card there. Idempotent for
    every sink. Raises :class:`ExportError` (bad target, unknown table),
    :class:`TamperedError`."""
    from docfleet.export.card import write_card  # lazy: extra

    scheme, path = sink_path(to)
    result = _export(reader, scheme, path, tables, dpi)
    result.extra["card"] = str(write_card(reader, card_path(scheme, path)))
    return result


def _export(reader: RunReader, scheme: str, path: Path, tables: list[str] | None,
            dpi: int) -> ExportResult:
    if scheme == "parquet":
        return export_parquet(reader, path, tables)
    if scheme == "duckdb":
        return export_duckdb(reader, path, tables)
    if tables:
        raise ExportError(f"--tables does not apply to {scheme}://",
                          "COCO, FUNSD, DocILE and hf:// always use the layout tables")
    if scheme == "docile":
        from docfleet.export.docile import export_docile  # lazy: extra

        return export_docile(reader, path)
    if not 18 <= dpi <= 600:
        raise ExportError(f"--dpi {dpi} is out of range", "use 18 to 600 (e.g. 150)")
    if scheme == "hf":
        from docfleet.export.hf import export_hf  # lazy: extra

        return export_hf(reader, path, dpi)
    from docfleet.export.interchange import export_coco, export_funsd  # lazy: extra

    if scheme == "coco":
        return export_coco(reader, path, dpi)
    return export_funsd(reader, path, dpi)
