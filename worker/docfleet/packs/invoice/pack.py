"""The ``invoice`` pack: records → Jinja HTML → Chromium PDF (clean or scan) + golden rows.

A session holds one Chromium (opened on first use, closed in :meth:`close`) and keeps
``Settings.render_pages`` batches in flight: while the browser lays out and prints one
batch, this thread builds the records and HTML of the next ones, and it yields documents
strictly in index order.

Batches are fixed by the index alone, so a document's bytes never depend on the unit
size or on which documents a unit asked for: the indexes fall into blocks
``[k*BATCH, (k+1)*BATCH)``, and the documents of one block that share a page size are
printed together by one ``page.pdf`` call. A unit that covers part of a block lays out
the rest of it too (printed for their neighbours' sake, never stored), up to the run's
total: the last block of a run is only as long as the run. A document whose
layout is wrong fails alone; a batch that fails as a whole is printed one document at a
time (see :mod:`docfleet.render.browser`).

Printed field names (``fields.field``): invoice_number, issue_date, due_date, po_number,
seller_{name,address,tax_id,phone,email,iban,bic,account}, buyer_{name,address,tax_id},
per line (``line`` set): line_number, sku, description, quantity, unit, unit_price,
discount_percent, line_tax_rate, net_amount; per tax row (``line`` = tax row, 1-based):
tax_rate, tax_base, tax_amount; subtotal, discount_total, total; where printed:
original_invoice and reason (credit notes), fx_rate and fx_total (multi-currency),
seller_registration (the French SIRET), tagline, payment_terms and note (catalogue text).
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from docfleet.core.seeding import document_seed
from docfleet.packs.base import RenderedDocument
from docfleet.packs.invoice.archetypes import ARCHETYPE_SPECS
from docfleet.packs.invoice.context import build_context, line_pages, page_size
from docfleet.packs.invoice.golden import (
    BoxMap,
    QuadMap,
    cell_rows,
    field_rows,
    invoice_row,
    label_rows,
    line_rows,
    page_rows,
    text_line_rows,
    word_rows,
)
from docfleet.packs.invoice.locales import JURISDICTIONS
from docfleet.packs.invoice.options import ARCHETYPES, InvoiceOptions, parse_options
from docfleet.packs.invoice.records import Invoice
from docfleet.render.browser import Chromium, Job, Printed, RenderError
from docfleet.render.html import PrintedField, render_html
from docfleet.render.layout import Box, Layout
from docfleet.render.pdf import check_pdf, normalise_pdf
from docfleet.telemetry import traced

if TYPE_CHECKING:  # imported where used: `docfleet run` loads this pack only to check
    # options (no pyarrow, no Faker there), and a clean-only task never scans
    import pyarrow as pa

    from docfleet.packs.invoice.source import InvoiceSource

_MEDIA_BOX = re.compile(rb"/MediaBox\s*\[\s*0\s+0\s+([0-9.]+)\s+([0-9.]+)\s*\]")
#: tables without rows when there is no layout (html format)
_LAYOUT_TABLES = ("words", "lines", "labels", "links", "cells")


def media_box(pdf: bytes) -> tuple[float, float]:
    """The first page's MediaBox size in points (3 decimals), exactly as the PDF says:
    Chromium rounds a CSS page size to its own device units, so ``px * 0.75`` is not it."""
    m = _MEDIA_BOX.search(pdf)
    if m is None:
        raise RenderError("the printed PDF has no MediaBox")
    return round(float(m.group(1)), 3), round(float(m.group(2)), 3)
RESULT_TIMEOUT = 120.0
#: documents per block (and at most per ``page.pdf`` call). Part of what a document's
#: bytes depend on: changing it changes the PDFs (not the golden rows) of every run.
BATCH = 8
#: printed values an annotator highlights, ticks or circles
MARKABLE = ("total", "due_date", "invoice_number", "tax_amount", "net_amount", "subtotal")


@dataclass
class _Pending:
    invoice: Invoice
    html: str
    printed: list[PrintedField]
    pages: int
    future: Future[list[Printed | RenderError | None]]
    slot: int  # this document's place in its batch


class InvoiceSession:
    """One task's renderer. ``render`` yields documents in index order."""

    #: the printed values an annotator marks (a pack's session may name its own)
    markable: tuple[str, ...] = MARKABLE

    def __init__(self, options: InvoiceOptions, chromium_path: str, pages: int,
                 chromium: Chromium | None = None) -> None:
        """``chromium``: a browser to borrow (not closed by :meth:`close`); by default the
        session starts its own on first use."""
        self.options = options
        self.source = self.make_source(options)
        self.chromium_path = chromium_path
        self.pages = chromium.pages if chromium else pages
        self._chromium: Chromium | None = chromium
        self._owns_chromium = chromium is None

    def make_source(self, options: Any) -> Any:
        """The record source (a pack reusing this session overrides it, together with
        :meth:`prepare`, :meth:`page_size`, :meth:`_html_document` and
        :meth:`pdf_document`)."""
        from docfleet.packs.invoice.source import InvoiceSource

        return InvoiceSource(options)

    def page_size(self, record: Any) -> tuple[int, int]:
        """The page size of ``record`` in CSS px."""
        return page_size(record)

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

    def prepare(self, run_id: str, index: int) -> tuple[Invoice, str, list[PrintedField], int]:
        """Record and HTML of one document (no browser)."""
        invoice = self.source.generate(run_id, index)
        context = build_context(invoice)
        html, printed = render_html(ARCHETYPE_SPECS[invoice.archetype].template, context)
        return invoice, html, printed, len(context["pages"])

    def render(self, run_id: str, indexes: Sequence[int], total: int | None = None
               ) -> Iterator[RenderedDocument]:
        if self.options.format == "html":
            for index in indexes:
                invoice, html, printed, _ = self.prepare(run_id, index)
                yield self._html_document(invoice, html, printed)
            return
        chromium = self.chromium
        pending: deque[_Pending] = deque()
        try:
            for block in _blocks(indexes):
                wanted = set(block)
                first = block[0] - block[0] % BATCH
                batches: dict[tuple[int, int], list[tuple[int, Job, tuple[
                    Invoice, str, list[PrintedField], int] | None]]] = {}
                last = first + BATCH if total is None else min(first + BATCH, total)
                for index in range(first, max(last, block[-1] + 1)):
                    if index in wanted:
                        invoice, html, printed, pages = self.prepare(run_id, index)
                        width, height = self.page_size(invoice)
                        item: tuple[Invoice, str, list[PrintedField], int] | None = (
                            invoice, html, printed, pages)
                    else:  # a neighbour: laid out and printed, never kept
                        invoice, html, _, _ = self.prepare(run_id, index)
                        width, height = self.page_size(invoice)
                        item = None
                    batches.setdefault((width, height), []).append(
                        (index, Job(html, width, height, item is not None), item))
                fresh: list[_Pending] = []
                for members in batches.values():
                    if not any(item for _, _, item in members):
                        continue
                    future = chromium.submit_batch([job for _, job, _ in members])
                    fresh.extend(_Pending(*item, future, slot)
                                 for slot, (_, _, item) in enumerate(members) if item)
                pending.extend(sorted(fresh, key=lambda p: p.invoice.document))
                while len({id(p.future) for p in pending}) > self.pages:
                    yield self._pdf_document(run_id, pending.popleft())
            while pending:
                yield self._pdf_document(run_id, pending.popleft())
        finally:
            for left in pending:  # abandoned early: let in-flight pages finish quietly
                left.future.cancel()

    def _html_document(self, invoice: Invoice, html: str, printed: list[PrintedField]
                       ) -> RenderedDocument:
        return RenderedDocument(
            index=invoice.document,
            files={invoice.file: html.encode()},
            rows={
                "invoices": [invoice_row(invoice, None, None)],
                "line_items": line_rows(invoice, None),
                "fields": field_rows(invoice.document, printed, None),
                **{t: [] for t in _LAYOUT_TABLES},
                "pages": [],
            },
        )

    @traced("docfleet.render.pdf", lambda self, run_id, item: {
        "docfleet.document.index": item.invoice.document})
    def _pdf_document(self, run_id: str, item: _Pending) -> RenderedDocument:
        invoice = item.invoice
        result = item.future.result(timeout=RESULT_TIMEOUT)[item.slot]
        if not isinstance(result, Printed):
            raise RenderError(f"document {invoice.document} ({invoice.archetype}, "
                              f"{invoice.locale}) does not print: {result}")
        layout = result.layout
        if layout.faults:
            raise RenderError(f"document {invoice.document} ({invoice.archetype}, "
                              f"{invoice.locale}) lays out wrong: {'; '.join(layout.faults[:3])}")
        assert result.pdf is not None
        pdf = normalise_pdf(result.pdf, invoice.issue_date)
        check_pdf(pdf)
        if layout.pages != item.pages:
            raise RenderError(f"document {invoice.document}: expected {item.pages} page(s), "
                              f"laid out and printed {layout.pages}")
        size = media_box(pdf)
        carry = quad = None
        sizes = [size] * item.pages
        page_params: list[dict[str, Any]] | None = None
        if invoice.condition == "scan":
            from docfleet.render.scan import scan_page_params, scan_pdf

            pdf, params, sizes = scan_pdf(pdf, document_seed(run_id, invoice.document) ^ 0x5CA9)
            size = (round(sizes[0][0], 3), round(sizes[0][1], 3))
            page_params = [scan_page_params(params)] * len(sizes)

            def carry(page: int, box: Box) -> Box:
                w, h = sizes[page - 1]
                return params.transform_box(box, w, h)

            def quad(page: int, box: Box) -> tuple[float, ...]:
                w, h = sizes[page - 1]
                x0, y0, x1, y1 = box
                return tuple(round(v, 3) for x, y in ((x0, y0), (x1, y0), (x1, y1), (x0, y1))
                             for v in params.transform_point(x, y, w, h))
        elif invoice.condition != "clean":  # photo, fax, annotated (render.capture)
            from docfleet.render.capture import capture_pdf


            targets: list[list[Box]] = [[] for _ in range(item.pages)]
            for f in layout.fields:
                if f.field in self.markable:
                    targets[f.page - 1].append(f.box)
            pdf, capture, page_params = capture_pdf(
                pdf, invoice.condition, document_seed(run_id, invoice.document) ^ 0xCA97,
                JURISDICTIONS[invoice.locale].language, targets)
            sizes = capture.sizes
            size = sizes[0]
            carry, quad = capture.box, capture.quad

        return self.pdf_document(item, pdf, layout, size, carry, quad=quad, sizes=sizes,
                                 page_params=page_params)

    def pdf_document(self, item: _Pending, pdf: bytes, layout: Layout,
                     size: tuple[float, float], carry: BoxMap | None, *,
                     quad: QuadMap | None = None, sizes: list[tuple[float, float]] | None = None,
                     page_params: list[dict[str, Any]] | None = None) -> RenderedDocument:
        """The finished document: its final PDF, its layout, its first page's size in
        points, the box carry of its condition (None when clean), the corner carry
        (``quad``), every page's size and the capture parameters applied per page."""
        invoice = item.invoice
        sizes = sizes or [size] * item.pages
        _, height = self.page_size(invoice)
        spec = ARCHETYPE_SPECS[invoice.archetype]
        ranges = line_pages(invoice, spec, height)
        on_page = {k + 1: p + 1 for p, r in enumerate(ranges) for k in r}
        labels, links = label_rows(invoice.document, layout, carry)
        return RenderedDocument(
            index=invoice.document,
            files={invoice.file: pdf},
            rows={
                "invoices": [invoice_row(invoice, item.pages, size)],
                "line_items": line_rows(invoice, on_page),
                "fields": field_rows(invoice.document, item.printed, layout, carry, quad),
                "words": word_rows(invoice.document, layout, carry, quad),
                "lines": text_line_rows(invoice.document, layout, carry),
                "labels": labels,
                "links": links,
                "cells": cell_rows(invoice.document, layout, carry),
                "pages": page_rows(invoice.document, invoice.condition, sizes, page_params),
            },
        )

    def close(self) -> None:
        if self._chromium is not None and self._owns_chromium:
            self._chromium.close()
        self._chromium = None


