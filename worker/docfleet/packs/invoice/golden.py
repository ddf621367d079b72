"""Golden rows: the record, the fields the template printed and the boxes the browser
measured, joined into rows of the four tables (see :mod:`.schema`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from docfleet.packs.invoice.records import Invoice
from docfleet.packs.invoice.schema import PAGES
from docfleet.render.html import PrintedField
from docfleet.render.layout import Box, Layout

BoxMap = Callable[[int, Box], Box]
QuadMap = Callable[[int, Box], tuple[float, ...]]


def _quad(page: int, box: Box, quad: QuadMap | None) -> list[float]:
    """The corners TL, TR, BR, BL of the measured ``box`` carried by ``quad``."""
    if quad is not None:
        return list(quad(page, box))
    x0, y0, x1, y1 = box
    return [x0, y0, x1, y0, x1, y1, x0, y1]


def invoice_row(invoice: Invoice, pages: int | None, size_pt: tuple[float, float] | None
                ) -> dict[str, Any]:
    s, b = invoice.seller, invoice.buyer
    return {
        "document": invoice.document,
        "invoice_number": invoice.invoice_number,
        "archetype": invoice.archetype,
        "locale": invoice.locale,
        "condition": invoice.condition,
        "format": invoice.format,
        "file": invoice.file,
        "currency": invoice.currency,
        "issue_date": invoice.issue_date,
        "due_date": invoice.due_date,
        "po_number": invoice.po_number,
        "seller_name": s.name,
        "seller_address": "\n".join(s.address),
        "seller_tax_id": s.tax_id,
        "seller_phone": s.phone,
        "seller_email": s.email,
        "seller_iban": s.iban,
        "seller_bic": s.bic,
        "seller_account": s.account,
        "buyer_name": b.name,
        "buyer_address": "\n".join(b.address),
        "buyer_tax_id": b.tax_id,
        "product_line": invoice.product_line,
        "line_count": len(invoice.lines),
        "subtotal": invoice.subtotal,
        "discount_total": invoice.discount_total,
        "tax_total": invoice.tax_total,
        "total": invoice.total,
        "taxes": [{"rate": t.rate, "base": t.base, "amount": t.amount} for t in invoice.taxes],
        "page_count": pages,
        "page_width": size_pt[0] if size_pt else None,
        "page_height": size_pt[1] if size_pt else None,
        "document_type": invoice.document_type,
        "original_invoice": invoice.original_invoice,
        "credit_reason": invoice.reason,
        "fx_currency": invoice.fx_currency,
        "fx_rate": invoice.fx_rate,
        "fx_total": invoice.fx_total,
        "seller_registration": invoice.seller_registration,
    }


def line_rows(invoice: Invoice, line_pages: dict[int, int] | None) -> list[dict[str, Any]]:
    return [
        {
            "document": invoice.document,
            "line": item.line,
            "page": line_pages[item.line] if line_pages else None,
            "sku": item.sku,
            "description": item.description,
            "pricing": item.pricing,
            "quantity": item.quantity,
            "unit": item.unit,
            "unit_price": item.unit_price,
            "discount_percent": item.discount_percent,
            "discount_amount": item.discount_amount,
            "net_amount": item.net_amount,
            "tax_rate": item.tax_rate,
        }
        for item in invoice.lines
    ]


def field_rows(document: int, printed: list[PrintedField], layout: Layout | None,
               carry: BoxMap | None = None, quad: QuadMap | None = None
               ) -> list[dict[str, Any]]:
    """One row per printed occurrence. With a layout, each row gets its measured box
    (``carry`` maps it through the scan transform); a printed field the layout lacks, a
    measured field nobody printed, or a DOM text that differs raises ``ValueError``."""
    boxes = {}
    if layout is not None:
        boxes = {(f.field, f.line, f.occurrence): f for f in layout.fields}
        if len(boxes) != len(layout.fields) or set(boxes) != {p.key for p in printed}:
            missing = {p.key for p in printed} ^ set(boxes)
            raise ValueError(f"document {document}: printed and laid-out fields differ: "
                             f"{sorted(missing, key=str)[:5]}")
    rows = []
    for p in printed:
        page = box = corners = None
        if layout is not None:
            measured = boxes[p.key]
            if measured.text != p.text:
                raise ValueError(f"document {document}: field {p.name} prints "
                                 f"{measured.text!r}, golden {p.text!r}")
            page = measured.page
            box = carry(page, measured.box) if carry else measured.box
            corners = _quad(page, measured.box, quad)
        rows.append({
            "document": document, "field": p.name, "line": p.line, "occurrence": p.occurrence,
            "text": p.text, "value": p.value, "page": page,
            "x0": box[0] if box else None, "y0": box[1] if box else None,
            "x1": box[2] if box else None, "y1": box[3] if box else None,
            "quad": corners,
        })
    return rows


def word_rows(document: int, layout: Layout, carry: BoxMap | None = None,
              quad: QuadMap | None = None) -> list[dict[str, Any]]:
    rows = []
    counters: dict[int, int] = {}
    for w in layout.words:
        number = counters.get(w.page, 0)
        counters[w.page] = number + 1
        x0, y0, x1, y1 = carry(w.page, w.box) if carry else w.box
        rows.append({
            "document": document, "page": w.page, "word": number, "text": w.text,
            "x0": x0, "y0": y0, "x1": x1, "y1": y1,
            "field": w.field, "line": w.line, "occurrence": w.occurrence,
            "quad": _quad(w.page, w.box, quad),
        })
    return rows


def page_rows(document: int, condition: str, sizes: list[tuple[float, float]],
              params: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """One ``pages`` row per printed page: size in points, the condition and every
    capture parameter applied to that page (``params[i]``; all null for clean)."""
    rows = []
    for i, (w, h) in enumerate(sizes):
        row: dict[str, Any] = {"document": document, "page": i + 1, "width": w, "height": h,
                               "condition": condition}
        if params:
            row.update(params[i])
        for name in PAGES.names:
            row.setdefault(name, None)
        rows.append(row)
    return rows
