"""The ``receipt`` pack: till receipts on one continuous narrow page (80 or 58 mm wide,
exactly as tall as the printed rows), CORD-like items with modifiers and discounts, taxes,
payment (cash with change, or card). Archetypes: thermal, compact, bistro."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from docfleet.packs.receipt.context import build_context, item_rows, page_height
from docfleet.packs.receipt.layouts import RECEIPT_LAYOUTS
from docfleet.packs.receipt.records import Receipt
from docfleet.packs.receipt.schema import RECEIPTS_V2, TABLES
from docfleet.packs.receipt.source import ReceiptSource
from docfleet.packs.sdk.locales import JURISDICTIONS
from docfleet.packs.sdk.options import PackOptions
from docfleet.packs.sdk.pack import TemplatedPack
from docfleet.packs.sdk.rows import document_meta
from docfleet.packs.sdk.schema import with_split
from docfleet.packs.sdk.session import PrintedDocument
from docfleet.packs.sdk.splits import document_split

#: a continuous page stays under Chromium's/PDF's page height limit (200 in)
MAX_ITEMS = 60


class ReceiptSteps:
    tables: dict[str, pa.Schema] = TABLES
    #: ink truth and the visibility check from this content version on
    ink_content = 3
    #: photo recipe 2 (the same geometry for about half the CPU) from this version on
    photo_content = 4
    #: a language's own characters in fonts the PDF embeds from this version on
    #: (ja-JP: BIZ UDPGothic/UDPMincho, TrueType, instead of Type 3 drawings of Noto CJK)
    font_content = 5
    #: printed values an annotator highlights, ticks or circles
    markable = ("total", "subtotal", "tax_amount", "receipt_number")

    def source(self, options: PackOptions) -> ReceiptSource:
        return ReceiptSource(options)

    def page_size(self, record: Receipt) -> tuple[int, int]:
        return RECEIPT_LAYOUTS[record.archetype].width, page_height(record)

    def template(self, record: Receipt) -> str:
        return f"{record.archetype}.html.j2"

    def context(self, record: Receipt) -> dict[str, Any]:
        return build_context(record)

    def rows(self, r: Receipt, printed: PrintedDocument | None
             ) -> dict[str, list[dict[str, Any]]]:
        s = r.store
        pages = printed.pages if printed else None
        head = {
            **document_meta(r, pages, printed.media_box if printed else None),
            "receipt_number": r.receipt_number, "issue_date": r.issue_date,
            "issue_time": r.issue_time, "store_name": s.name,
            "store_address": "\n".join(s.address), "store_phone": s.phone,
            "store_tax_id": s.tax_id, "store_kind": r.store_kind, "till": r.till,
            "cashier": r.cashier, "item_count": r.item_count, "subtotal": r.subtotal,
            "discount_total": r.discount_total, "tax_inclusive": r.tax_inclusive,
            "tax_total": r.tax_total, "total": r.total,
            "taxes": [{"rate": t.rate, "base": t.base, "amount": t.amount} for t in r.taxes],
            "payment_method": r.payment_method, "tendered": r.tendered, "change": r.change,
            "card_last4": r.card_last4,
        }
        if r.content >= 2:
            lo = r.loyalty
            head.update(rounding=r.rounding, amount_due=r.amount_due,
                        printed_at=r.printed_at, return_by=r.return_by,
                        loyalty_points=lo.points if lo else None,
                        loyalty_balance=lo.balance if lo else None)
        if r.content >= 3:  # every pack's document table holds its split (issue 28)
            head["split"] = document_split(r.document)
        _, tree = item_rows(r, JURISDICTIONS[r.locale], RECEIPT_LAYOUTS[r.archetype])
        items = [{
            "document": r.document, "row": t["row"], "item": t["item"], "kind": t["kind"],
            "name": t["name"], "quantity": t["quantity"], "unit_price": t["unit_price"],
            "discount_percent": t.get("percent"), "amount": t["amount"],
            "tax_rate": t["tax_rate"], "page": 1 if pages else None,
        } for t in tree]
        return {"receipts": [head], "receipt_items": items}


class ReceiptPack(TemplatedPack):
    """Till receipts with exact golden truth (see the module docstring)."""

    name = "receipt"
    archetypes = tuple(RECEIPT_LAYOUTS)
    steps = ReceiptSteps()
    max_lines = MAX_ITEMS
    #: 1: one convention; 2: per-document styles (:mod:`.variation`); 3: ``split``;
    #: 4: photo recipe 2; 5: ja-JP in fonts the PDF embeds
    content_versions = (1, 2, 3, 4, 5)
    split = "split"

    def content_tables(self, content: int) -> dict[str, pa.Schema]:
        if content >= 3:
            return {"receipts": with_split(RECEIPTS_V2)}
        return {"receipts": RECEIPTS_V2} if content >= 2 else {}
