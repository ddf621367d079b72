"""The invoice pack's golden tables: ``invoices`` (one row per document) and
``line_items``, then the shared page tables every templated pack writes
(:mod:`docfleet.packs.sdk.schema`: ``fields``, ``words``, ``lines``, ``labels``,
``links``, ``cells``, ``pages``, with its conventions: boxes in PDF points from the
top-left corner, exact printed text, canonical values). Names and schemas are a contract:
export and scoring read them.

- Money is exact: ``decimal128(18, 2)`` in the invoice's currency (never float).
- Page sizes are in ``invoices.page_width`` / ``page_height`` and equal the PDF MediaBox.
- Field names are listed in :mod:`docfleet.packs.invoice.pack`; a value that is not
  printed (no PO number, no discount) has no ``fields`` row.
"""

from __future__ import annotations

import pyarrow as pa

from docfleet.packs.sdk.schema import (
    LAYOUT_COLUMN_DOCS,
    LAYOUT_TABLES,
    MONEY,
    PERCENT,
    QUANTITY,
    TAX_LINE,
    UNIT_PRICE,
)

INVOICES = pa.schema(
    [
        pa.field("document", pa.int64(), nullable=False),
        pa.field("invoice_number", pa.string(), nullable=False),
        pa.field("archetype", pa.string(), nullable=False),
        pa.field("locale", pa.string(), nullable=False),
        pa.field("condition", pa.string(), nullable=False),  # clean | scan
        pa.field("format", pa.string(), nullable=False),  # pdf | html
        pa.field("file", pa.string(), nullable=False),  # name under documents/
        pa.field("currency", pa.string(), nullable=False),  # ISO 4217
        pa.field("issue_date", pa.date32(), nullable=False),
        pa.field("due_date", pa.date32(), nullable=False),
        pa.field("po_number", pa.string()),
        pa.field("seller_name", pa.string(), nullable=False),
        pa.field("seller_address", pa.string(), nullable=False),  # lines joined by "\n"
        pa.field("seller_tax_id", pa.string(), nullable=False),
        pa.field("seller_phone", pa.string(), nullable=False),
        pa.field("seller_email", pa.string(), nullable=False),
        pa.field("seller_iban", pa.string()),
        pa.field("seller_bic", pa.string()),
        pa.field("seller_account", pa.string()),  # en-US: account/routing text
        pa.field("buyer_name", pa.string(), nullable=False),
        pa.field("buyer_address", pa.string(), nullable=False),
        pa.field("buyer_tax_id", pa.string()),
        pa.field("product_line", pa.string(), nullable=False),
        pa.field("line_count", pa.int32(), nullable=False),
        pa.field("subtotal", MONEY, nullable=False),  # sum of line net amounts
        pa.field("discount_total", MONEY, nullable=False),  # sum of line discounts
        pa.field("tax_total", MONEY, nullable=False),
        pa.field("total", MONEY, nullable=False),  # subtotal + tax_total
        pa.field("taxes", pa.list_(TAX_LINE), nullable=False),  # one per printed rate
        pa.field("page_count", pa.int32()),  # null in html format
        pa.field("page_width", pa.float64()),  # points; null in html format
        pa.field("page_height", pa.float64()),
        pa.field("split", pa.string(), nullable=False),  # train | validation | test
        pa.field("document_type", pa.string(), nullable=False),  # invoice | credit_note
        pa.field("original_invoice", pa.string()),  # a credit note's corrected invoice
        pa.field("credit_reason", pa.string()),  # a credit note's printed reason
        #: multi-currency: the total converted into fx_currency at fx_rate (printed)
        pa.field("fx_currency", pa.string()),
        pa.field("fx_rate", pa.decimal128(18, 6)),
        pa.field("fx_total", MONEY),
        pa.field("seller_registration", pa.string()),  # fr-FR: SIRET
    ]
)

#: content version 2: the account summary printed under the total (null without one)
INVOICES_V2 = pa.schema([
    *INVOICES,
    pa.field("previous_balance", MONEY),
    pa.field("payments_received", MONEY),
    pa.field("account_balance", MONEY),  # previous_balance - payments_received + total
    pa.field("instalment", pa.int32()),
    pa.field("instalments", pa.int32()),
    pa.field("contract_value", MONEY),  # total x instalments
])

