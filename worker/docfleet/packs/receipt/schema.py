"""The receipt pack's own golden tables (the shared page tables, ``fields``, ``words``, …,
are the SDK's, with its conventions: boxes in PDF points, top-left origin, exact printed
text: :mod:`docfleet.packs.sdk.schema`).

- ``receipts``: one row per document; money ``decimal128(18, 2)`` in ``currency``.
- ``receipt_items``: the CORD-like hierarchy, one row per printed item or sub-item row:
  ``row`` is its 1-based print order (the ``line`` of its ``fields``), ``item`` the item it
  belongs to, ``kind`` item | modifier | discount.
- Printed field names: store_{name,address,phone,tax_id}, receipt_number, issue_date,
  issue_time, till, cashier; per item row (``line`` = row): item_name, item_quantity,
  item_unit_price, item_amount, modifier_name, modifier_amount, discount_name,
  discount_percent, discount_amount; per tax row (``line`` = tax row): tax_rate, tax_base,
  tax_amount; item_count, subtotal, discount_total, total, payment_method (value: cash |
  card | contactless | mobile), tendered, change, card_number, auth_code.
- Content version 2 adds columns to ``receipts`` (:data:`RECEIPTS_V2`) and printed fields:
  tax_code (per item row and tax row), tax_gross (per tax row), tax_base_total, tax_total,
  tax_gross_total, rounding, amount_due, member_number, points_earned, points_balance,
  savings_ytd, terminal_id, slip_date, slip_time, slip_amount, return_by, print_date,
  print_time (``printed_at`` in ``receipts``).
  ``issue_time`` is ``HH:MM:SS`` where the receipt prints the seconds.
"""

from __future__ import annotations

import pyarrow as pa

from docfleet.packs.sdk.schema import MONEY, PERCENT, QUANTITY, TAX_LINE, meta_fields

_head, _tail = meta_fields()

RECEIPTS = pa.schema([
    *_head,
    pa.field("receipt_number", pa.string(), nullable=False),
    pa.field("issue_date", pa.date32(), nullable=False),
    pa.field("issue_time", pa.string(), nullable=False),  # HH:MM
    pa.field("store_name", pa.string(), nullable=False),
    pa.field("store_address", pa.string(), nullable=False),  # lines joined by "\n"
    pa.field("store_phone", pa.string(), nullable=False),
    pa.field("store_tax_id", pa.string()),
    pa.field("store_kind", pa.string(), nullable=False),  # cafe | grocery | restaurant
    pa.field("till", pa.string(), nullable=False),
    pa.field("cashier", pa.string(), nullable=False),
    pa.field("item_count", pa.int32(), nullable=False),
    pa.field("subtotal", MONEY, nullable=False),
    pa.field("discount_total", MONEY, nullable=False),
    pa.field("tax_inclusive", pa.bool_(), nullable=False),
    pa.field("tax_total", MONEY, nullable=False),
    pa.field("total", MONEY, nullable=False),
    pa.field("taxes", pa.list_(TAX_LINE), nullable=False),  # base is net of tax
    pa.field("payment_method", pa.string(), nullable=False),
    pa.field("tendered", MONEY, nullable=False),
    pa.field("change", MONEY, nullable=False),
    pa.field("card_last4", pa.string()),
    *_tail,
])

#: content version 2 (:mod:`.variation`): the cash rounding and what is paid after it, the
#: print time and the return deadline where printed, the loyalty points
RECEIPTS_V2 = pa.schema([
    *list(RECEIPTS)[: len(RECEIPTS) - len(_tail)],
    pa.field("rounding", MONEY, nullable=False),  # 0 unless cash is rounded to 0.05
    pa.field("amount_due", MONEY, nullable=False),  # total + rounding
    pa.field("printed_at", pa.timestamp("s")),
    pa.field("return_by", pa.date32()),
    pa.field("loyalty_points", pa.int32()),
    pa.field("loyalty_balance", pa.int32()),
    *_tail,
])

RECEIPT_ITEMS = pa.schema([
    pa.field("document", pa.int64(), nullable=False),
    pa.field("row", pa.int32(), nullable=False),
    pa.field("item", pa.int32(), nullable=False),
    pa.field("kind", pa.string(), nullable=False),  # item | modifier | discount
    pa.field("name", pa.string(), nullable=False),
    pa.field("quantity", QUANTITY),  # null for a discount
    pa.field("unit_price", MONEY),
    pa.field("discount_percent", PERCENT),  # discounts only
    pa.field("amount", MONEY, nullable=False),  # a discount's amount is positive
    pa.field("tax_rate", PERCENT),  # items only
    pa.field("page", pa.int32()),  # null in html
])

TABLES: dict[str, pa.Schema] = {"receipts": RECEIPTS, "receipt_items": RECEIPT_ITEMS}
