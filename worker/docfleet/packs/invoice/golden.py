"""Golden rows: the record, the fields the template printed and the boxes the browser
measured, joined into rows of the golden tables (see :mod:`.schema`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from docfleet.packs.invoice.records import Invoice
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
        "split": invoice.split,
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
        lines: list[dict[str, float]] | None = None
        if layout is not None:
            measured = boxes[p.key]
            if measured.text != p.text:
                raise ValueError(f"document {document}: field {p.name} prints "
                                 f"{measured.text!r}, golden {p.text!r}")
            page = measured.page
            box = carry(page, measured.box) if carry else measured.box
            lines = _line_boxes(page, measured.lines or (measured.box,), carry)
            corners = _quad(page, measured.box, quad)
        rows.append({
            "document": document, "field": p.name, "line": p.line, "occurrence": p.occurrence,
            "text": p.text, "value": p.value, "page": page,
            "x0": box[0] if box else None, "y0": box[1] if box else None,
            "x1": box[2] if box else None, "y1": box[3] if box else None,
            "line_boxes": lines,
            "quad": corners,
        })
    return rows


def _line_boxes(page: int, boxes: tuple[Box, ...], carry: BoxMap | None
                ) -> list[dict[str, float]]:
    out = []
    for b in boxes:
        x0, y0, x1, y1 = carry(page, b) if carry else b
        out.append({"x0": x0, "y0": y0, "x1": x1, "y1": y1})
    return out


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
            "text_line": w.text_line, "label_id": w.label,
            "quad": _quad(w.page, w.box, quad),
        })
    return rows


def text_line_rows(document: int, layout: Layout, carry: BoxMap | None = None
                   ) -> list[dict[str, Any]]:
    """One row per printed line of text (see ``lines`` in :mod:`.schema`)."""
    rows = []
    for t in layout.lines:
        x0, y0, x1, y1 = carry(t.page, t.box) if carry else t.box
        rows.append({"document": document, "page": t.page, "text_line": t.number,
                     "text": t.text, "x0": x0, "y0": y0, "x1": x1, "y1": y1,
                     "first_word": t.first_word, "words": t.words})
    return rows


def label_rows(document: int, layout: Layout, carry: BoxMap | None = None
               ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(labels, links): every printed key or heading, and one link per value a key
    labels. A link always names a printed field occurrence (else ``ValueError``)."""
    printed = {(f.field, f.line, f.occurrence) for f in layout.fields}
    labels, links = [], []
    for lab in layout.labels:
        x0, y0, x1, y1 = carry(lab.page, lab.box) if carry else lab.box
        labels.append({
            "document": document, "label_id": lab.id, "kind": lab.kind, "name": lab.name,
            "scope": lab.scope, "text": lab.text, "page": lab.page,
            "x0": x0, "y0": y0, "x1": x1, "y1": y1,
            "line_boxes": _line_boxes(lab.page, lab.lines or (lab.box,), carry),
        })
        for k in lab.links:
            if (k.field, k.line, k.occurrence) not in printed:
                raise ValueError(f"document {document}: label {lab.name!r} links to "
                                 f"{k.field} (line {k.line}), which is not printed")
            links.append({"document": document, "label_id": lab.id, "page": lab.page,
                          "field": k.field, "line": k.line, "occurrence": k.occurrence})
    return labels, links


def cell_rows(document: int, layout: Layout, carry: BoxMap | None = None
              ) -> list[dict[str, Any]]:
    """One row per table cell (``cells`` in :mod:`.schema`), numbered in document order."""
    rows = []
    for number, c in enumerate(layout.cells):
        x0, y0, x1, y1 = carry(c.page, c.box) if carry else c.box
        rows.append({"document": document, "page": c.page, "table": c.table,
                     "table_index": c.index, "cell": number, "row": c.row, "column": c.column,
                     "column_span": c.span, "header": c.header, "text": c.text,
                     "x0": x0, "y0": y0, "x1": x1, "y1": y1, "field": c.field,
                     "line": c.line})
    return rows


def _page_columns() -> list[str]:
    from docfleet.packs.invoice.schema import PAGES  # pyarrow: loaded by the task, not here

    return PAGES.names


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
        for name in _page_columns():
            row.setdefault(name, None)
        rows.append(row)
    return rows
