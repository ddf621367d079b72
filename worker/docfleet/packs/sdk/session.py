"""The session pipeline every templated pack runs: record → HTML → batched PDF print →
capture → boxes → golden rows.

A pack supplies :class:`DocumentSteps` (its record source, page size, template, render
context, record rows and the values an annotator marks); :class:`TemplatedSession` runs
them. One session holds one Chromium per task (opened on first use, closed in
:meth:`~TemplatedSession.close`), keeps ``pages`` batches in flight
(:mod:`.printing`) and yields documents strictly in index order. A document whose layout
is wrong fails alone, naming itself.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from docfleet.packs.base import DocumentSource, RenderedDocument
from docfleet.packs.sdk import style
from docfleet.packs.sdk.capture import Captured, capture, markable_boxes
from docfleet.packs.sdk.locales import JURISDICTIONS
from docfleet.packs.sdk.printing import (
    RESULT_TIMEOUT,
    Pending,
    Prepared,
    media_box,
    print_in_blocks,
)
from docfleet.packs.sdk.rows import html_rows, layout_rows, line_pages
from docfleet.render.browser import Chromium, Printed, RenderError
from docfleet.render.html import Templates
from docfleet.render.ink import measure_ink
from docfleet.render.layout import Layout
from docfleet.render.pdf import check_pdf, normalise_pdf
from docfleet.telemetry import traced

if TYPE_CHECKING:
    import pyarrow as pa


@dataclass(frozen=True)
class PrintedDocument:
    """What :meth:`DocumentSteps.rows` learns of a printed document: its page count, the
    first page's size in points after capture (``size``: what the ``pages`` table has),
    the final file's first MediaBox as its text writes it (``media_box``; ``size`` where
    the text is not ``[0 0 W H]``) and the layout the browser measured. A new pack's
    document table records ``size``; the receipt, purchase-order and statement packs
    record ``media_box`` (unrounded: ``227.03999`` where ``size`` is ``227.04``), as they
    always have, so their runs keep their bytes."""

    pages: int
    size: tuple[float, float]
    media_box: tuple[float, float]
    layout: Layout

    def line_pages(self, field: str) -> dict[int, int]:
        """line → page, from where ``field`` (a per-line field) was printed."""
        return line_pages(self.layout, field)


class DocumentSteps(Protocol):
    """What a templated pack supplies. Records carry ``document``, ``file``,
    ``archetype``, ``locale``, ``condition`` and ``issue_date`` (the PDF's date).
    Optionally ``ink_content``: the first content version that writes ink truth (the
    ``ink_*`` columns, the ``chars`` table, :func:`ink_truth`), holds its pages to the
    visibility check and keeps every carried quad on its page; ``photo_content``: the first
    content version whose photos use photo recipe 2 (:data:`~docfleet.render.capture.
    PHOTO_RECIPES`: the same geometry for about half the CPU); ``font_content``: the first
    content version whose documents print a language's own characters in a font the PDF
    embeds (:func:`embedded_fonts`)."""

    @property
    def tables(self) -> Mapping[str, pa.Schema]:
        """The pack's own tables, the document table first (the pack adds the shared
        ones: :mod:`.schema`)."""
        ...

    @property
    def markable(self) -> tuple[str, ...]:
        """Printed field names an annotator highlights, ticks or circles (``annotated``)."""
        ...

    def source(self, options: Any) -> DocumentSource[Any]:
        """The record source for the pack's parsed options."""
        ...

    def page_size(self, record: Any) -> tuple[int, int]:
        """CSS px; deterministic from the record."""
        ...

    def template(self, record: Any) -> str:
        """The template name (in the pack's own templates) ``record`` renders with."""
        ...

    def context(self, record: Any) -> dict[str, Any]:
        """Template context; ``pages`` is the list of pages the template prints."""
        ...

    def rows(self, record: Any, printed: PrintedDocument | None
             ) -> dict[str, list[dict[str, Any]]]:
        """The rows of the pack's own tables (``printed`` is ``None`` in html)."""
        ...


def ink_truth(steps: DocumentSteps, content: int) -> bool:
    """Whether content version ``content`` of the pack of ``steps`` writes ink truth and
    checks what a reader sees (from the steps' ``ink_content`` on; never without it)."""
    return _since(steps, "ink_content", content)


def photo_recipe(steps: DocumentSteps, content: int) -> int:
    """The photo recipe content version ``content`` of the pack of ``steps`` captures
    with: 2 from the steps' ``photo_content`` on, else 1 (older runs keep their bytes)."""
    return 2 if _since(steps, "photo_content", content) else 1


