"""Bank statement records: an account's transactions over one period with a running
balance.

A :class:`BankStatement` refuses to exist unless the balance reconciles exactly from the
opening to the closing balance: ``balance_k = balance_(k-1) + amount_k`` (``balance_0`` =
opening), ``closing = balance_n``, ``credits = Σ amount > 0``, ``debits = Σ -amount < 0``,
``closing = opening + credits - debits``; every amount non-zero and exact to the
currency's minor unit, dates non-decreasing inside the period, the account number valid
by its own rules (IBAN mod 97; ABA 3-7-1; the AU BSB, CA transit, JP bank/branch
structure).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal

from docfleet.packs.sdk.banking import domestic_valid, iban_valid
from docfleet.packs.sdk.money import ReconciliationError, round_money, unique_lines

#: countries whose statements print a domestic routing + account number (no IBAN)
DOMESTIC = ("US", "AU", "CA", "JP")


@dataclass(frozen=True)
class Transaction:
    line: int
    booking_date: dt.date
    value_date: dt.date | None  # content 3: None where the bank prints no value date
    description: str
    reference: str | None  # content 3: None on the lines that print none
    amount: Decimal  # signed: credit > 0, debit < 0
    balance: Decimal  # after this transaction


@dataclass(frozen=True)
class BankStatement:
    """One statement as printed. Construction reconciles the balance or raises."""

    document: int
    statement_number: str
    archetype: str
    locale: str
    condition: str
    format: str
    currency: str
    issue_date: dt.date
    period_start: dt.date
    period_end: dt.date
    bank_name: str
    bank_address: tuple[str, ...]
    bic: str
    holder_name: str
    holder_address: tuple[str, ...]
    iban: str | None  # grouped by four, as printed
    routing_number: str | None  # US ABA routing / domestic branch code
    account_number: str
    opening_balance: Decimal
    transactions: tuple[Transaction, ...]
    total_credits: Decimal
    total_debits: Decimal  # positive
    closing_balance: Decimal
    style_seed: int
    content: int = 1  # the run's content version (2: a drawn style, sdk.variation)

    def __post_init__(self) -> None:
        reconcile(self)

    @property
    def file(self) -> str:
        return f"{self.document:06d}.{'html' if self.format == 'html' else 'pdf'}"


def running(opening: Decimal, amounts: list[Decimal]) -> list[Decimal]:
    out, balance = [], opening
    for amount in amounts:
        balance += amount
        out.append(balance)
    return out


def reconcile(s: BankStatement) -> None:
    """Recompute the running balance and totals; raise :class:`ReconciliationError`."""
    problems: list[str] = []
    q = lambda v: round_money(v, s.currency)  # noqa: E731
    if not s.transactions:
        problems.append("no transactions")
    if not unique_lines(s.transactions):
        problems.append("transactions are not numbered 1..n")
    balance = s.opening_balance
    previous = s.period_start
    for t in s.transactions:
        balance += t.amount
        if t.balance != balance:
            problems.append(f"transaction {t.line}: balance {t.balance} != {balance}")
        if t.amount == 0 or t.amount != q(t.amount):
            problems.append(f"transaction {t.line}: amount {t.amount}")
        if not previous <= t.booking_date <= s.period_end:
            problems.append(f"transaction {t.line}: date {t.booking_date} out of order")
        previous = t.booking_date
    if s.closing_balance != balance:
        problems.append(f"closing {s.closing_balance} != running balance {balance}")
    credits = sum((t.amount for t in s.transactions if t.amount > 0), Decimal(0))
    debits = -sum((t.amount for t in s.transactions if t.amount < 0), Decimal(0))
    if (s.total_credits, s.total_debits) != (credits, debits):
        problems.append(f"totals {s.total_credits}/{s.total_debits} != {credits}/{debits}")
    if s.closing_balance != s.opening_balance + credits - debits:
        problems.append("closing != opening + credits - debits")
    if s.opening_balance != q(s.opening_balance):
        problems.append("opening balance is not exact to the minor unit")
    if s.iban is not None and not iban_valid(s.iban):
        problems.append(f"IBAN {s.iban} fails its check digits")
    country = s.locale.rsplit("-", 1)[-1]
    if s.iban is None and country in DOMESTIC and not domestic_valid(
            country, s.routing_number or "", s.account_number):
        problems.append(f"routing/account number {s.routing_number} {s.account_number} "
                        f"fails its {country} rules")
    if not s.period_start <= s.period_end <= s.issue_date:
        problems.append("period and issue date out of order")
    if problems:
        raise ReconciliationError(f"statement {s.statement_number} (document {s.document}) "
                                  f"does not reconcile: {'; '.join(problems)}")
