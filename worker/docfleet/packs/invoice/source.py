"""The invoice :class:`DocumentSource`: ``generate(run_id, index)`` → :class:`Invoice`.

Every draw comes from ``document_rng(run_id, index)`` (and a Faker seeded from it), in a
fixed order, so an index yields the same invoice in every process and on every machine
with the same library versions.
"""

from __future__ import annotations

import datetime as dt
import random
from decimal import Decimal
from functools import cache

from faker import Faker

from docfleet.packs.invoice.locales import JURISDICTIONS, US_STATE_RATES, Jurisdiction
from docfleet.packs.invoice.options import InvoiceOptions
from docfleet.packs.invoice.products import PRODUCT_LINES, UNITS, Product
from docfleet.packs.invoice.records import (
    Invoice,
    LineItem,
    Party,
    build_line,
    cents,
    tax_lines,
)
from docfleet.seeding import document_rng, document_seed
from docfleet.splits import assign_groups, split_of
from docfleet.telemetry import traced

FIRST_DAY = dt.date(2023, 1, 1)
DAYS = 3 * 365
DISCOUNTS = (Decimal(5), Decimal(10), Decimal("12.5"), Decimal(15))


@cache
def _faker(locale: str) -> Faker:
    return Faker(locale)


def _pick(rng: random.Random, mix: dict[str, float]) -> str:
    keys = list(mix)
    return rng.choices(keys, weights=[mix[k] for k in keys])[0]


def _digits(rng: random.Random, n: int) -> str:
    return "".join(str(rng.randrange(10)) for _ in range(n))


def _tax_id(rng: random.Random, jur: Jurisdiction) -> str:
    if jur.locale == "en-US":
        return f"{_digits(rng, 2)}-{_digits(rng, 7)}"
    if jur.locale == "en-GB":
        return f"GB {_digits(rng, 3)} {_digits(rng, 4)} {_digits(rng, 2)}"
    if jur.locale == "fr-FR":
        return f"FR{_digits(rng, 2)} {_digits(rng, 3)} {_digits(rng, 3)} {_digits(rng, 3)}"
    return f"DE{_digits(rng, 9)}"


def _address(fake: Faker, jur: Jurisdiction, state: str | None) -> tuple[str, ...]:
    street = tuple(s.strip() for s in fake.street_address().split("\n") if s.strip())
    if jur.locale == "en-US":
        assert state is not None
        return (*street, f"{fake.city()}, {state} {fake.zipcode_in_state(state)}")
    if jur.locale == "en-GB":
        return (*street, fake.city(), fake.postcode())
    return (*street, f"{fake.postcode()} {fake.city()}")


def _party(rng: random.Random, fake: Faker, jur: Jurisdiction, *, seller: bool,
           state: str | None) -> Party:
    company = seller or rng.random() < 0.8
    name = fake.company() if company else fake.name()
    address = _address(fake, jur, state)
    tax_id = _tax_id(rng, jur) if company and (seller or jur.locale != "en-US") else None
    phone = fake.phone_number()
    email = fake.company_email() if company else fake.free_email()
    iban = bic = account = None
    if seller:
        if jur.locale == "en-US":
            account = f"ABA {fake.aba()} · Acct {_digits(rng, 10)}"
        else:
            iban = _group_iban(fake.iban())
            bic = fake.swift(length=8 if rng.random() < 0.5 else 11)
    return Party(name, address, tax_id, phone, email, iban, bic, account)


def _group_iban(iban: str) -> str:
    return " ".join(iban[i:i + 4] for i in range(0, len(iban), 4))


def _line_count(rng: random.Random, options: InvoiceOptions) -> int:
    if options.lines:
        return rng.randint(*options.lines)
    if rng.random() < 0.12:
        return rng.randint(14, 45)
    return rng.randint(1, 10)


def _quantity(rng: random.Random, product: Product) -> tuple[Decimal, int]:
    lo, hi = product.quantity
    spread = rng.random() ** 2
    if product.pricing == "metered":
        raw = Decimal(lo) + (Decimal(hi - lo) * Decimal(str(round(spread, 6))))
        quantity = raw.quantize(Decimal("0.001"))
        return max(quantity, Decimal("0.001")), 3
    return Decimal(lo + int((hi - lo) * spread)), 0