LINE_ITEMS = pa.schema(
    [
        pa.field("document", pa.int64(), nullable=False),
        pa.field("line", pa.int32(), nullable=False),  # 1-based printed row number
        pa.field("page", pa.int32()),  # page the row is printed on; null in html
        pa.field("sku", pa.string(), nullable=False),
        pa.field("description", pa.string(), nullable=False),
        pa.field("pricing", pa.string(), nullable=False),  # flat | tiered | metered
        pa.field("quantity", QUANTITY, nullable=False),
        pa.field("unit", pa.string(), nullable=False),
        pa.field("unit_price", UNIT_PRICE, nullable=False),
        pa.field("discount_percent", PERCENT, nullable=False),
        pa.field("discount_amount", MONEY, nullable=False),
        pa.field("net_amount", MONEY, nullable=False),  # round(qty*price) - discount
        pa.field("tax_rate", PERCENT, nullable=False),
    ]
)

TABLES: dict[str, pa.Schema] = {"invoices": INVOICES, "line_items": LINE_ITEMS,
                                **LAYOUT_TABLES}

#: What every column means, per table (the dataset card prints it; docs/schema.md is the
#: long form). A test checks that every column of :data:`TABLES` is described.
COLUMN_DOCS: dict[str, dict[str, str]] = {
    "invoices": {
        "document": "document index (0 … total-1); joins every table",
        "invoice_number": "the invoice number as printed",
        "archetype": "layout/template (classic, sidebar, receipt, boxed, …)",
        "locale": "BCP 47 locale: language, formats, currency, tax regime",
        "condition": "capture condition: clean (vector PDF), scan, photo, fax or annotated "
                     "(image PDF)",
        "format": "pdf or html",
        "file": "file name under documents/",
        "currency": "ISO 4217 code",
        "issue_date": "issue date (canonical)",
        "due_date": "due date (canonical)",
        "po_number": "purchase order number, null when not printed",
        "seller_name": "seller name", "seller_address": "seller address, lines joined by \\n",
        "seller_tax_id": "seller tax/VAT id", "seller_phone": "seller phone",
        "seller_email": "seller e-mail", "seller_iban": "seller IBAN (grouped by 4)",
        "seller_bic": "seller BIC", "seller_account": "en-US bank account/routing text",
        "buyer_name": "buyer name", "buyer_address": "buyer address, lines joined by \\n",
        "buyer_tax_id": "buyer tax id, null when not printed",
        "product_line": "the product catalogue the lines were drawn from",
        "line_count": "number of line items",
        "subtotal": "sum of line net amounts (after discounts), exact decimal",
        "discount_total": "sum of line discount amounts, already deducted from subtotal",
        "tax_total": "sum of the tax rows' amounts",
        "total": "amount due = subtotal + tax_total",
        "taxes": "one {rate, base, amount} per printed tax rate, ascending rate",
        "page_count": "pages of the PDF; null in html",
        "page_width": "page width in points = the PDF MediaBox; null in html",
        "page_height": "page height in points = the PDF MediaBox; null in html",
        "split": "train, validation or test (run options splits / split_by)",
        "document_type": "invoice or credit_note",
        "original_invoice": "a credit note's corrected invoice number; null otherwise",
        "credit_reason": "a credit note's printed reason; null otherwise",
        "fx_currency": "multi-currency invoice: the second currency (ISO 4217); else null",
        "fx_rate": "units of fx_currency per unit of currency, as printed; else null",
        "fx_total": "round(total x fx_rate, 2), as printed; else null",
        "seller_registration": "a registration number printed beside the tax id (fr-FR: SIRET)",
        "previous_balance": "content 2: the account summary's balance before this invoice "
                            "(null without a summary)",
        "payments_received": "content 2: what was paid against the previous balance",
        "account_balance": "content 2: previous_balance - payments_received + total",
        "instalment": "content 2: this invoice's instalment number of a contract (printed k/n)",
        "instalments": "content 2: the contract's number of instalments",
        "contract_value": "content 2: total x instalments",
    },
    "line_items": {
        "document": "document index", "line": "1-based printed row number",
        "page": "page the row is printed on; null in html", "sku": "article number",
        "description": "description as printed", "pricing": "flat, tiered or metered",
        "quantity": "quantity (up to 3 decimals)", "unit": "unit as printed",
        "unit_price": "unit price (up to 4 decimals)",
        "discount_percent": "line discount in percent (0 = none)",
        "discount_amount": "round(gross x discount_percent / 100, 2) where "
                           "gross = round(quantity x unit_price, 2)",
        "net_amount": "gross - discount_amount (ROUND_HALF_UP to the cent)",
        "tax_rate": "the line's tax rate in percent",
    },
    **LAYOUT_COLUMN_DOCS,
}