def _blocks(indexes: Sequence[int]) -> Iterator[list[int]]:
    """``indexes`` in order, grouped by their block of :data:`BATCH`."""
    block: list[int] = []
    for index in indexes:
        if block and index // BATCH != block[0] // BATCH:
            yield block
            block = []
        block.append(index)
    if block:
        yield block


class InvoicePack:
    """Realistic invoices with exact golden truth (see the module docstring)."""

    name = "invoice"
    archetypes = ARCHETYPES

    def tables(self, options: Mapping[str, Any]) -> dict[str, pa.Schema]:
        from docfleet.packs.invoice.schema import TABLES  # pyarrow: not for the launcher

        return dict(TABLES)

    def describe(self) -> dict[str, Any]:
        """What the dataset card prints: column meanings and the tokenisation rule."""
        from docfleet.packs.invoice.schema import COLUMN_DOCS, TOKENISATION

        return {"columns": COLUMN_DOCS, "tokenisation": TOKENISATION}

    def validate_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        return parse_options(options).to_dict()

    def source(self, options: Mapping[str, Any]) -> InvoiceSource:
        from docfleet.packs.invoice.source import InvoiceSource

        return InvoiceSource(parse_options(options))

    def choose_archetype(self, record: Invoice) -> str:
        return record.archetype

    def template(self, archetype: str) -> str:
        return ARCHETYPE_SPECS[archetype].template

    def context(self, record: Invoice) -> dict[str, Any]:
        return build_context(record)

    def cost(self, options: Mapping[str, Any]) -> dict[str, float]:
        """Measured cost of one document for ``docfleet run --dry-run``: pages, bytes and
        CPU seconds of the whole process tree (Chromium included). Measured on the 2-core
        dev box: PDF, default mix (clean:4, scan:1), 24 documents, 1 task: 1.25 pages,
        92 kB, 0.19 CPU s per document; a scanned page costs ~2x a clean one
        (bench/results/documents.json ``stage_ms``); HTML: 0.015 CPU s, ~30 kB."""
        parsed = parse_options(options)
        if parsed.format == "html":
            return {"pages": 1.25, "bytes": 30_000.0, "cpu_seconds": 0.015}
        scan = parsed.conditions.get("scan", 0.0) / (sum(parsed.conditions.values()) or 1)
        # the measured mix is 20 % scanned; scale CPU and bytes by the scanned share
        factor = (1 + scan) / 1.2
        return {"pages": 1.25, "bytes": 92_000.0 * factor, "cpu_seconds": 0.19 * factor}

    def preflight(self, options: Mapping[str, Any]) -> None:
        """Before a run is planned: the catalogue it names is complete and, for PDFs, the
        Chromium of ``DOCFLEET_CHROMIUM_PATH`` is an executable. :class:`ConfigError`."""
        import os
        import shutil

        from docfleet.core.errors import ConfigError
        from docfleet.core.settings import load_settings

        parsed = parse_options(options)
        if parsed.catalogue:
            from docfleet.catalogue.artifact import Catalogue

            Catalogue.load(parsed.catalogue)
        if parsed.format == "pdf":
            path = load_settings().chromium_path
            found = shutil.which(path)
            if not found or not os.access(found, os.X_OK):
                raise ConfigError(f"no Chromium executable at {path}",
                                  "install Debian's chromium package or set "
                                  "DOCFLEET_CHROMIUM_PATH to it")

    def open(self, options: Mapping[str, Any]) -> InvoiceSession:
        from docfleet.core.settings import load_settings

        settings = load_settings()
        return InvoiceSession(parse_options(options), settings.chromium_path,
                              settings.render_pages)
