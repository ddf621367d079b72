"""The invoice's own golden rows: ``invoices`` (one per document) and ``line_items`` (see
:mod:`.schema`); the page tables' rows are the SDK's (:mod:`docfleet.packs.sdk.rows`)."""

from __future__ import annotations

from typing import Any

from docfleet.packs.invoice.records import Invoice


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
        **({"previous_balance": invoice.previous_balance,
            "payments_received": invoice.payments_received,
            "account_balance": invoice.account_balance, "instalment": invoice.instalment,
            "instalments": invoice.instalments, "contract_value": invoice.contract_value}
           if invoice.content >= 2 else {}),
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
