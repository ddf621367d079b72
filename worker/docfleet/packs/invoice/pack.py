"""The ``invoice`` pack: records → Jinja HTML → Chromium PDF (any capture condition) +
golden rows, on the SDK's session pipeline (:mod:`docfleet.packs.sdk.session`: batched
printing, capture, boxes carried into rows).

Printed field names (``fields.field``): invoice_number, issue_date, due_date, po_number,
seller_{name,address,tax_id,phone,email,iban,bic,account}, buyer_{name,address,tax_id},
per line (``line`` set): line_number, sku, description, quantity, unit, unit_price,
discount_percent, line_tax_rate, net_amount; per tax row (``line`` = tax row, 1-based):
tax_rate, tax_base, tax_amount; subtotal, discount_total, total; where printed:
original_invoice and reason (credit notes), fx_rate and fx_total (multi-currency),
seller_registration (the French SIRET), tagline, payment_terms and note (catalogue text).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from docfleet.packs.base import PackContext
from docfleet.packs.invoice.archetypes import ARCHETYPE_SPECS
from docfleet.packs.invoice.context import build_context, line_pages, page_size
from docfleet.packs.invoice.options import (
    ARCHETYPES,
    CONTENT_VERSIONS,
    InvoiceOptions,
    parse_options,
)
from docfleet.packs.invoice.records import Invoice
from docfleet.packs.sdk.catalogue import load_catalogue
from docfleet.packs.sdk.pack import TemplatedPack
from docfleet.packs.sdk.session import PrintedDocument, TemplatedSession
from docfleet.packs.sdk.templates import pack_templates

if TYPE_CHECKING:  # imported where used: `docfleet run` loads this pack only to check
    # options (no pyarrow, no Faker there)
    import pyarrow as pa

    from docfleet.packs.invoice.source import InvoiceSource
    from docfleet.render.browser import Chromium

#: printed values an annotator highlights, ticks or circles
MARKABLE = ("total", "due_date", "invoice_number", "tax_amount", "net_amount", "subtotal")


class InvoiceSteps:
    """The invoice's steps of the SDK pipeline."""

    #: ink truth and the visibility check from this content version on
    ink_content = 3
    #: photo recipe 2 (the same geometry for about half the CPU) from this version on
    photo_content = 4
    #: a language's own characters in fonts the PDF embeds from this version on
    #: (ja-JP: BIZ UDPGothic/UDPMincho, TrueType, instead of Type 3 drawings of Noto CJK)
    font_content = 5
    markable = MARKABLE

    @property
    def tables(self) -> dict[str, pa.Schema]:
        from docfleet.packs.invoice.schema import INVOICES, LINE_ITEMS  # lazy: start-up

        return {"invoices": INVOICES, "line_items": LINE_ITEMS}

    def source(self, options: InvoiceOptions) -> InvoiceSource:
        from docfleet.packs.invoice.source import InvoiceSource  # lazy: start-up

        return InvoiceSource(options)

    def page_size(self, record: Invoice) -> tuple[int, int]:
        return page_size(record)

    def template(self, record: Invoice) -> str:
        return ARCHETYPE_SPECS[record.archetype].template

    def context(self, record: Invoice) -> dict[str, Any]:
        return build_context(record)

    def rows(self, invoice: Invoice, printed: PrintedDocument | None
             ) -> dict[str, list[dict[str, Any]]]:
        from docfleet.packs.invoice.golden import invoice_row, line_rows  # lazy: start-up

        if printed is None:
            return {"invoices": [invoice_row(invoice, None, None)],
                    "line_items": line_rows(invoice, None)}
        _, height = page_size(invoice)
        ranges = line_pages(invoice, ARCHETYPE_SPECS[invoice.archetype], height)
        on_page = {k + 1: p + 1 for p, r in enumerate(ranges) for k in r}
        # the invoice records the first page's size after capture (3 decimals)
        return {"invoices": [invoice_row(invoice, printed.pages, printed.size)],
                "line_items": line_rows(invoice, on_page)}


STEPS = InvoiceSteps()


class InvoiceSession(TemplatedSession):
    """One task's invoice renderer (the SDK session with the invoice's steps)."""

    def __init__(self, options: InvoiceOptions, chromium_path: str, pages: int,
                 chromium: Chromium | None = None, log: logging.Logger | None = None
                 ) -> None:
        super().__init__(STEPS, pack_templates(__package__ or "docfleet.packs.invoice"),
                         options, chromium_path, pages, chromium, log)


class InvoicePack(TemplatedPack):
    """Realistic invoices with exact golden truth (see the module docstring)."""

    name = "invoice"
    archetypes = ARCHETYPES
    steps = STEPS
    max_lines = 200
    split = "split"
    content_versions = CONTENT_VERSIONS

    def parse(self, options: Mapping[str, Any]) -> InvoiceOptions:
        return parse_options(options)

    def content_tables(self, content: int) -> dict[str, pa.Schema]:
        """Content 2's ``invoices`` adds the account summary and instalment columns."""
        if content < 2:
            return {}
        from docfleet.packs.invoice.schema import INVOICES_V2  # lazy: start-up

        return {"invoices": INVOICES_V2}

    def describe(self) -> dict[str, Any]:
        """What the dataset card prints: column meanings and the tokenisation rule."""
        from docfleet.packs.invoice.schema import COLUMN_DOCS  # lazy: start-up
        from docfleet.packs.sdk.schema import TOKENISATION  # lazy: start-up

        return {"columns": COLUMN_DOCS, "tokenisation": TOKENISATION}

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

    def preflight(self, options: Mapping[str, Any], context: PackContext) -> None:
        """Before a run is planned: the catalogue it names is complete and, for PDFs, the
        Chromium of ``DOCFLEET_CHROMIUM_PATH`` is an executable. :class:`ConfigError`."""
        parsed = parse_options(options)
        if parsed.catalogue:
            load_catalogue(parsed.catalogue)
        super().preflight(options, context)

    def session(self, options: Mapping[str, Any], chromium_path: str, pages: int,
                chromium: Chromium | None = None, log: logging.Logger | None = None
                ) -> InvoiceSession:
        return InvoiceSession(parse_options(options), chromium_path, pages, chromium, log)
