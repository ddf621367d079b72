"""Purchase-order records: a buyer orders goods from a supplier at agreed prices, to be
delivered to a ship-to address under an Incoterms rule by requested dates.

A :class:`PurchaseOrder` refuses to exist unless it reconciles (ROUND_HALF_UP to the
currency's minor unit ``q``): ``amount = q(quantity x unit_price)`` per line;
``subtotal = Σ amount``; per rate ``base = Σ amount``, ``tax = q(base x rate / 100)``;
``total = subtotal + Σ tax``; every requested date on or after the order date.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal

from docfleet.packs.purchase_order.extras import OrderExtras
from docfleet.packs.sdk.money import ReconciliationError, round_money, unique_lines
from docfleet.packs.sdk.parties import Party

INCOTERMS = ("EXW", "FCA", "CPT", "CIP", "DAP", "DPU", "DDP", "FOB", "CIF")


@dataclass(frozen=True)
class OrderLine:
    line: int
    sku: str
    description: str
    quantity: Decimal
    quantity_places: int
    unit: str
    unit_price: Decimal  # agreed price
    price_places: int
    amount: Decimal
    tax_rate: Decimal
    requested_date: dt.date


@dataclass(frozen=True)
class OrderTax:
    rate: Decimal
    base: Decimal
    amount: Decimal


@dataclass(frozen=True)
class PurchaseOrder:
    """One purchase order as printed. Construction reconciles the money or raises."""

    document: int
    po_number: str
    archetype: str
    locale: str
    condition: str
    format: str
    currency: str
    issue_date: dt.date
    buyer: Party
    supplier: Party
    supplier_number: str  # the buyer's vendor number for the supplier
    ship_to: tuple[str, ...]
    contact: str  # the buyer's purchaser
    incoterm: str
    delivery_place: str
    delivery_date: dt.date  # requested for the whole order (latest line date)
    payment_days: int
    product_line: str
    lines: tuple[OrderLine, ...]
    taxes: tuple[OrderTax, ...]
    subtotal: Decimal
    tax_total: Decimal
    total: Decimal
    style_seed: int
    content: int = 1  # the run's content version (2: a drawn style, sdk.variation)
    extras: OrderExtras | None = None  # content 3: optional parts and look-alike amounts

    def __post_init__(self) -> None:
        reconcile(self)

    @property
    def file(self) -> str:
        return f"{self.document:06d}.{'html' if self.format == 'html' else 'pdf'}"


def order_taxes(lines: tuple[OrderLine, ...], currency: str) -> tuple[OrderTax, ...]:
    bases: dict[Decimal, Decimal] = {}
    for item in lines:
        bases[item.tax_rate] = bases.get(item.tax_rate, Decimal(0)) + item.amount
    return tuple(OrderTax(rate, base, round_money(base * rate / 100, currency))
                 for rate, base in sorted(bases.items()))


def reconcile(po: PurchaseOrder) -> None:
    """Recompute every amount; raise :class:`ReconciliationError` on any difference."""
    problems: list[str] = []
    q = lambda v: round_money(v, po.currency)  # noqa: E731
    if not po.lines:
        problems.append("no lines")
    if not unique_lines(po.lines):
        problems.append("lines are not numbered 1..n")
    for item in po.lines:
        if item.quantity <= 0 or item.unit_price < 0:
            problems.append(f"line {item.line}: quantity/price not positive")
        if item.amount != q(item.quantity * item.unit_price):
            problems.append(f"line {item.line}: amount {item.amount}")
        if item.requested_date < po.issue_date:
            problems.append(f"line {item.line}: requested before the order date")
    subtotal = sum((i.amount for i in po.lines), Decimal(0))
    if po.subtotal != subtotal:
        problems.append(f"subtotal {po.subtotal} != {subtotal}")
    if po.taxes != order_taxes(po.lines, po.currency):
        problems.append("tax lines do not match the lines' rates")
    tax_total = sum((t.amount for t in po.taxes), Decimal(0))
    if po.tax_total != tax_total:
        problems.append(f"tax_total {po.tax_total} != {tax_total}")
    if po.total != subtotal + tax_total:
        problems.append(f"total {po.total} != subtotal + tax")
    if po.lines and po.delivery_date != max(i.requested_date for i in po.lines):
        problems.append("delivery date is not the latest requested date")
    if po.incoterm not in INCOTERMS:
        problems.append(f"unknown Incoterms rule {po.incoterm}")
    money = [po.subtotal, po.tax_total, po.total, *(t.amount for t in po.taxes)]
    money += [i.amount for i in po.lines]
    if po.extras is not None:
        money += [m for m in po.extras.amounts().values() if m is not None]
        x = po.extras
        if x.blanket_value is not None and not (
                po.total <= (x.released_to_date or 0) <= x.blanket_value):
            problems.append("released to date is not between the total and the blanket value")
    if any(m != q(m) for m in money):
        problems.append("an amount is not exact to the currency's minor unit")
    if problems:
        raise ReconciliationError(f"purchase order {po.po_number} (document {po.document}) "
                                  f"does not reconcile: {'; '.join(problems)}")
