"""The ``purchase_order`` pack: a buyer's order to a supplier: ship-to address, Incoterms
delivery terms, requested dates per line and for the order, agreed prices, taxes; one or
more A4/Letter pages. Archetypes: standard, grid, banner."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from docfleet.packs.purchase_order.context import PO_ARCHETYPES, build_context, page_size
from docfleet.packs.purchase_order.records import PurchaseOrder
from docfleet.packs.purchase_order.schema import TABLES, TABLES_V3
from docfleet.packs.purchase_order.source import PurchaseOrderSource
from docfleet.packs.sdk.options import PackOptions
from docfleet.packs.sdk.pack import TemplatedPack
from docfleet.packs.sdk.rows import document_meta
from docfleet.packs.sdk.schema import with_split
from docfleet.packs.sdk.session import PrintedDocument
from docfleet.packs.sdk.splits import document_split

MAX_LINES = 200


class PurchaseOrderSteps:
    tables: dict[str, pa.Schema] = TABLES
    #: ink truth and the visibility check from this content version on
    ink_content = 3
    #: photo recipe 2 (the same geometry for about half the CPU) from this version on
    photo_content = 4
    #: a language's own characters in fonts the PDF embeds from this version on
    #: (ja-JP: BIZ UDPGothic/UDPMincho, TrueType, instead of Type 3 drawings of Noto CJK)
    font_content = 6
    #: printed values an annotator highlights, ticks or circles
    markable = ("total", "subtotal", "tax_amount", "po_number", "delivery_date")

    def source(self, options: PackOptions) -> PurchaseOrderSource:
        return PurchaseOrderSource(options)

    def page_size(self, record: PurchaseOrder) -> tuple[int, int]:
        return page_size(record)

    def template(self, record: PurchaseOrder) -> str:
        return PO_ARCHETYPES[record.archetype].template

    def context(self, record: PurchaseOrder) -> dict[str, Any]:
        return build_context(record)

    def rows(self, po: PurchaseOrder, printed: PrintedDocument | None
             ) -> dict[str, list[dict[str, Any]]]:
        b, s = po.buyer, po.supplier
        pages = printed.pages if printed else None
        line_pages = printed.line_pages("description") if printed else None
        head = {
            **document_meta(po, pages, printed.media_box if printed else None),
            "po_number": po.po_number, "issue_date": po.issue_date,
            "buyer_name": b.name, "buyer_address": "\n".join(b.address),
            "buyer_tax_id": b.tax_id, "buyer_phone": b.phone, "buyer_email": b.email,
            "supplier_name": s.name, "supplier_address": "\n".join(s.address),
            "supplier_tax_id": s.tax_id, "supplier_number": po.supplier_number,
            "ship_to": "\n".join(po.ship_to), "contact": po.contact, "incoterm": po.incoterm,
            "delivery_place": po.delivery_place, "delivery_date": po.delivery_date,
            "payment_days": po.payment_days, "product_line": po.product_line,
            "line_count": len(po.lines), "subtotal": po.subtotal, "tax_total": po.tax_total,
            "total": po.total,
            "taxes": [{"rate": t.rate, "base": t.base, "amount": t.amount} for t in po.taxes],
        }
        if po.content >= 3:  # every pack's document table holds its split (issue 28)
            head["split"] = document_split(po.document)
        lines = [{
            "document": po.document, "line": i.line,
            "page": line_pages[i.line] if line_pages else None, "sku": i.sku,
            "description": i.description, "quantity": i.quantity, "unit": i.unit,
            "unit_price": i.unit_price, "amount": i.amount, "tax_rate": i.tax_rate,
            "requested_date": i.requested_date,
        } for i in po.lines]
        if po.extras is not None:  # content 3: null what the order does not print
            shown = po.extras.shown
            for key, names in (("incoterm", ("incoterm", "delivery_place")),
                               ("supplier_number", ("supplier_number",)),
                               ("buyer_tax_id", ("buyer_tax_id",)),
                               ("supplier_tax_id", ("supplier_tax_id",))):
                if key not in shown:
                    head.update(dict.fromkeys(names))
            head.update(po.extras.amounts())
            if "requested_date" not in shown:
                for row in lines:
                    row["requested_date"] = None
        return {"purchase_orders": [head], "order_lines": lines}


class PurchaseOrderPack(TemplatedPack):
    """Purchase orders with exact golden truth (see the module docstring)."""

    name = "purchase_order"
    archetypes = tuple(PO_ARCHETYPES)
    steps = PurchaseOrderSteps()
    max_lines = MAX_LINES
    #: 1: one convention; 2: each document's words, money and dates drawn; 3: optional
    #: parts on some orders only, look-alike amounts (extras.py), ``split`` and the order
    #: lines' ``cells``; 4: photo recipe 2; 5: a Japanese order's prices in yen once
    #: (1-4 scaled the drawn yen price by 150 again: totals ~150x too large); 6: ja-JP in
    #: fonts the PDF embeds
    content_versions = (1, 2, 3, 4, 5, 6)
    split = "split"

    def content_tables(self, content: int) -> dict[str, pa.Schema]:
        if content < 3:
            return {}
        return {**TABLES_V3, "purchase_orders": with_split(TABLES_V3["purchase_orders"])}
