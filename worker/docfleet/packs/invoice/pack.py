"""The ``invoice`` pack: records → Jinja HTML → Chromium PDF (clean or scan) + golden rows.

A session holds one Chromium (opened on first use, closed in :meth:`close`) and keeps
``Settings.render_pages`` documents in flight: while the browser lays out and prints
documents *i…i+k*, this thread builds the records and HTML of the next ones, and it
yields documents strictly in index order.

Printed field names (``fields.field``): invoice_number, issue_date, due_date, po_number,
seller_{name,address,tax_id,phone,email,iban,bic,account}, buyer_{name,address,tax_id},
per line (``line`` set): line_number, sku, description, quantity, unit, unit_price,
discount_percent, line_tax_rate, net_amount; per tax row (``line`` = tax row, 1-based):
tax_rate, tax_base, tax_amount; subtotal, discount_total, total.
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
from docfleet.packs.invoice.golden import field_rows, invoice_row, line_rows, word_rows
from docfleet.packs.invoice.options import ARCHETYPES, InvoiceOptions, parse_options
from docfleet.packs.invoice.records import Invoice
from docfleet.packs.invoice.schema import TABLES
from docfleet.packs.invoice.source import InvoiceSource
from docfleet.render.browser import Chromium, Printed, RenderError
from docfleet.render.html import PrintedField, render_html
from docfleet.render.layout import PX_TO_PT, Box
from docfleet.render.pdf import check_pdf, normalise_pdf
from docfleet.render.scan import scan_pdf
from docfleet.seeding import document_seed
from docfleet.telemetry import traced

_PAGE_COUNT = re.compile(rb"/Type /Pages\s*/Count (\d+)")
RESULT_TIMEOUT = 120.0


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
        carry = None
        if invoice.condition == "scan":
            pdf, params, sizes = scan_pdf(pdf, document_seed(run_id, invoice.document) ^ 0x5CA9)
            size = sizes[0]

            def carry(page: int, box: Box) -> Box:
                w, h = sizes[page - 1]
                return params.transform_box(box, w, h)

        spec = ARCHETYPE_SPECS[invoice.archetype]
        ranges = line_pages(invoice, spec, height)
        on_page = {k + 1: p + 1 for p, r in enumerate(ranges) for k in r}
        return RenderedDocument(
            index=invoice.document,
            files={invoice.file: pdf},
            rows={
                "invoices": [invoice_row(invoice, item.pages, size)],
                "line_items": line_rows(invoice, on_page),
                "fields": field_rows(invoice.document, item.printed, layout, carry),
                "words": word_rows(invoice.document, layout, carry),
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

        from docfleet.errors import ConfigError
        from docfleet.settings import load_settings

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
        from docfleet.settings import load_settings

        settings = load_settings()
        return InvoiceSession(parse_options(options), settings.chromium_path,
                              settings.render_pages)
