"""The invoice :class:`DocumentSource`: ``generate(run_id, index)`` → :class:`Invoice`.

Every draw comes from ``document_rng(run_id, index)`` (and a Faker seeded from it), in a
fixed order, so an index yields the same invoice in every process and on every machine
with the same library versions.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import random
from decimal import Decimal
from typing import Any

from docfleet.core.seeding import document_rng, document_seed
from docfleet.packs.invoice.options import InvoiceOptions
from docfleet.packs.invoice.records import Invoice, LineItem, build_line, tax_lines
from docfleet.packs.sdk.banking import with_rib_key
from docfleet.packs.sdk.catalogue import load_catalogue
from docfleet.packs.sdk.locales import JURISDICTIONS, US_STATE_RATES, Jurisdiction
from docfleet.packs.sdk.money import cents, round_money
from docfleet.packs.sdk.options import choose
from docfleet.packs.sdk.parties import Party, group_iban, party, pooled_party, seeded_faker
from docfleet.packs.sdk.products import (
    PRODUCT_LINES,
    UNITS,
    Product,
    draw_quantity,
    draw_unit_price,
)
from docfleet.packs.sdk.splits import assign_groups, split_of
from docfleet.packs.sdk.telemetry import traced
from docfleet.packs.sdk.text import digits

FIRST_DAY = dt.date(2023, 1, 1)
DAYS = 3 * 365
DISCOUNTS = (Decimal(5), Decimal(10), Decimal("12.5"), Decimal(15))


#: USD per unit, for the converted totals of multi-currency invoices
USD_PER_UNIT: dict[str, Decimal] = {
    "USD": Decimal(1), "EUR": Decimal("1.08"), "GBP": Decimal("1.27"), "CHF": Decimal("1.12"),
    "AUD": Decimal("0.66"), "CAD": Decimal("0.74"), "JPY": Decimal("0.0067"),
    "SAR": Decimal("0.2667"),
}
REASONS: dict[str, tuple[str, ...]] = {
    "en": ("Goods returned", "Price correction", "Damaged in transit", "Duplicate billing"),
    "fr": ("Retour de marchandise", "Correction de prix", "Avarie de transport"),
    "de": ("Warenrücksendung", "Preiskorrektur", "Transportschaden", "Doppelte Berechnung"),
    "ja": ("返品", "価格訂正", "輸送中の破損"),
    "ar": ("إرجاع بضاعة", "تصحيح السعر", "تلف أثناء النقل"),
}
CREDIT_PREFIX = {"en": "CN", "fr": "AV", "de": "GS", "ja": "HN", "ar": "CN"}


def _line_count(rng: random.Random, options: InvoiceOptions) -> int:
    if options.lines:
        return rng.randint(*options.lines)
    if rng.random() < 0.12:
        return rng.randint(14, 45)
    return rng.randint(1, 10)


def _invoice_number(rng: random.Random, issue: dt.date) -> str:
    style = rng.randrange(4)
    if style == 0:
        return f"INV-{issue.year}-{digits(rng, 6)}"
    if style == 1:
        return f"F{issue.year}{issue.month:02d}-{digits(rng, 4)}"
    if style == 2:
        return f"RE-{digits(rng, 5)}"
    return f"{rng.randint(1000, 99999)}"


def pooled_seller(run_id: str, jur: Jurisdiction, index: int
                  ) -> tuple[Party, str | None, str | None]:
    """Content 2: document ``index``'s seller from the run's long-tail pool for the
    locale (:func:`docfleet.packs.sdk.parties.pooled_party`)."""
    return pooled_party(run_id, jur, index, "seller")


def _account(rng: random.Random, total: Decimal, currency: str) -> dict[str, Any]:
    """Of content-2 invoices, 34 % carry an account summary (a previous balance of 0.3-3x
    this invoice's total, paid in full, in part or not yet) and 20 % are an instalment of
    a contract."""
    draw = rng.random()
    if draw >= 0.34:
        if draw < 0.34 + 0.2:  # an instalment of a contract instead (a service, a lease)
            n = rng.choice((3, 4, 6, 10, 12, 12, 24, 36))
            return {"instalment": rng.randint(1, n), "instalments": n}
        return {}
    previous = round_money(total * Decimal(rng.randint(30, 300)) / 100, currency)
    paid = previous * rng.choice((Decimal(1), Decimal(1), Decimal("0.5"), Decimal(0)))
    return {"previous_balance": previous, "payments_received": round_money(paid, currency)}


class InvoiceSource:
    """Deterministic invoice records for one run's options."""

    def __init__(self, options: InvoiceOptions) -> None:
        self.options = options
        self._template_splits = assign_groups(options.archetypes, options.splits) \
            if options.split_by == "template" else {}
        self.catalogue = None
        if options.catalogue:
            self.catalogue = load_catalogue(options.catalogue)

    def _description(self, product: Product, line_key: str, jur: Jurisdiction, run_id: str,
                     index: int, number: int) -> str:
        """The line's description: from the catalogue when one is given and holds text
        for (product line, locale), else composed from the product's taxonomy — either
        way drawn by a seed of its own, so the record's other draws are the same with or
        without a catalogue."""
        seed = document_seed(run_id, index) ^ number
        if self.catalogue is not None:
            text = self.catalogue.pick("description", jur.locale, seed, line=line_key)
            if text:
                return text
        return product.describe(jur.language, random.Random(seed ^ 0xDE5C))

    def _text(self, kind: str, line_key: str, jur: Jurisdiction, run_id: str,
              index: int) -> str | None:
        """A catalogue text of ``kind`` (tagline, payment_terms, note) or None."""
        if self.catalogue is None:
            return None
        seed = document_seed(run_id, index) ^ {"tagline": 0x7A61, "payment_terms": 0x7E55,
                                               "note": 0x4E07}[kind]
        return self.catalogue.pick(kind, jur.locale, seed, line=line_key)

    def split(self, index: int, archetype: str, seller: Party) -> str:
        """The document's split under the run's ``splits`` / ``split_by`` options."""
        by = self.options.split_by
        if by == "template":
            return self._template_splits[archetype]
        key = seller.name.casefold() if by == "seller" else str(index)
        return split_of(key, self.options.splits, by)

    @traced("docfleet.render.record", lambda self, run_id, index: {
        "docfleet.document.index": index})
    def generate(self, run_id: str, index: int) -> Invoice:
        rng = document_rng(run_id, index)
        # content 2: a third of sellers discount lines (a stream of its own: the record's
        # other draws are version 1's)
        discounting = self.options.content < 2 or \
            random.Random(f"{run_id}:{index}:discounts").random() < 0.35
        opts = self.options
        locale, archetype, condition = choose(
            rng, index, {"locales": opts.locales, "archetypes": opts.archetypes,
                         "conditions": opts.conditions}, opts.cover)
        jur = JURISDICTIONS[locale]
        fake = seeded_faker(rng, jur)
        state = rng.choice(sorted(US_STATE_RATES)) if locale == "en-US" else None
        seller, registration = party(rng, fake, jur, seller=True, state=state)
        if opts.content >= 2:  # real sellers issue many invoices: a per-run long tail
            seller, registration, state = pooled_seller(run_id, jur, index)
        if opts.content >= 3 and seller.iban:  # a French IBAN with its valid RIB key
            seller = dataclasses.replace(
                seller, iban=group_iban(with_rib_key(seller.iban.replace(" ", ""))))
        buyer_state = rng.choice(sorted(US_STATE_RATES)) if locale == "en-US" else None
        buyer, _ = party(rng, fake, jur, seller=False, state=buyer_state)
        rates = dict(jur.rates)
        if state is not None:
            rates["standard"] = US_STATE_RATES[state]
            rates["reduced"] = Decimal(0)
        product_line = rng.choice(PRODUCT_LINES)
        products = list(product_line.products)
        rng.shuffle(products)
        lines: list[LineItem] = []
        for number in range(1, _line_count(rng, opts) + 1):
            product = products[(number - 1) % len(products)] if number <= len(products) \
                else rng.choice(products)
            quantity, qplaces = draw_quantity(rng, product)
            price, pplaces = draw_unit_price(rng, product, quantity, jur)
            discount = rng.choice(DISCOUNTS) if rng.random() < 0.2 else Decimal(0)
            if not discounting:
                discount = Decimal(0)
            variant = f"{product.code}-{rng.randint(100, 999)}"
            lines.append(build_line(
                number, variant,
                self._description(product, product_line.key, jur, run_id, index, number),
                product.pricing, quantity,
                qplaces, UNITS[product.unit][jur.language], price, pplaces, discount,
                rates[product.tax_class], jur.places,
            ))
        items = tuple(lines)
        taxes = tax_lines(items, jur.places)
        subtotal = sum((i.net_amount for i in items), Decimal(0))
        tax_total = sum((t.amount for t in taxes), Decimal(0))
        issue = FIRST_DAY + dt.timedelta(days=rng.randrange(DAYS))
        days = rng.choice((14, 30, 30, 45, 60))
        invoice_number = _invoice_number(rng, issue)
        po = f"PO-{digits(rng, 6)}" if rng.random() < 0.5 else None
        total = subtotal + tax_total
        extra: dict[str, Any] = {}
        if opts.content >= 2 and archetype != "credit_note":
            extra = _account(random.Random(f"{run_id}:{index}:account"), total, jur.currency)
        if archetype == "credit_note":
            extra = {"document_type": "credit_note", "original_invoice": invoice_number,
                     "reason": rng.choice(REASONS[jur.language])}
            invoice_number = f"{CREDIT_PREFIX[jur.language]}-{issue.year}-{digits(rng, 5)}"
        elif archetype == "multi_currency":
            targets = sorted(c for c in USD_PER_UNIT if c not in (jur.currency, "JPY"))
            fx = rng.choice(targets)
            jitter = Decimal(1) + Decimal(rng.randint(-300, 300)) / 10000
            rate = (USD_PER_UNIT[jur.currency] / USD_PER_UNIT[fx] * jitter).quantize(
                Decimal("0.000001") if jur.currency == "JPY" else Decimal("0.0001"))
            extra = {"fx_currency": fx, "fx_rate": rate, "fx_total": cents(total * rate)}
        return Invoice(
            document=index, invoice_number=invoice_number, archetype=archetype, locale=locale,
            condition=condition, format=opts.format, currency=jur.currency, issue_date=issue,
            due_date=issue + dt.timedelta(days=days), po_number=po, seller=seller,
            buyer=buyer, product_line=product_line.key, lines=items, taxes=taxes,
            subtotal=subtotal,
            discount_total=sum((i.discount_amount for i in items), Decimal(0)),
            tax_total=tax_total, total=total, payment_days=days,
            style_seed=rng.getrandbits(32), money_places=jur.places,
            seller_registration=registration,
            tagline=self._text("tagline", product_line.key, jur, run_id, index),
            terms=self._text("payment_terms", product_line.key, jur, run_id, index),
            note=self._text("note", product_line.key, jur, run_id, index),
            split=self.split(index, archetype, seller), content=opts.content,
            **extra,
        )
