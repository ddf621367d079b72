"""Receipt records: the ground truth of a till receipt, in a CORD-like hierarchy.

An item has a quantity, a unit price and an amount; under it, sub-items: modifiers
(``+ Oat milk``, priced per item) and at most one discount. The receipt's taxes are per
rate; prices either include the tax (most of the world: the receipt shows the tax
contained) or exclude it (the US: tax is added). One payment: cash (tendered, change) or a
card / contactless / mobile payment of the exact total.

A :class:`Receipt` refuses to exist unless everything reconciles (ROUND_HALF_UP to the
currency's minor unit ``q``):

- ``item.amount = q(quantity x unit_price)``; ``modifier.amount = q(quantity x unit_price)``;
- ``discount = q((amount + Σ modifiers) x percent / 100)``;
  ``item.total = amount + Σ modifiers - discount``;
- ``subtotal = Σ item.total``; ``discount_total = Σ discount``;
- per rate, ``gross = Σ item.total``: inclusive ``tax = q(gross x r / (100 + r))``,
  ``base = gross - tax``; exclusive ``base = gross``, ``tax = q(base x r / 100)``;
- ``total = subtotal`` (inclusive) or ``subtotal + tax_total`` (exclusive);
- ``change = tendered - total >= 0``; a non-cash payment tenders exactly the total.

Content version 2 (:mod:`.variation`) adds, all neutral in version 1: a cash **rounding**
(``amount_due = total + rounding``, to the 0.05 where the locale rounds cash, ``|rounding|
< 0.05``; then ``change = tendered - amount_due``), a **loyalty** block (points earned are
``floor(total)`` per point rate, the balance is at least what was earned) and the dates
and times a real receipt prints besides the sale (``printed_at``, ``return_by``).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING

from docfleet.packs.sdk.money import ReconciliationError, round_money, unique_lines

if TYPE_CHECKING:
    from docfleet.packs.receipt.variation import ReceiptStyle

PAYMENT_METHODS = ("cash", "card", "contactless", "mobile")


@dataclass(frozen=True)
class Modifier:
    name: str
    quantity: Decimal
    unit_price: Decimal
    amount: Decimal


@dataclass(frozen=True)
class Discount:
    name: str
    percent: Decimal
    amount: Decimal


@dataclass(frozen=True)
class ReceiptItem:
    line: int  # 1-based item number
    name: str
    quantity: Decimal
    quantity_places: int  # 3 for weighed goods, else 0
    unit: str | None  # printed unit of weighed goods ("kg"), else None
    unit_price: Decimal
    amount: Decimal
    modifiers: tuple[Modifier, ...]
    discount: Discount | None
    tax_rate: Decimal
    total: Decimal


@dataclass(frozen=True)
class ReceiptTax:
    rate: Decimal
    base: Decimal  # net of tax
    amount: Decimal


@dataclass(frozen=True)
class Store:
    name: str
    address: tuple[str, ...]
    phone: str
    tax_id: str | None


@dataclass(frozen=True)
class Loyalty:
    """A loyalty card's lines: the masked member number, points earned on this sale,
    the new points balance and the savings of the year so far (money)."""

    member: str
    points: int
    balance: int
    savings_ytd: Decimal


@dataclass(frozen=True)
class Receipt:
    """One till receipt as printed. Construction reconciles the money or raises."""

    document: int
    receipt_number: str
    archetype: str
    locale: str
    condition: str
    format: str
    currency: str
    issue_date: dt.date
    issue_time: str  # HH:MM
    store: Store
    store_kind: str
    till: str
    cashier: str
    items: tuple[ReceiptItem, ...]
    tax_inclusive: bool
    taxes: tuple[ReceiptTax, ...]  # ascending by rate
    subtotal: Decimal
    discount_total: Decimal
    tax_total: Decimal
    total: Decimal
    item_count: int  # pieces (a weighed item counts 1)
    payment_method: str
    tendered: Decimal
    change: Decimal
    card_last4: str | None
    auth_code: str | None
    style_seed: int
    #: content version 2 (see the module docstring); neutral defaults are version 1
    content: int = 1
    rounding: Decimal = Decimal(0)
    loyalty: Loyalty | None = None
    printed_at: dt.datetime | None = None
    return_by: dt.date | None = None
    style: ReceiptStyle | None = None

    @property
    def amount_due(self) -> Decimal:
        """What the customer pays: the total after cash rounding."""
        return self.total + self.rounding

    def __post_init__(self) -> None:
        reconcile(self)

    @property
    def file(self) -> str:
        return f"{self.document:06d}.{'html' if self.format == 'html' else 'pdf'}"


def build_item(line: int, name: str, quantity: Decimal, places: int, unit: str | None,
               unit_price: Decimal, modifiers: tuple[tuple[str, Decimal], ...],
               discount: tuple[str, Decimal] | None, tax_rate: Decimal, currency: str
               ) -> ReceiptItem:
    """An item whose amounts follow the module's rules (modifiers priced per item)."""
    q = lambda v: round_money(v, currency)  # noqa: E731
    amount = q(quantity * unit_price)
    mods = tuple(Modifier(n, quantity, p, q(quantity * p)) for n, p in modifiers)
    before = amount + sum((m.amount for m in mods), Decimal(0))
    disc = None
    if discount is not None:
        disc = Discount(discount[0], discount[1], q(before * discount[1] / 100))
    total = before - (disc.amount if disc else Decimal(0))
    return ReceiptItem(line, name, quantity, places, unit, unit_price, amount, mods, disc,
                       tax_rate, total)


