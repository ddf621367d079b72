"""One pass over a run for any number of layout exports at once: every document read and
verified once, every page rasterised once (:mod:`.raster`, a process pool) and handed to
each target's :class:`Sink` — ``docfleet export RUN --to coco://A --to hf://B`` renders
each page one time for both.

A sink is told each document (:meth:`Sink.document`) and, if it takes images, each of its
pages (:meth:`Sink.page`), in document order; :meth:`Sink.finish` writes what it holds
and returns its :class:`ExportResult`; :meth:`Sink.abort` drops a half-written export.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

from docfleet.export.layout import LayoutView, Rows
from docfleet.export.raster import PageImage, default_workers, rendered
from docfleet.export.reader import RunReader
from docfleet.export.tabular import ExportResult

#: ``(documents done, documents in all)`` after each document
Progress = Callable[[int, int], None]


class Sink(Protocol):
    #: whether :meth:`page` is called (the sink needs page images)
    images: bool

    def document(self, doc: dict[str, Any], rows: Rows, pdf: bytes) -> None: ...

    def page(self, doc: dict[str, Any], rows: Rows, img: PageImage) -> None: ...

    def finish(self) -> ExportResult: ...

    def abort(self) -> None: ...


def field_names(reader: RunReader, view: LayoutView) -> list[str]:
    """Every field name the run prints, sorted (one pass over its ``fields`` shards)."""
    names: set[str] = set()
    for _part, shard in reader.iter_table(view.roles["fields"]):
        names.update(shard.column("field").to_pylist())
    return sorted(names)


def document_count(reader: RunReader, view: LayoutView) -> int:
    """Documents the run holds (from the root, else the parts)."""
    rows = reader.expected_rows(view.document)
    if rows is not None:
        return rows
    return sum(p.count for p in reader.parts())


def run_sinks(reader: RunReader, view: LayoutView, sinks: Sequence[Sink], dpi: int,
              workers: int | None = None, progress: Progress | None = None
              ) -> dict[str, int]:
    """Feed every PDF document (and page, to the sinks that take images) of the run to
    ``sinks``; return the shared counts (``documents``, ``pages``, ``skipped_html``).
    A failure aborts every sink and re-raises."""
    counts = {"documents": 0, "pages": 0, "skipped_html": 0}
    images = any(s.images for s in sinks)
    total = document_count(reader, view) if progress else 0
    seen = 0

    def jobs() -> Iterator[tuple[tuple[dict[str, Any], Rows, bytes], bytes | None]]:
        nonlocal seen
        for part, doc, rows in view.documents(reader):
            if doc["format"] != "pdf":
                counts["skipped_html"] += 1
                seen += 1
                continue
            pdf = reader.document(part, doc["file"])
            yield (doc, rows, pdf), pdf if images else None

    def tick() -> None:
        nonlocal seen
        seen += 1
        if progress:
            progress(seen, total)

    try:
        for (doc, rows, pdf), pages in rendered(jobs(), dpi, workers or default_workers(),
                                                tick):
            counts["documents"] += 1
            for sink in sinks:
                sink.document(doc, rows, pdf)
            for img in pages:
                counts["pages"] += 1
                for sink in sinks:
                    if sink.images:
                        sink.page(doc, rows, img)
    except BaseException:
        for sink in sinks:
            sink.abort()
        raise
    return counts


def page_stem(doc: dict[str, Any]) -> str:
    """The file-name stem of a document's pages (``000042`` of ``000042.pdf``)."""
    return Path(doc["file"]).stem
