"""The layout targets of one ``docfleet export``: a sink per target (COCO, FUNSD, DocILE,
``hf://``) fed by one pass over the run (:mod:`.pipeline`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from docfleet.export.layout import layout_view
from docfleet.export.pipeline import Sink, field_names, run_sinks
from docfleet.export.reader import RunReader
from docfleet.export.tabular import ExportResult


def export_layout(reader: RunReader, targets: Sequence[tuple[str, Path]], dpi: int, *,
                  box: str = "box", images: bool = True, workers: int | None = None,
                  progress: Callable[[int, int], None] | None = None
                  ) -> list[ExportResult]:
    """Export ``reader``'s run to every ``(scheme, path)`` of ``targets`` in one pass;
    results in ``targets``' order. :class:`ExportError` (one line naming the first
    format) for a run without page layout."""
    view = layout_view(reader, targets[0][0], box)
    fields: list[str] | None = None
    sinks: list[Sink] = []
    try:
        for scheme, path in targets:
            if scheme in ("coco", "hf") and fields is None:
                fields = field_names(reader, view)
            if scheme == "coco":
                from docfleet.export.interchange import CocoSink  # lazy: extra

                sinks.append(CocoSink(reader, view, path, dpi, fields or []))
            elif scheme == "funsd":
                from docfleet.export.interchange import FunsdSink  # lazy: extra

                sinks.append(FunsdSink(reader, view, path, dpi))
            elif scheme == "docile":
                from docfleet.export.docile import DocileSink  # lazy: extra

                sinks.append(DocileSink(reader, view, path))
            else:
                from docfleet.export.hf import HfSink  # lazy: extra (datasets)

                sinks.append(HfSink(reader, view, path, dpi, fields or [], images))
    except BaseException:
        for sink in sinks:
            sink.abort()
        raise
    counts = run_sinks(reader, view, sinks, dpi, workers, progress)
    results = [sink.finish() for sink in sinks]
    for result in results:
        result.extra.setdefault("skipped_html", counts["skipped_html"])
    return results