def receipt_taxes(items: tuple[ReceiptItem, ...], inclusive: bool, currency: str
                  ) -> tuple[ReceiptTax, ...]:
    gross: dict[Decimal, Decimal] = {}
    for item in items:
        gross[item.tax_rate] = gross.get(item.tax_rate, Decimal(0)) + item.total
    out = []
    for rate, amount in sorted(gross.items()):
        if inclusive:
            tax = round_money(amount * rate / (100 + rate), currency)
            out.append(ReceiptTax(rate, amount - tax, tax))
        else:
            out.append(ReceiptTax(rate, amount, round_money(amount * rate / 100, currency)))
    return tuple(out)


def reconcile(r: Receipt) -> None:
    """Recompute every amount; raise :class:`ReconciliationError` on any difference."""
    problems: list[str] = []
    q = lambda v: round_money(v, r.currency)  # noqa: E731
    if not r.items:
        problems.append("no items")
    if not unique_lines(r.items):
        problems.append("items are not numbered 1..n")
    for it in r.items:
        if it.quantity <= 0 or it.unit_price < 0:
            problems.append(f"item {it.line}: quantity/price not positive")
        if it.amount != q(it.quantity * it.unit_price):
            problems.append(f"item {it.line}: amount {it.amount}")
        for m in it.modifiers:
            if m.amount != q(m.quantity * m.unit_price) or m.quantity != it.quantity:
                problems.append(f"item {it.line}: modifier {m.name} amount {m.amount}")
        before = it.amount + sum((m.amount for m in it.modifiers), Decimal(0))
        discount = Decimal(0)
        if it.discount is not None:
            discount = it.discount.amount
            if discount != q(before * it.discount.percent / 100) or discount <= 0:
                problems.append(f"item {it.line}: discount {discount}")
        if it.total != before - discount or it.total < 0:
            problems.append(f"item {it.line}: total {it.total} != {before} - {discount}")
    subtotal = sum((i.total for i in r.items), Decimal(0))
    if r.subtotal != subtotal:
        problems.append(f"subtotal {r.subtotal} != {subtotal}")
    discounts = sum((i.discount.amount for i in r.items if i.discount), Decimal(0))
    if r.discount_total != discounts:
        problems.append(f"discount_total {r.discount_total} != {discounts}")
    if r.taxes != receipt_taxes(r.items, r.tax_inclusive, r.currency):
        problems.append("tax lines do not match the items' rates")
    tax_total = sum((t.amount for t in r.taxes), Decimal(0))
    if r.tax_total != tax_total:
        problems.append(f"tax_total {r.tax_total} != {tax_total}")
    total = subtotal if r.tax_inclusive else subtotal + tax_total
    if r.total != total:
        problems.append(f"total {r.total} != {total}")
    count = sum((int(i.quantity) if i.quantity_places == 0 else 1 for i in r.items), 0)
    if r.item_count != count:
        problems.append(f"item_count {r.item_count} != {count}")
    if r.payment_method not in PAYMENT_METHODS:
        problems.append(f"unknown payment method {r.payment_method}")
    if r.rounding and (r.payment_method != "cash" or abs(r.rounding) >= Decimal("0.05")
                       or r.amount_due % Decimal("0.05")):
        problems.append(f"rounding {r.rounding} is not a cash rounding to 0.05")
    if r.change != r.tendered - r.amount_due or r.change < 0:
        problems.append(f"change {r.change} != tendered {r.tendered} - due {r.amount_due}")
    if r.payment_method != "cash" and (r.tendered != r.total or not r.card_last4):
        problems.append("a non-cash payment must tender the exact total with a card")
    if r.loyalty is not None and not 0 <= r.loyalty.points <= r.loyalty.balance:
        problems.append(f"loyalty points {r.loyalty.points} / balance {r.loyalty.balance}")
    money = [r.subtotal, r.discount_total, r.tax_total, r.total, r.tendered, r.change,
             r.rounding]
    money += [t.amount for t in r.taxes] + [t.base for t in r.taxes]
    money += [i.total for i in r.items] + [i.amount for i in r.items]
    if any(m != q(m) for m in money):
        problems.append("an amount is not exact to the currency's minor unit")
    if problems:
        raise ReconciliationError(f"receipt {r.receipt_number} (document {r.document}) does "
                                  f"not reconcile: {'; '.join(problems)}")
