"""Invoice records: the ground truth, generated before anything is rendered.

An :class:`Invoice` refuses to exist unless its money reconciles to the cent: every line's
net amount, the per-rate tax, the subtotal and the total are recomputed from the lines in
``__post_init__`` and a mismatch raises :class:`ReconciliationError`.

Rules (rounding to the currency's minor unit — the cent, or the whole yen — is
ROUND_HALF_UP):

- ``gross = round(quantity x unit_price, 2)``; ``discount = round(gross x pct / 100, 2)``;
  ``net = gross - discount``;
- ``subtotal = Σ net``; per rate: ``base = Σ net`` of its lines,
  ``tax = round(base x rate / 100, 2)``; ``tax_total = Σ tax``; ``total = subtotal + tax_total``.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal

from docfleet.packs.sdk.money import ReconciliationError, cents
from docfleet.packs.sdk.parties import Party


@dataclass(frozen=True)
class LineItem:
    line: int  # 1-based
    sku: str
    description: str
    pricing: str  # flat | tiered | metered
    quantity: Decimal
    quantity_places: int  # printed decimals
    unit: str  # printed unit
    unit_price: Decimal
    price_places: int
    discount_percent: Decimal
    discount_amount: Decimal
    net_amount: Decimal
    tax_rate: Decimal

    @property
    def gross_amount(self) -> Decimal:
        return cents(self.quantity * self.unit_price)


@dataclass(frozen=True)
class TaxLine:
    rate: Decimal
    base: Decimal
    amount: Decimal


@dataclass(frozen=True)
class Invoice:
    """One invoice as printed. Construction reconciles the money or raises."""

    document: int
    invoice_number: str
    archetype: str
    locale: str
    condition: str
    format: str
    currency: str
    issue_date: dt.date
    due_date: dt.date
    po_number: str | None
    seller: Party
    buyer: Party
    product_line: str
    lines: tuple[LineItem, ...]
    taxes: tuple[TaxLine, ...]  # ascending by rate
    subtotal: Decimal
    discount_total: Decimal
    tax_total: Decimal
    total: Decimal
    payment_days: int
    style_seed: int  # drives fonts, colours and the logo
    split: str = "train"  # train | validation | test (see docfleet.dataset.splits)
    money_places: int = 2  # the currency's minor unit (0 for JPY)
    document_type: str = "invoice"  # invoice | credit_note
    original_invoice: str | None = None  # a credit note's corrected invoice
    reason: str | None = None  # a credit note's printed reason
    #: multi-currency invoice: the total converted at ``fx_rate`` (units of fx_currency
    #: per unit of currency), ``fx_total = round(total x fx_rate, 2)``
    fx_currency: str | None = None
    fx_rate: Decimal | None = None
    fx_total: Decimal | None = None
    seller_registration: str | None = None  # French SIRET, printed next to the TVA number
    tagline: str | None = None  # printed under the seller's name (catalogue)
    terms: str | None = None  # payment terms sentence (catalogue); None = the locale's
    note: str | None = None  # a note to the customer (catalogue)
    content: int = 1  # the run's content version (2: a drawn style, sdk.variation)
    #: content 2: an account summary (utility / subscription style) under the total:
    #: what was owed before, what has been paid since, and what is owed now
    previous_balance: Decimal | None = None
    payments_received: Decimal | None = None
    #: content 2: an instalment of a contract (``instalment`` of ``instalments``), whose
    #: value is ``total x instalments``
    instalment: int | None = None
    instalments: int | None = None

    @property
    def contract_value(self) -> Decimal | None:
        return None if self.instalments is None else self.total * self.instalments

    @property
    def account_balance(self) -> Decimal | None:
        """``previous_balance - payments_received + total`` (None without a summary)."""
        if self.previous_balance is None or self.payments_received is None:
            return None
        return self.previous_balance - self.payments_received + self.total

    def __post_init__(self) -> None:
        reconcile(self)

    @property
    def file(self) -> str:
        return f"{self.document:06d}.{'html' if self.format == 'html' else 'pdf'}"


def build_line(
    line: int, sku: str, description: str, pricing: str, quantity: Decimal,
    quantity_places: int, unit: str, unit_price: Decimal, price_places: int,
    discount_percent: Decimal, tax_rate: Decimal, places: int = 2,
) -> LineItem:
    """A line whose discount and net amount follow the rules above (amounts rounded to
    ``places`` decimals)."""
    gross = cents(quantity * unit_price, places)
    discount = cents(gross * discount_percent / 100, places)
    return LineItem(line, sku, description, pricing, quantity, quantity_places, unit,
                    unit_price, price_places, discount_percent, discount, gross - discount,
                    tax_rate)


def tax_lines(lines: tuple[LineItem, ...], places: int = 2) -> tuple[TaxLine, ...]:
    """One tax line per distinct rate, ascending (one rounding per rate, as Japan's
    qualified invoices require)."""
    bases: dict[Decimal, Decimal] = {}
    for item in lines:
        bases[item.tax_rate] = bases.get(item.tax_rate, Decimal(0)) + item.net_amount
    return tuple(
        TaxLine(rate, base, cents(base * rate / 100, places))
        for rate, base in sorted(bases.items())
    )


def reconcile(invoice: Invoice) -> None:
    """Recompute every amount from the lines; raise :class:`ReconciliationError` on any
    difference, on a non-cent amount, or on a negative one."""
    problems: list[str] = []
    places = invoice.money_places
    if not invoice.lines:
        problems.append("no lines")
    for item in invoice.lines:
        gross = cents(item.quantity * item.unit_price, places)
        if item.discount_amount != cents(gross * item.discount_percent / 100, places):
            problems.append(f"line {item.line}: discount {item.discount_amount}")
        if item.net_amount != gross - item.discount_amount:
            problems.append(f"line {item.line}: net {item.net_amount} != {gross} - discount")
        if item.net_amount < 0 or item.quantity <= 0 or item.unit_price < 0:
            problems.append(f"line {item.line}: negative amount")
    if [i.line for i in invoice.lines] != list(range(1, len(invoice.lines) + 1)):
        problems.append("lines are not numbered 1..n")
    subtotal = sum((i.net_amount for i in invoice.lines), Decimal(0))
    if invoice.subtotal != subtotal:
        problems.append(f"subtotal {invoice.subtotal} != {subtotal}")
    discounts = sum((i.discount_amount for i in invoice.lines), Decimal(0))
    if invoice.discount_total != discounts:
        problems.append(f"discount_total {invoice.discount_total} != {discounts}")
    if invoice.taxes != tax_lines(invoice.lines, places):
        problems.append("tax lines do not match the lines' rates")
    tax_total = sum((t.amount for t in invoice.taxes), Decimal(0))
    if invoice.tax_total != tax_total:
        problems.append(f"tax_total {invoice.tax_total} != {tax_total}")
    if invoice.total != invoice.subtotal + invoice.tax_total:
        problems.append(f"total {invoice.total} != subtotal + tax")
    money = [invoice.subtotal, invoice.tax_total, invoice.total, invoice.discount_total]
    money += [t.amount for t in invoice.taxes] + [t.base for t in invoice.taxes]
    money += [i.net_amount for i in invoice.lines] + [i.discount_amount for i in invoice.lines]
    if any(m != cents(m, places) for m in money):
        problems.append("an amount is not exact in the currency's minor unit")
    if invoice.document_type == "credit_note" and not invoice.original_invoice:
        problems.append("a credit note names no original invoice")
    fx = (invoice.fx_currency, invoice.fx_rate, invoice.fx_total)
    if any(v is not None for v in fx):
        if invoice.fx_rate is None or invoice.fx_total is None or not invoice.fx_currency:
            problems.append("a converted total needs currency, rate and amount")
        elif invoice.fx_total != cents(invoice.total * invoice.fx_rate):
            problems.append(f"fx_total {invoice.fx_total} != total x {invoice.fx_rate}")
    if invoice.due_date < invoice.issue_date:
        problems.append("due date before issue date")
    if (invoice.previous_balance is None) != (invoice.payments_received is None):
        problems.append("an account summary needs the previous balance and the payments")
    elif invoice.previous_balance is not None and invoice.payments_received is not None:
        if not 0 <= invoice.payments_received <= invoice.previous_balance:
            problems.append("payments received exceed the previous balance")
        unit = Decimal(1).scaleb(-places)
        if any(v.quantize(unit) != v
               for v in (invoice.previous_balance, invoice.payments_received)):
            problems.append("an account summary amount is not exact to the minor unit")
    if (invoice.instalment is None) != (invoice.instalments is None) or (
            invoice.instalment is not None and invoice.instalments is not None
            and not 1 <= invoice.instalment <= invoice.instalments):
        problems.append("an instalment needs its number, at most the instalments'")
    if problems:
        raise ReconciliationError(
            f"invoice {invoice.invoice_number} (document {invoice.document}) does not "
            f"reconcile: {'; '.join(problems)}"
        )
