"""docfleet's printed fields as DocILE's classes (Šimsa et al., ICDAR 2023: the KILE
and LIR field types of ``rossumai/docile``), per pack.

A field with a class becomes a DocILE extraction of that ``fieldtype``: a KILE field
(document level; DocILE's ``tax_detail_*`` are KILE, one per printed tax row) or an LIR
field (``line_item_*``, with the printed row as ``line_item_id``). Every other printed
field is kept under its docfleet name as an extra (:func:`docile_class` returns
``None``), so DocILE's evaluator scores only its own taxonomy. Receipts print gross or
net unit prices and amounts by their ``tax_inclusive`` column.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: DocILE's KILE field types
KILE_CLASSES = (
    "account_num", "amount_due", "amount_paid", "amount_total_gross", "amount_total_net",
    "amount_total_tax", "bank_num", "bic", "currency_code_amount_due",
    "customer_billing_address", "customer_billing_name", "customer_delivery_address",
    "customer_delivery_name", "customer_id", "customer_order_id", "customer_other_address",
    "customer_other_name", "customer_registration_id", "customer_tax_id", "date_due",
    "date_issue", "document_id", "iban", "order_id", "payment_reference", "payment_terms",
    "tax_detail_gross", "tax_detail_net", "tax_detail_rate", "tax_detail_tax",
    "vendor_address", "vendor_email", "vendor_name", "vendor_order_id",
    "vendor_registration_id", "vendor_tax_id",
)
#: DocILE's LIR (line item) field types
LIR_CLASSES = (
    "line_item_amount_gross", "line_item_amount_net", "line_item_code",
    "line_item_currency", "line_item_date", "line_item_description",
    "line_item_discount_amount", "line_item_discount_rate", "line_item_hts_number",
    "line_item_order_id", "line_item_person_name", "line_item_position",
    "line_item_quantity", "line_item_tax", "line_item_tax_rate",
    "line_item_unit_price_gross", "line_item_unit_price_net",
    "line_item_units_of_measure", "line_item_weight",
)

_TAX_ROWS = {"tax_rate": "tax_detail_rate", "tax_base": "tax_detail_net",
             "tax_amount": "tax_detail_tax", "tax_gross": "tax_detail_gross"}

#: pack → docfleet field → DocILE class ("{gn}" is gross or net by the document)
CLASSES: dict[str, dict[str, str]] = {
    "invoice": {
        "seller_name": "vendor_name", "seller_address": "vendor_address",
        "seller_tax_id": "vendor_tax_id", "seller_email": "vendor_email",
        "seller_iban": "iban", "seller_bic": "bic", "seller_account": "account_num",
        "buyer_name": "customer_billing_name", "buyer_address": "customer_billing_address",
        "buyer_tax_id": "customer_tax_id", "invoice_number": "document_id",
        "issue_date": "date_issue", "due_date": "date_due", "po_number": "order_id",
        "subtotal": "amount_total_net", "tax_total": "amount_total_tax",
        "total": "amount_total_gross", **_TAX_ROWS,
        "line_number": "line_item_position", "sku": "line_item_code",
        "description": "line_item_description", "quantity": "line_item_quantity",
        "unit": "line_item_units_of_measure", "unit_price": "line_item_unit_price_net",
        "discount_percent": "line_item_discount_rate",
        "line_tax_rate": "line_item_tax_rate", "net_amount": "line_item_amount_net",
    },
    "receipt": {
        "store_name": "vendor_name", "store_address": "vendor_address",
        "store_tax_id": "vendor_tax_id", "receipt_number": "document_id",
        "issue_date": "date_issue", "total": "amount_total_gross",
        "tax_total": "amount_total_tax", "amount_due": "amount_due",
        "tendered": "amount_paid", **_TAX_ROWS,
        "item_name": "line_item_description", "item_quantity": "line_item_quantity",
        "item_unit_price": "line_item_unit_price_{gn}", "item_amount": "line_item_amount_{gn}",
        "discount_percent": "line_item_discount_rate",
        "discount_amount": "line_item_discount_amount",
    },
    "purchase_order": {
        "supplier_name": "vendor_name", "supplier_address": "vendor_address",
        "supplier_tax_id": "vendor_tax_id", "buyer_name": "customer_billing_name",
        "buyer_address": "customer_billing_address", "buyer_tax_id": "customer_tax_id",
        "ship_to": "customer_delivery_address", "po_number": "document_id",
        "issue_date": "date_issue", "payment_terms": "payment_terms",
        "subtotal": "amount_total_net", "tax_total": "amount_total_tax",
        "total": "amount_total_gross", **_TAX_ROWS,
        "line_number": "line_item_position", "sku": "line_item_code",
        "description": "line_item_description", "quantity": "line_item_quantity",
        "unit": "line_item_units_of_measure", "unit_price": "line_item_unit_price_net",
        "line_tax_rate": "line_item_tax_rate", "amount": "line_item_amount_net",
        "requested_date": "line_item_date",
    },
    "bank_statement": {
        "bank_name": "vendor_name", "bank_address": "vendor_address",
        "holder_name": "customer_billing_name", "holder_address": "customer_billing_address",
        "iban": "iban", "bic": "bic", "account_number": "account_num",
        "routing_number": "bank_num", "statement_number": "document_id",
        "issue_date": "date_issue",
        "booking_date": "line_item_date", "description": "line_item_description",
        "amount": "line_item_amount_gross", "debit": "line_item_amount_gross",
        "credit": "line_item_amount_gross",
    },
}

#: DocILE's ``document_type`` of each pack
DOCUMENT_TYPES = {"invoice": "tax_invoice", "receipt": "receipt",
                  "purchase_order": "purchase_order", "bank_statement": "bank_statement"}


def docile_class(pack: str, field: str, doc: Mapping[str, Any]) -> str | None:
    """DocILE's class of ``pack``'s printed ``field`` on document ``doc`` (its document
    table row), or ``None``: no DocILE class (an extra)."""
    cls = CLASSES.get(pack, {}).get(field)
    if cls is None:
        return None
    return cls.replace("{gn}", "gross" if doc.get("tax_inclusive", True) else "net")


def document_type(pack: str, doc: Mapping[str, Any]) -> str:
    """DocILE's ``document_type`` of document ``doc`` (an invoice's credit notes are
    ``credit_note``)."""
    if doc.get("document_type") == "credit_note":
        return "credit_note"
    return DOCUMENT_TYPES.get(pack, pack)


def is_line_item(cls: str) -> bool:
    """Whether DocILE class ``cls`` is an LIR (line item) field type."""
    return cls.startswith("line_item_")
