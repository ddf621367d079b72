"""Export a run's golden tables: ``parquet://DIR``, ``duckdb:///FILE.duckdb``,
``coco://DIR``, ``funsd://DIR``, ``docile://DIR``, ``hf://DIR`` (a ``datasets``
DatasetDict). Every export also writes the dataset card (:mod:`.card`). The run is
read from any blob store (:func:`docfleet.blob.open_blob_store`) through its root
manifest; see :mod:`.reader` for what is verified and refused."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

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
    "TamperedError", "export_run", "export_targets", "sink_path",
]

#: ``(documents done, documents in all)``, called after each document of a layout export
Progress = Callable[[int, int], None]

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
               dpi: int = 150, **layout: Any) -> ExportResult:
    """Export ``reader``'s run to ``to`` and write its dataset card there (see
    :func:`export_targets` for ``layout``'s keywords)."""
    return export_targets(reader, [to], tables, dpi, **layout)[0]


def export_targets(reader: RunReader, targets: Sequence[str],
                   tables: list[str] | None = None, dpi: int = 150, *,
                   box: str = "box", images: bool = True, workers: int | None = None,
                   progress: Progress | None = None) -> list[ExportResult]:
    """Export ``reader``'s run to every URI of ``targets`` and write its dataset card in
    each; the layout targets (COCO, FUNSD, DocILE, ``hf://``) share one pass over the
    run, each page rasterised once by ``workers`` processes (default: one per core).
    ``box``: the box column the layout targets read; ``images``: whether ``hf://`` holds
    page images; ``progress(done, total)`` after each document. Idempotent for every
    sink. Raises :class:`ExportError` (bad target, unknown table, a run without page
    layout: one line naming the format), :class:`TamperedError`."""
    from docfleet.export.card import write_card  # lazy: extra

    parsed = [sink_path(t) for t in targets]
    layout_targets = [(s, p) for s, p in parsed if s in LAYOUT_SINKS]
    if layout_targets and tables:
        raise ExportError(f"--tables does not apply to {layout_targets[0][0]}://",
                          "COCO, FUNSD, DocILE and hf:// always use the layout tables")
    if layout_targets and not 18 <= dpi <= 600:
        raise ExportError(f"--dpi {dpi} is out of range", "use 18 to 600 (e.g. 150)")
    results: dict[int, ExportResult] = {}
    if layout_targets:
        from docfleet.export.layout_export import export_layout  # lazy: extra

        done = export_layout(reader, layout_targets, dpi, box=box, images=images,
                             workers=workers, progress=progress)
        for k, (scheme, _path) in enumerate(parsed):
            if scheme in LAYOUT_SINKS:
                results[k] = done.pop(0)
    for k, (scheme, path) in enumerate(parsed):
        if scheme == "parquet":
            results[k] = export_parquet(reader, path, tables)
        elif scheme == "duckdb":
            results[k] = export_duckdb(reader, path, tables)
    out = [results[k] for k in range(len(parsed))]
    for result, (scheme, path) in zip(out, parsed, strict=True):
        result.extra["card"] = str(write_card(reader, card_path(scheme, path)))
    return out
