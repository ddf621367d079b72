"""The purchase-order pack's own golden tables (the shared page tables, ``fields``,
``words``, …, are the SDK's, with its conventions: :mod:`docfleet.packs.sdk.schema`).

- ``purchase_orders``: one row per document; money ``decimal128(18, 2)`` in ``currency``.
- ``order_lines``: one row per ordered line, with its agreed price and requested date.
- Printed field names: po_number, issue_date, contact, supplier_number, ship_to, incoterm,
  delivery_place, delivery_date, payment_terms (value: days), buyer_{name,address,tax_id,
  phone,email}, supplier_{name,address,tax_id}; per line (``line`` set): line_number, sku,
  description, requested_date, quantity, unit, unit_price, line_tax_rate, amount; per tax
  row: tax_rate, tax_base, tax_amount; subtotal, total; content 3 also budget_amount,
  blanket_value, released_to_date, credit_limit (look-alikes, each on some orders).
- Content 3 (``TABLES_V3``): supplier_number, incoterm, delivery_place, the tax ids and a
  line's requested_date are null where the order does not print them; the look-alike
  amounts are columns of their own, null where not printed.
"""

from __future__ import annotations

import pyarrow as pa

from docfleet.packs.sdk.schema import MONEY, PERCENT, QUANTITY, TAX_LINE, UNIT_PRICE, meta_fields

_head, _tail = meta_fields()

PURCHASE_ORDERS = pa.schema([
    *_head,
    pa.field("po_number", pa.string(), nullable=False),
    pa.field("issue_date", pa.date32(), nullable=False),
    pa.field("buyer_name", pa.string(), nullable=False),
    pa.field("buyer_address", pa.string(), nullable=False),
    pa.field("buyer_tax_id", pa.string()),
    pa.field("buyer_phone", pa.string(), nullable=False),
    pa.field("buyer_email", pa.string(), nullable=False),
    pa.field("supplier_name", pa.string(), nullable=False),
    pa.field("supplier_address", pa.string(), nullable=False),
    pa.field("supplier_tax_id", pa.string()),
    pa.field("supplier_number", pa.string(), nullable=False),
    pa.field("ship_to", pa.string(), nullable=False),  # lines joined by "\n"
    pa.field("contact", pa.string(), nullable=False),
    pa.field("incoterm", pa.string(), nullable=False),  # Incoterms 2020 rule
    pa.field("delivery_place", pa.string(), nullable=False),
    pa.field("delivery_date", pa.date32(), nullable=False),
    pa.field("payment_days", pa.int32(), nullable=False),
    pa.field("product_line", pa.string(), nullable=False),
    pa.field("line_count", pa.int32(), nullable=False),
    pa.field("subtotal", MONEY, nullable=False),
    pa.field("tax_total", MONEY, nullable=False),
    pa.field("total", MONEY, nullable=False),
    pa.field("taxes", pa.list_(TAX_LINE), nullable=False),
    *_tail,
])

ORDER_LINES = pa.schema([
    pa.field("document", pa.int64(), nullable=False),
    pa.field("line", pa.int32(), nullable=False),
    pa.field("page", pa.int32()),
    pa.field("sku", pa.string(), nullable=False),
    pa.field("description", pa.string(), nullable=False),
    pa.field("quantity", QUANTITY, nullable=False),
    pa.field("unit", pa.string(), nullable=False),
    pa.field("unit_price", UNIT_PRICE, nullable=False),  # agreed price
    pa.field("amount", MONEY, nullable=False),
    pa.field("tax_rate", PERCENT, nullable=False),
    pa.field("requested_date", pa.date32(), nullable=False),
])

TABLES: dict[str, pa.Schema] = {"purchase_orders": PURCHASE_ORDERS, "order_lines": ORDER_LINES}


def _content_3(schema: pa.Schema, nullable: tuple[str, ...],
               after: str | None = None, added: tuple[str, ...] = ()) -> pa.Schema:
    """``schema`` with ``nullable`` made nullable and ``added`` money columns after
    ``after``."""
    fields = [f.with_nullable(True) if f.name in nullable else f for f in schema]
    if after is not None:
        at = schema.get_field_index(after) + 1
        fields[at:at] = [pa.field(name, MONEY) for name in added]
    return pa.schema(fields)


#: content 3: the optional parts are null where the order does not print them, and the
#: look-alike amounts (null where not printed) follow ``taxes``
TABLES_V3: dict[str, pa.Schema] = {
    "purchase_orders": _content_3(
        PURCHASE_ORDERS, ("supplier_number", "incoterm", "delivery_place"), "taxes",
        ("budget_amount", "blanket_value", "released_to_date", "credit_limit")),
    "order_lines": _content_3(ORDER_LINES, ("requested_date",)),
}