def embedded_fonts(context: dict[str, Any]) -> dict[str, Any]:
    """``context`` with its ``font`` stack naming its language's embedded family
    (:func:`.style.embedded_fonts`) and no synthesised bold or italic
    (``font_synthesis``, which the page template prints), for a language that has one;
    ``context`` itself otherwise."""
    language = str(context.get("lang") or "")
    if language.split("-")[0] not in style.EMBEDDED:
        return context
    return {**context, "font": style.embedded_fonts(str(context.get("font") or ""), language),
            "font_synthesis": "none"}


def _since(steps: DocumentSteps, first: str, content: int) -> bool:
    """Whether ``content`` is at or past the version the steps' optional ``first``
    attribute names (never when the steps have none)."""
    version = getattr(steps, first, None)
    return version is not None and content >= version


class TemplatedSession:
    """One task's renderer over a pack's :class:`DocumentSteps`; ``render`` yields
    documents in index order. ``options`` carries ``format`` and whatever the source
    needs; ``templates`` are the pack's; ``chromium``: a browser to borrow (not closed by
    :meth:`close`), by default the session starts its own on first use."""

    def __init__(self, steps: DocumentSteps, templates: Templates, options: Any,
                 chromium_path: str, pages: int, chromium: Chromium | None = None,
                 log: logging.Logger | None = None) -> None:
        self.steps = steps
        self.log = log or logging.getLogger("docfleet.pack")
        self.templates = templates
        self.options = options
        self.source = steps.source(options)
        content = getattr(options, "content", 1)
        self.ink = ink_truth(steps, content)
        self.photo_recipe = photo_recipe(steps, content)
        self.embedded_fonts = _since(steps, "font_content", content)
        self.chromium_path = chromium_path
        self.pages = chromium.pages if chromium else pages
        self._chromium: Chromium | None = chromium
        self._owns_chromium = chromium is None

    @property
    def chromium(self) -> Chromium:
        if self._chromium is not None and self._owns_chromium and not self._chromium.alive:
            self._chromium.close()  # a crashed browser: the next unit gets a fresh one
            self._chromium = None
        if self._chromium is None:
            self._chromium = Chromium(self.chromium_path, self.pages)
            self._owns_chromium = True
        return self._chromium

    @property
    def chromium_alive(self) -> bool:
        """Whether the session holds a running browser (False before first use)."""
        return self._chromium is not None and self._chromium.alive

    def page_size(self, record: Any) -> tuple[int, int]:
        """The page size of ``record`` in CSS px."""
        return self.steps.page_size(record)

    def prepare(self, run_id: str, index: int) -> tuple[Any, str, list[Any], int]:
        """Record, HTML, printed fields and page count of one document (no browser)."""
        record = self.source.generate(run_id, index)
        context = self.steps.context(record)
        if self.embedded_fonts:
            context = embedded_fonts(context)
        html, printed = self.templates.render(self.steps.template(record), context)
        return record, html, printed, len(context["pages"])

    def render(self, run_id: str, indexes: Sequence[int], total: int | None = None
               ) -> Iterator[RenderedDocument]:
        if self.options.format == "html":
            for index in indexes:
                record, html, printed, _ = self.prepare(run_id, index)
                rows: dict[str, Sequence[dict[str, Any]]] = {
                    **self.steps.rows(record, None),
                    **html_rows(record.document, printed, self.ink)}
                yield RenderedDocument(index=record.document,
                                       files={record.file: html.encode()}, rows=rows)
            return
        printing = print_in_blocks(self.chromium,
                                   lambda index: Prepared(*self.prepare(run_id, index)),
                                   self.page_size, indexes, total, self.pages)
        with closing(printing):
            for item in printing:
                yield self._pdf_document(run_id, item)

    @traced("docfleet.render.pdf", lambda self, run_id, item: {
        "docfleet.document.index": item.doc.record.document})
    def _pdf_document(self, run_id: str, item: Pending) -> RenderedDocument:
        """The finished document: printed, checked, captured, its boxes carried into rows."""
        record, doc = item.doc.record, item.doc
        result = item.result()
        layout = result.layout
        faults = self._faults(layout)
        if faults:  # again, alone, each way of REPRINTS in turn (see _print_again)
            reprinted = None
            for how, css in REPRINTS:
                result = self._print_again(doc, css)
                if not self._faults(result.layout):
                    reprinted = how
                    break
            if reprinted is None:
                raise _fault(record, faults)
            layout = result.layout
            self.log.info("document %d (%s, %s) printed again, %s: %s",
                          record.document, record.archetype, record.locale, reprinted,
                          "; ".join(faults[:3]),
                          extra={"event": "document.relaxed", "document": record.document,
                                 "reprint": reprinted})
        assert result.pdf is not None
        pdf = normalise_pdf(result.pdf, record.issue_date)
        check_pdf(pdf)
        ink = measure_ink(pdf, layout) if self.ink else None
        if ink is not None and ink.faults:
            raise _fault(record, ink.faults)
        if layout.pages != doc.pages:
            raise RenderError(f"document {record.document}: expected {doc.pages} page(s), "
                              f"laid out and printed {layout.pages}")
        language = JURISDICTIONS[record.locale].language
        captured: Captured = capture(
            pdf, media_box(pdf), doc.pages, record.condition, run_id, record.document,
            language, lambda: markable_boxes(layout, doc.pages, self.steps.markable),
            clamp=self.ink, photo_recipe=self.photo_recipe)
        printed = PrintedDocument(doc.pages, captured.size, _written_size(captured),
                                  layout)
        rows: dict[str, Sequence[dict[str, Any]]] = {
            **self.steps.rows(record, printed),
            **layout_rows(record.document, record.condition, doc.printed, layout,
                          captured.carry, captured.sizes, captured.page_params, ink)}
        return RenderedDocument(index=record.document, files={record.file: captured.pdf},
                                rows=rows)

    def _faults(self, layout: Layout) -> list[str]:
        """What the layout guard refuses: the layout's faults, and with ink truth the
        values a reader cannot see where their box says."""
        return layout.faults + (layout.hidden if self.ink else [])

    def _print_again(self, doc: Prepared, css: str) -> Printed:
        """``doc`` printed alone with ``css`` (one of :data:`REPRINTS`): a value too long
        for the box its template gives it (a 47-character company name beside a
        long-labelled meta block) wraps at that box's edge instead of pushing it past the
        page; a box its lines overfill holds them a little closer. Only a document whose
        layout faults is printed so (its first print is not kept), and only one whose
        reprint before faults too takes the next, so a document that prints right keeps
        its bytes; the same document always takes the same path. :class:`RenderError` if
        it does not print."""
        html = doc.html.replace("</head>", css + "</head>", 1)
        width, height = self.page_size(doc.record)
        return self.chromium.submit(html, width, height).result(timeout=RESULT_TIMEOUT)

    def close(self) -> None:
        if self._chromium is not None and self._owns_chromium:
            self._chromium.close()
        self._chromium = None


