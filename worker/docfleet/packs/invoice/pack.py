"""The ``invoice`` pack: records → Jinja HTML → Chromium PDF (clean or scan) + golden rows.

A session holds one Chromium (opened on first use, closed in :meth:`close`) and keeps
``Settings.render_pages`` documents in flight: while the browser lays out and prints
documents *i…i+k*, this thread builds the records and HTML of the next ones, and it
yields documents strictly in index order.

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
from typing import Any

import pyarrow as pa

from docfleet.packs.base import RenderedDocument
from docfleet.packs.invoice.archetypes import ARCHETYPE_SPECS
from docfleet.packs.invoice.context import build_context, line_pages, page_size
from docfleet.packs.invoice.golden import (
    field_rows,
    invoice_row,
    line_rows,
    page_rows,
    word_rows,
)
from docfleet.packs.invoice.locales import JURISDICTIONS
from docfleet.packs.invoice.options import ARCHETYPES, InvoiceOptions, parse_options
from docfleet.packs.invoice.records import Invoice
from docfleet.packs.invoice.schema import TABLES
from docfleet.packs.invoice.source import InvoiceSource
from docfleet.render.browser import Chromium, Printed, RenderError
from docfleet.render.capture import CONDITIONS as CAPTURE_CONDITIONS
from docfleet.render.capture import capture_pdf
from docfleet.render.html import PrintedField, render_html
from docfleet.render.layout import PX_TO_PT, Box
from docfleet.render.pdf import check_pdf, normalise_pdf
from docfleet.render.scan import scan_page_params, scan_pdf
from docfleet.seeding import document_seed
from docfleet.telemetry import traced

_PAGE_COUNT = re.compile(rb"/Type /Pages\s*/Count (\d+)")
RESULT_TIMEOUT = 120.0
#: printed values an annotator highlights, ticks or circles
MARKABLE = ("total", "due_date", "invoice_number", "tax_amount", "net_amount", "subtotal")


@dataclass
class _Pending:
    invoice: Invoice
    html: str
    printed: list[PrintedField]
    pages: int
    future: Future[Printed]


class InvoiceSession:
    """One task's renderer. ``render`` yields documents in index order."""

    def __init__(self, options: InvoiceOptions, chromium_path: str, pages: int,
                 chromium: Chromium | None = None) -> None:
        """``chromium``: a browser to borrow (not closed by :meth:`close`); by default the
        session starts its own on first use."""
        self.options = options
        self.source = InvoiceSource(options)
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

    def prepare(self, run_id: str, index: int) -> tuple[Invoice, str, list[PrintedField], int]:
        """Record and HTML of one document (no browser)."""
        invoice = self.source.generate(run_id, index)
        context = build_context(invoice)
        html, printed = render_html(ARCHETYPE_SPECS[invoice.archetype].template, context)
        return invoice, html, printed, len(context["pages"])

    def render(self, run_id: str, indexes: Sequence[int]) -> Iterator[RenderedDocument]:
        if self.options.format == "html":
            for index in indexes:
                invoice, html, printed, _ = self.prepare(run_id, index)
                yield self._html_document(invoice, html, printed)
            return
        chromium = self.chromium
        pending: deque[_Pending] = deque()
        try:
            for index in indexes:
                invoice, html, printed, pages = self.prepare(run_id, index)
                width, height = page_size(invoice)
                future = chromium.submit(html, width, height)
                pending.append(_Pending(invoice, html, printed, pages, future))
                if len(pending) >= self.pages:
                    yield self._pdf_document(run_id, pending.popleft())
            while pending:
                yield self._pdf_document(run_id, pending.popleft())
        finally:
            for item in pending:  # abandoned early: let in-flight pages finish quietly
                item.future.cancel()

    def _html_document(self, invoice: Invoice, html: str, printed: list[PrintedField]
                       ) -> RenderedDocument:
        return RenderedDocument(
            index=invoice.document,
            files={invoice.file: html.encode()},
            rows={
                "invoices": [invoice_row(invoice, None, None)],
                "line_items": line_rows(invoice, None),
                "fields": field_rows(invoice.document, printed, None),
                "words": [],
                "pages": [],
            },
        )

    @traced("docfleet.render.pdf", lambda self, run_id, item: {
        "docfleet.document.index": item.invoice.document})
    def _pdf_document(self, run_id: str, item: _Pending) -> RenderedDocument:
        invoice = item.invoice
        result = item.future.result(timeout=RESULT_TIMEOUT)
        layout = result.layout
        if layout.faults:
            raise RenderError(f"document {invoice.document} ({invoice.archetype}, "
                              f"{invoice.locale}) lays out wrong: {'; '.join(layout.faults[:3])}")
        assert result.pdf is not None
        pdf = normalise_pdf(result.pdf, invoice.issue_date)
        check_pdf(pdf)
        count = _PAGE_COUNT.search(pdf)
        if layout.pages != item.pages or count is None or int(count.group(1)) != item.pages:
            raise RenderError(f"document {invoice.document}: expected {item.pages} page(s), "
                              f"laid out {layout.pages}, printed "
                              f"{count.group(1) if count else '?'}")
        width, height = page_size(invoice)
        size = (width * PX_TO_PT, height * PX_TO_PT)
        carry = quad = None
        sizes = [size] * item.pages
        page_params: list[dict[str, Any]] | None = None
        if invoice.condition == "scan":
            pdf, params, sizes = scan_pdf(pdf, document_seed(run_id, invoice.document) ^ 0x5CA9)
            size = sizes[0]
            page_params = [scan_page_params(params)] * len(sizes)

            def carry(page: int, box: Box) -> Box:
                w, h = sizes[page - 1]
                return params.transform_box(box, w, h)

            def quad(page: int, box: Box) -> tuple[float, ...]:
                w, h = sizes[page - 1]
                x0, y0, x1, y1 = box
                return tuple(round(v, 3) for x, y in ((x0, y0), (x1, y0), (x1, y1), (x0, y1))
                             for v in params.transform_point(x, y, w, h))
        elif invoice.condition in CAPTURE_CONDITIONS:
            targets: list[list[Box]] = [[] for _ in range(item.pages)]
            for f in layout.fields:
                if f.field in MARKABLE:
                    targets[f.page - 1].append(f.box)
            pdf, capture, page_params = capture_pdf(
                pdf, invoice.condition, document_seed(run_id, invoice.document) ^ 0xCA97,
                JURISDICTIONS[invoice.locale].language, targets)
            sizes = capture.sizes
            size = sizes[0]
            carry, quad = capture.box, capture.quad

        spec = ARCHETYPE_SPECS[invoice.archetype]
        ranges = line_pages(invoice, spec, height)
        on_page = {k + 1: p + 1 for p, r in enumerate(ranges) for k in r}
        return RenderedDocument(
            index=invoice.document,
            files={invoice.file: pdf},
            rows={
                "invoices": [invoice_row(invoice, item.pages, size)],
                "line_items": line_rows(invoice, on_page),
                "fields": field_rows(invoice.document, item.printed, layout, carry, quad),
                "words": word_rows(invoice.document, layout, carry, quad),
                "pages": page_rows(invoice.document, invoice.condition, sizes, page_params),
            },
        )

    def close(self) -> None:
        if self._chromium is not None and self._owns_chromium:
            self._chromium.close()
        self._chromium = None


class InvoicePack:
    """Realistic invoices with exact golden truth (see the module docstring)."""

    name = "invoice"
    archetypes = ARCHETYPES

    def tables(self, options: Mapping[str, Any]) -> dict[str, pa.Schema]:
        return dict(TABLES)

    def validate_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        return parse_options(options).to_dict()

    def source(self, options: Mapping[str, Any]) -> InvoiceSource:
        return InvoiceSource(parse_options(options))

    def choose_archetype(self, record: Invoice) -> str:
        return record.archetype

    def template(self, archetype: str) -> str:
        return ARCHETYPE_SPECS[archetype].template

    def context(self, record: Invoice) -> dict[str, Any]:
        return build_context(record)

    def open(self, options: Mapping[str, Any]) -> InvoiceSession:
        from docfleet.settings import load_settings

        settings = load_settings()
        return InvoiceSession(parse_options(options), settings.chromium_path,
                              settings.render_pages)
