"""The ``bank_statement`` pack: one month of a current account over one or more pages,
a running balance that reconciles exactly from the opening to the closing balance
(brought / carried forward between pages), the holder and an IBAN or a domestic account
number valid for the locale. Archetypes: retail, ledger, private."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from docfleet.packs.bank_statement.context import BS_ARCHETYPES, build_context, page_size
from docfleet.packs.bank_statement.records import BankStatement
from docfleet.packs.bank_statement.schema import STATEMENTS, TABLES, TRANSACTIONS_V3
from docfleet.packs.bank_statement.source import BankStatementSource
from docfleet.packs.sdk.options import PackOptions
from docfleet.packs.sdk.pack import TemplatedPack
from docfleet.packs.sdk.rows import document_meta
from docfleet.packs.sdk.schema import with_split
from docfleet.packs.sdk.session import PrintedDocument
from docfleet.packs.sdk.splits import document_split

MAX_TRANSACTIONS = 300


class BankStatementSteps:
    tables: dict[str, pa.Schema] = TABLES
    #: ink truth and the visibility check from this content version on
    ink_content = 4
    #: photo recipe 2 (the same geometry for about half the CPU) from this version on
    photo_content = 5
    #: a language's own characters in fonts the PDF embeds from this version on
    #: (ja-JP: BIZ UDPGothic/UDPMincho, TrueType, instead of Type 3 drawings of Noto CJK)
    font_content = 6
    #: printed values an annotator highlights, ticks or circles
    markable = ("opening_balance", "balance", "balance_carried_forward", "closing_balance",
                "statement_number")

    def source(self, options: PackOptions) -> BankStatementSource:
        return BankStatementSource(options)

    def page_size(self, record: BankStatement) -> tuple[int, int]:
        return page_size(record)

    def template(self, record: BankStatement) -> str:
        return BS_ARCHETYPES[record.archetype].template

    def context(self, record: BankStatement) -> dict[str, Any]:
        return build_context(record)

    def rows(self, s: BankStatement, printed: PrintedDocument | None
             ) -> dict[str, list[dict[str, Any]]]:
        pages = printed.pages if printed else None
        line_pages = printed.line_pages("description") if printed else None
        head = {
            **document_meta(s, pages, printed.media_box if printed else None),
            "statement_number": s.statement_number, "issue_date": s.issue_date,
            "period_start": s.period_start, "period_end": s.period_end,
            "bank_name": s.bank_name, "bank_address": "\n".join(s.bank_address),
            "bic": s.bic, "holder_name": s.holder_name,
            "holder_address": "\n".join(s.holder_address), "iban": s.iban,
            "routing_number": s.routing_number, "account_number": s.account_number,
            "opening_balance": s.opening_balance, "total_credits": s.total_credits,
            "total_debits": s.total_debits, "closing_balance": s.closing_balance,
            "transaction_count": len(s.transactions),
        }
        if s.content >= 4:  # every pack's document table holds its split (issue 28)
            head["split"] = document_split(s.document)
        txs = [{
            "document": s.document, "line": t.line,
            "page": line_pages[t.line] if line_pages else None,
            "booking_date": t.booking_date, "value_date": t.value_date,
            "description": t.description, "reference": t.reference, "amount": t.amount,
            "balance": t.balance,
        } for t in s.transactions]
        return {"statements": [head], "transactions": txs}


class BankStatementPack(TemplatedPack):
    """Bank statements with exact golden truth (see the module docstring)."""

    name = "bank_statement"
    archetypes = tuple(BS_ARCHETYPES)
    steps = BankStatementSteps()
    max_lines = MAX_TRANSACTIONS
    #: 1: one convention; 2: each document's words, money and dates drawn
    #: 3: a drawn BIC's bank code is ASCII A-Z (issue 29 item 5)
    #: 3 also: value dates printed by some banks only, references missing on many
    #: card / cash / fee lines (issue 25; null in the golden rows where not printed)
    #: 4: ``split`` and the transactions' ``cells``; value dates on fewer banks'
    #: statements, references printed by some banks only, more notes (issue 25); 5: photo
    #: recipe 2; 6: ja-JP in fonts the PDF embeds
    content_versions = (1, 2, 3, 4, 5, 6)
    split = "split"

    def content_tables(self, content: int) -> dict[str, pa.Schema]:
        tables: dict[str, pa.Schema] = {}
        if content >= 4:
            tables["statements"] = with_split(STATEMENTS)
        if content >= 3:
            tables["transactions"] = TRANSACTIONS_V3
        return tables
