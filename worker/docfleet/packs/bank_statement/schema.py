"""The bank-statement pack's own golden tables (the shared page tables, ``fields``,
``words``, …, are the SDK's, with its conventions: :mod:`docfleet.packs.sdk.schema`).

- ``statements``: one row per document; money ``decimal128(18, 2)`` in ``currency``;
  ``iban`` as printed (grouped by four) or null where the locale has none (then
  ``routing_number`` + ``account_number``).
- ``transactions``: one row per transaction in print order, ``amount`` signed (credit > 0),
  ``balance`` the running balance after it, ``page`` the page it is printed on.
- Printed field names: bank_name, bank_address, bic, holder_name, holder_address, iban,
  routing_number, account_number, statement_number, issue_date, period_start,
  period_end, opening_balance, closing_balance, total_credits, total_debits; per
  transaction (``line`` set): booking_date, value_date, description, reference, debit or
  credit (magnitudes) or amount (signed), balance; per page (``line`` = page number):
  balance_brought_forward (pages 2+), balance_carried_forward (all but the last).
"""

from __future__ import annotations

import pyarrow as pa

from docfleet.packs.sdk.schema import MONEY, meta_fields

_head, _tail = meta_fields()

STATEMENTS = pa.schema([
    *_head,
    pa.field("statement_number", pa.string(), nullable=False),
    pa.field("issue_date", pa.date32(), nullable=False),
    pa.field("period_start", pa.date32(), nullable=False),
    pa.field("period_end", pa.date32(), nullable=False),
    pa.field("bank_name", pa.string(), nullable=False),
    pa.field("bank_address", pa.string(), nullable=False),
    pa.field("bic", pa.string(), nullable=False),
    pa.field("holder_name", pa.string(), nullable=False),
    pa.field("holder_address", pa.string(), nullable=False),
    pa.field("iban", pa.string()),
    pa.field("routing_number", pa.string()),
    pa.field("account_number", pa.string(), nullable=False),
    pa.field("opening_balance", MONEY, nullable=False),
    pa.field("total_credits", MONEY, nullable=False),
    pa.field("total_debits", MONEY, nullable=False),
    pa.field("closing_balance", MONEY, nullable=False),
    pa.field("transaction_count", pa.int32(), nullable=False),
    *_tail,
])

TRANSACTIONS = pa.schema([
    pa.field("document", pa.int64(), nullable=False),
    pa.field("line", pa.int32(), nullable=False),
    pa.field("page", pa.int32()),
    pa.field("booking_date", pa.date32(), nullable=False),
    pa.field("value_date", pa.date32(), nullable=False),
    pa.field("description", pa.string(), nullable=False),
    pa.field("reference", pa.string(), nullable=False),
    pa.field("amount", MONEY, nullable=False),
    pa.field("balance", MONEY, nullable=False),
])

#: content 3: value date and reference are printed by some banks / on some lines only, and
#: null in the golden row where not printed
TRANSACTIONS_V3 = pa.schema([
    f.with_nullable(True) if f.name in ("value_date", "reference") else f
    for f in TRANSACTIONS
])

TABLES: dict[str, pa.Schema] = {"statements": STATEMENTS, "transactions": TRANSACTIONS}