def _unit_price(rng: random.Random, product: Product, quantity: Decimal) -> tuple[Decimal, int]:
    if product.pricing == "tiered":
        price = Decimal(product.tiers[0][1])
        for minimum, tier_price in product.tiers:
            if quantity >= minimum:
                price = Decimal(tier_price)
        return price, 2
    lo, hi = (Decimal(p) for p in product.price)
    places = 4 if product.pricing == "metered" else 2
    step = Decimal(1).scaleb(-places)
    steps = int((hi - lo) / step)
    price = lo + step * rng.randint(0, steps)
    if places == 2 and rng.random() < 0.5:  # prices like 24.90, 139.00
        price = cents(price).quantize(Decimal("0.1"))
    return price.quantize(step), places


def _invoice_number(rng: random.Random, issue: dt.date) -> str:
    style = rng.randrange(4)
    if style == 0:
        return f"INV-{issue.year}-{_digits(rng, 6)}"
    if style == 1:
        return f"F{issue.year}{issue.month:02d}-{_digits(rng, 4)}"
    if style == 2:
        return f"RE-{_digits(rng, 5)}"
    return f"{rng.randint(1000, 99999)}"


class InvoiceSource:
    """Deterministic invoice records for one run's options."""

    def __init__(self, options: InvoiceOptions) -> None:
        self.options = options
        self._template_splits = assign_groups(options.archetypes, options.splits) \
            if options.split_by == "template" else {}
        self.catalogue = None
        if options.catalogue:
            from docfleet.catalogue.artifact import Catalogue

            self.catalogue = Catalogue.load(options.catalogue)

    def _description(self, product: Product, line_key: str, jur: Jurisdiction, run_id: str,
                     index: int, number: int) -> str:
        """The line's description: from the catalogue when one is given and holds text
        for (product line, locale) — drawn by a seed of its own, so the record's other
        draws are the same with or without a catalogue — else the product's name."""
        if self.catalogue is not None:
            seed = document_seed(run_id, index) ^ number
            text = self.catalogue.pick("description", jur.locale, seed, line=line_key)
            if text:
                return text
        return product.names[jur.language]

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
        opts = self.options
        locale = _pick(rng, opts.locales)
        archetype = _pick(rng, opts.archetypes)
        condition = _pick(rng, opts.conditions)
        jur = JURISDICTIONS[locale]
        fake = _faker(jur.faker_locale)
        fake.seed_instance(rng.getrandbits(64))
        state = rng.choice(sorted(US_STATE_RATES)) if locale == "en-US" else None
        seller = _party(rng, fake, jur, seller=True, state=state)
        buyer_state = rng.choice(sorted(US_STATE_RATES)) if locale == "en-US" else None
        buyer = _party(rng, fake, jur, seller=False, state=buyer_state)
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
            quantity, qplaces = _quantity(rng, product)
            price, pplaces = _unit_price(rng, product, quantity)
            discount = rng.choice(DISCOUNTS) if rng.random() < 0.2 else Decimal(0)
            variant = f"{product.code}-{rng.randint(100, 999)}"
            lines.append(build_line(
                number, variant,
                self._description(product, product_line.key, jur, run_id, index, number),
                product.pricing, quantity,
                qplaces, UNITS[product.unit][jur.language], price, pplaces, discount,
                rates[product.tax_class],
            ))
        items = tuple(lines)
        taxes = tax_lines(items)
        subtotal = sum((i.net_amount for i in items), Decimal(0))
        tax_total = sum((t.amount for t in taxes), Decimal(0))
        issue = FIRST_DAY + dt.timedelta(days=rng.randrange(DAYS))
        days = rng.choice((14, 30, 30, 45, 60))
        number = _invoice_number(rng, issue)
        po = f"PO-{_digits(rng, 6)}" if rng.random() < 0.5 else None
        return Invoice(
            document=index, invoice_number=number, archetype=archetype, locale=locale,
            condition=condition, format=opts.format, currency=jur.currency, issue_date=issue,
            due_date=issue + dt.timedelta(days=days), po_number=po, seller=seller,
            buyer=buyer, product_line=product_line.key, lines=items, taxes=taxes,
            subtotal=subtotal,
            discount_total=sum((i.discount_amount for i in items), Decimal(0)),
            tax_total=tax_total, total=subtotal + tax_total, payment_days=days,
            style_seed=rng.getrandbits(32),
            split=self.split(index, archetype, seller),
        )