#: what a document whose layout faults is printed again with: every printed value (the
#: ``F`` helper's spans) may break at its spaces, and where a value has no space left to
#: break at, anywhere (its text, spaces and line breaks are kept: the golden truth is the
#: same; its boxes are measured as always)
RELAXED_CSS = ("<style>[data-field] { white-space: pre-wrap !important; "
               "overflow-wrap: anywhere; }</style>")
#: what a document that still faults with :data:`RELAXED_CSS` is printed with next: its
#: lines 1.25 em apart, for a fixed-height box whose lines overfill it (a boxed ar-SA
#: invoice's head: Arabic's tall default line gap, a 40-character e-mail address pushed
#: to a line of its own)
TIGHT_CSS = "<style>.page, .page * { line-height: 1.25 !important; }</style>"
#: how a document whose layout faults is printed again, in turn, until one lays out
#: right (else it fails): (what the log line says, the CSS added to its head)
REPRINTS = (("its values free to wrap", RELAXED_CSS),
            ("its values free to wrap and its lines closer", RELAXED_CSS + TIGHT_CSS))


def _fault(record: Any, faults: list[str]) -> RenderError:
    return RenderError(f"document {record.document} ({record.archetype}, {record.locale}) "
                       f"lays out wrong: {'; '.join(faults[:3])}")


#: a MediaBox written ``[0 0 W H]`` (single spaces)
_WRITTEN_BOX = re.compile(rb"/MediaBox\s*\[\s*0 0 ([0-9.]+) ([0-9.]+)\s*\]")


def _written_size(captured: Captured) -> tuple[float, float]:
    """The final PDF's first MediaBox as its text says (``captured.size`` if the text is
    not ``[0 0 W H]``)."""
    box = _WRITTEN_BOX.search(captured.pdf)
    return (float(box.group(1)), float(box.group(2))) if box else captured.size
