"""The invoice pack's golden tables: their names and Arrow schemas are a contract.

Export and scoring read these tables; names and column meanings stay stable. Conventions:

- ``document`` is the document index (0 … total-1) in every table; it joins the tables.
- Money is exact: ``decimal128(18, 2)`` in the invoice's currency (never float).
- Boxes are in **PDF points** (1/72 in) on page ``page`` (1-based), with the origin at
  the **top-left** corner of the page and ``y`` growing downward: ``x0 < x1``,
  ``y0 < y1``. Page sizes are in ``invoices.page_width`` / ``page_height``. For the
  ``scan``, ``photo``, ``fax`` and ``annotated`` conditions a box is the axis-aligned
  hull of the original box carried through the page's geometric transform, and ``quad``
  holds the carried corners (TL, TR, BR, BL) — the exact quadrilateral for a photo; for
  ``clean`` the quad is the box's own corners. Capture parameters are in ``pages``. In
  the ``html`` format there is no page: ``page`` and
  the box columns are null and ``words`` is empty.
- ``fields.text`` is the exact printed string; ``fields.value`` is its canonical form
  (money ``1234.50``, dates ``2024-03-31``, percentages ``20``, other text as printed).
- Field names are listed in :mod:`docfleet.packs.invoice.pack`; a value that is not
  printed (no PO number, no discount) has no ``fields`` row.
- ``words`` are the page's text split on ASCII whitespace, in document order per page;
  no-break spaces do not split, so ``1\u00a0234,50\u00a0€`` is one word. Every word of a
  field carries the field's ``field`` / ``line`` / ``occurrence``.
- A field printed more than once (the invoice number in a running header) has one row per
  printed occurrence, told apart by ``page`` and ``occurrence``.
"""

from __future__ import annotations

import pyarrow as pa

MONEY = pa.decimal128(18, 2)
#: quantities: metered lines carry up to 3 decimals (``12.375`` kWh)
QUANTITY = pa.decimal128(18, 3)
#: unit prices: metered rates carry up to 4 decimals (``0.0450``)
UNIT_PRICE = pa.decimal128(18, 4)
#: percentages (tax rates, discounts): ``8.875`` means 8.875 %
PERCENT = pa.decimal128(7, 3)

TAX_LINE = pa.struct(
    [
        pa.field("rate", PERCENT, nullable=False),
        pa.field("base", MONEY, nullable=False),
        pa.field("amount", MONEY, nullable=False),
    ]
)


def _box() -> list[pa.Field]:
    return [
        pa.field("page", pa.int32()),
        pa.field("x0", pa.float64()),
        pa.field("y0", pa.float64()),
        pa.field("x1", pa.float64()),
        pa.field("y1", pa.float64()),
    ]


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

FIELDS = pa.schema(
    [
        pa.field("document", pa.int64(), nullable=False),
        pa.field("field", pa.string(), nullable=False),  # e.g. total, seller_name, quantity
        #: line item number for per-line fields, tax row number (1-based, ascending rate)
        #: for tax_rate / tax_base / tax_amount, else null
        pa.field("line", pa.int32()),
        pa.field("occurrence", pa.int32(), nullable=False),  # 0 first printing, 1, …
        pa.field("text", pa.string(), nullable=False),  # exactly as printed
        pa.field("value", pa.string(), nullable=False),  # canonical form
        *_box(),
        pa.field("quad", pa.list_(pa.float64())),  # corners TL, TR, BR, BL: x, y x 4
    ]
)

WORDS = pa.schema(
    [
        pa.field("document", pa.int64(), nullable=False),
        pa.field("page", pa.int32(), nullable=False),
        pa.field("word", pa.int32(), nullable=False),  # reading order on the page, 0-based
        pa.field("text", pa.string(), nullable=False),
        pa.field("x0", pa.float64(), nullable=False),
        pa.field("y0", pa.float64(), nullable=False),
        pa.field("x1", pa.float64(), nullable=False),
        pa.field("y1", pa.float64(), nullable=False),
        pa.field("field", pa.string()),  # the field the word is part of, if any
        pa.field("line", pa.int32()),
        pa.field("occurrence", pa.int32()),
        pa.field("quad", pa.list_(pa.float64())),  # corners TL, TR, BR, BL: x, y x 4
    ]
)

ANNOTATION = pa.struct([
    #: stamp | signature | tick | circle | highlight
    pa.field("kind", pa.string(), nullable=False),
    pa.field("text", pa.string()),  # a stamp's text
    pa.field("x0", pa.float64(), nullable=False),
    pa.field("y0", pa.float64(), nullable=False),
    pa.field("x1", pa.float64(), nullable=False),
    pa.field("y1", pa.float64(), nullable=False),
])

#: one row per printed page: its size and every capture parameter actually applied
#: (difficulty labels); a parameter the page's condition does not use is null
PAGES = pa.schema(
    [
        pa.field("document", pa.int64(), nullable=False),
        pa.field("page", pa.int32(), nullable=False),
        pa.field("width", pa.float64(), nullable=False),  # points
        pa.field("height", pa.float64(), nullable=False),
        pa.field("condition", pa.string(), nullable=False),
        pa.field("dpi", pa.int32()),  # raster resolution; null for clean
        pa.field("angle", pa.float64()),  # rotation, degrees counter-clockwise
        pa.field("shift_x", pa.float64()),  # points
        pa.field("shift_y", pa.float64()),
        pa.field("blur", pa.float64()),  # Gaussian radius, px
        pa.field("noise", pa.int32()),  # +- grey levels
        pa.field("jpeg_quality", pa.int32()),
        pa.field("contrast", pa.float64()),  # 1.0 = unchanged
        pa.field("bits", pa.int32()),  # 1 (fax), 8 (grey), 24 (colour)
        #: photo: where the page corners TL, TR, BR, BL landed (points): x, y x 4
        pa.field("perspective", pa.list_(pa.float64())),
        pa.field("lighting", pa.float64()),  # photo: depth of the uneven light, 0-1
        pa.field("background", pa.string()),  # photo: background colour
        pa.field("threshold", pa.int32()),  # fax: 1-bit threshold (0-255)
        pa.field("streaks", pa.int32()),  # fax: streak count
        pa.field("annotations", pa.list_(ANNOTATION)),  # annotated: marks, boxes in points
    ]
)

TABLES: dict[str, pa.Schema] = {
    "invoices": INVOICES,
    "line_items": LINE_ITEMS,
    "fields": FIELDS,
    "words": WORDS,
    "pages": PAGES,
}
