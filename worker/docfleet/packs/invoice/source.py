"""The invoice :class:`DocumentSource`: ``generate(run_id, index)`` → :class:`Invoice`.

Every draw comes from ``document_rng(run_id, index)`` (and a Faker seeded from it), in a
fixed order, so an index yields the same invoice in every process and on every machine
with the same library versions.
"""

from __future__ import annotations

import datetime as dt
import random
import unicodedata
from decimal import Decimal
from functools import cache
from typing import Any

from faker import Faker

from docfleet.core.seeding import document_rng, document_seed
from docfleet.dataset.splits import assign_groups, split_of
from docfleet.packs.invoice import identifiers
from docfleet.packs.invoice.locales import JURISDICTIONS, US_STATE_RATES, Jurisdiction
from docfleet.packs.invoice.options import InvoiceOptions, choose
from docfleet.packs.invoice.products import PRODUCT_LINES, UNIT_PLACES, UNITS, Product
from docfleet.packs.invoice.records import (
    Invoice,
    LineItem,
    Party,
    build_line,
    cents,
    tax_lines,
)
from docfleet.telemetry import traced

FIRST_DAY = dt.date(2023, 1, 1)
DAYS = 3 * 365
DISCOUNTS = (Decimal(5), Decimal(10), Decimal("12.5"), Decimal(15))


@cache
def _faker(locale: str) -> Faker:
    """One Faker per locale. Arabic names lose their harakat (vowel marks: تمّام → تمام),
    as business documents print them; the name lists keep their length and order, so
    every draw picks the same name."""
    fake = Faker(locale)
    if locale.startswith("ar"):
        for provider in fake.providers:
            for attr in ("first_names", "first_names_male", "first_names_female",
                         "last_names", "prefixes_male", "prefixes_female"):
                names = getattr(provider, attr, None)
                if isinstance(names, tuple | list):
                    setattr(provider, attr, tuple(_plain(n) for n in names))
    return fake


def _plain(text: str) -> str:
    return "".join(c for c in text if not unicodedata.combining(c))


def _digits(rng: random.Random, n: int) -> str:
    return "".join(str(rng.randrange(10)) for _ in range(n))


#: unit prices are drawn in "USD-like" ranges and scaled into the currency
PRICE_SCALE: dict[str, Decimal] = {"JPY": Decimal(150)}
#: USD per unit, for the converted totals of multi-currency invoices
USD_PER_UNIT: dict[str, Decimal] = {
    "USD": Decimal(1), "EUR": Decimal("1.08"), "GBP": Decimal("1.27"), "CHF": Decimal("1.12"),
    "AUD": Decimal("0.66"), "CAD": Decimal("0.74"), "JPY": Decimal("0.0067"),
    "SAR": Decimal("0.2667"),
}
SA_STREETS = ("طريق الملك فهد", "شارع العليا", "طريق الملك عبدالعزيز", "شارع التحلية",
              "طريق الأمير سلطان", "شارع الأمير محمد بن عبدالعزيز", "طريق الدمام")
SA_DISTRICTS = ("حي العليا", "حي الملز", "حي الروضة", "حي النخيل", "حي السليمانية",
                "حي الشاطئ", "حي الفيصلية")
SA_CITIES = ("الرياض", "جدة", "الدمام", "مكة المكرمة", "الخبر", "المدينة المنورة")
REASONS: dict[str, tuple[str, ...]] = {
    "en": ("Goods returned", "Price correction", "Damaged in transit", "Duplicate billing"),
    "fr": ("Retour de marchandise", "Correction de prix", "Avarie de transport"),
    "de": ("Warenrücksendung", "Preiskorrektur", "Transportschaden", "Doppelte Berechnung"),
    "ja": ("返品", "価格訂正", "輸送中の破損"),
    "ar": ("إرجاع بضاعة", "تصحيح السعر", "تلف أثناء النقل"),
}
CREDIT_PREFIX = {"en": "CN", "fr": "AV", "de": "GS", "ja": "HN", "ar": "CN"}


def _address(fake: Faker, jur: Jurisdiction, state: str | None,
             rng: random.Random) -> tuple[str, ...]:
    if jur.locale == "ja-JP":
        block = f"{fake.prefecture()}{fake.city()}{fake.town()}{fake.chome()}{fake.ban()}" \
                f"{fake.gou()}"
        building = f"{fake.building_name()}{rng.randint(101, 999)}"
        return (f"〒{fake.zipcode()}", block, building)
    if jur.locale == "ar-SA":
        return (f"{rng.randint(1000, 9999)} {rng.choice(SA_STREETS)}، "
                f"{rng.choice(SA_DISTRICTS)}",
                f"{rng.choice(SA_CITIES)} {rng.randint(11000, 34999)}")
    street = tuple(s.strip() for s in fake.street_address().split("\n") if s.strip())
    if jur.locale in ("en-AU", "en-CA"):
        region = fake.state_abbr() if jur.locale == "en-AU" else fake.province_abbr()
        return (*street, f"{fake.city()} {region} {fake.postcode()}")
    if jur.locale == "en-US":
        assert state is not None
        return (*street, f"{fake.city()}, {state} {fake.zipcode_in_state(state)}")
    if jur.locale == "en-GB":
        return (*street, fake.city(), fake.postcode())
    return (*street, f"{fake.postcode()} {fake.city()}")


def _party(rng: random.Random, fake: Faker, jur: Jurisdiction, *, seller: bool,
           state: str | None) -> tuple[Party, str | None]:
    """The party and its second registration number (French SIRET) if it has one."""
    company = seller or rng.random() < 0.8
    name = identifiers.company_name(rng, fake.last_name(), jur.locale) if company \
        else fake.name()
    address = _address(fake, jur, state, rng)
    tax_id = registration = None
    if company and (seller or jur.locale not in ("en-US", "en-CA", "en-AU")):
        tax_id, registration = identifiers.tax_id(rng, jur.locale)
    phone = identifiers.phone(rng, jur.locale)
    email = fake.company_email() if company else fake.free_email()
    iban = bic = account = None
    if seller:
        if jur.locale == "en-US":
            account = f"ABA {fake.aba()} · Acct {_digits(rng, 10)}"
        elif jur.locale == "en-AU":
            account = f"BSB {_digits(rng, 3)}-{_digits(rng, 3)} · Acct {_digits(rng, 8)}"
        elif jur.locale == "en-CA":
            account = f"Transit {_digits(rng, 5)} · Inst 00{rng.randint(1, 9)} · " \
                      f"Acct {_digits(rng, 7)}"
        elif jur.locale == "ja-JP":
            bank = rng.choice(("三菱UFJ銀行", "みずほ銀行", "三井住友銀行", "りそな銀行"))
            account = f"{bank} {rng.choice(('本店', '新宿支店', '梅田支店'))} " \
                      f"普通 {_digits(rng, 7)}"
        elif jur.locale == "ar-SA":
            number, bic = identifiers.sa_iban(rng)
            iban = _group_iban(number)
        else:
            iban = _group_iban(fake.iban())
            bic = fake.swift(length=8 if rng.random() < 0.5 else 11)
    return Party(name, address, tax_id, phone, email, iban, bic, account), registration


def _group_iban(iban: str) -> str:
    return " ".join(iban[i:i + 4] for i in range(0, len(iban), 4))


def _line_count(rng: random.Random, options: InvoiceOptions) -> int:
    if options.lines:
        return rng.randint(*options.lines)
    if rng.random() < 0.12:
        return rng.randint(14, 45)
    return rng.randint(1, 10)


def _quantity(rng: random.Random, product: Product) -> tuple[Decimal, int]:
    """A quantity with the decimals its unit prints: pieces, boxes, seats are whole."""
    lo, hi = product.quantity
    spread = rng.random() ** 2
    places = UNIT_PLACES[product.unit]
    if product.pricing == "metered" and places:
        step = Decimal(1).scaleb(-places)
        raw = Decimal(lo) + (Decimal(hi - lo) * Decimal(str(round(spread, 6))))
        return max(raw.quantize(step), step), places
    return Decimal(lo + int((hi - lo) * spread)), 0


def _unit_price(rng: random.Random, product: Product, quantity: Decimal,
                jur: Jurisdiction) -> tuple[Decimal, int]:
    scale = PRICE_SCALE.get(jur.currency, Decimal(1))
    whole = jur.places == 0
    if product.pricing == "tiered":
        price = Decimal(product.tiers[0][1])
        for minimum, tier_price in product.tiers:
            if quantity >= minimum:
                price = Decimal(tier_price)
        if scale != 1:
            price = cents(price * scale, 0 if whole else 2)
        return price, 0 if whole else 2
    lo, hi = (Decimal(p) * scale for p in product.price)
    places = 4 if product.pricing == "metered" else 2
    if whole:
        places = 2 if product.pricing == "metered" else 0
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
        opts = self.options
        locale, archetype, condition = choose(
            rng, index, {"locales": opts.locales, "archetypes": opts.archetypes,
                         "conditions": opts.conditions}, opts.cover)
        jur = JURISDICTIONS[locale]
        fake = _faker(jur.faker_locale)
        fake.seed_instance(rng.getrandbits(64))
        state = rng.choice(sorted(US_STATE_RATES)) if locale == "en-US" else None
        seller, registration = _party(rng, fake, jur, seller=True, state=state)
        buyer_state = rng.choice(sorted(US_STATE_RATES)) if locale == "en-US" else None
        buyer, _ = _party(rng, fake, jur, seller=False, state=buyer_state)
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
            price, pplaces = _unit_price(rng, product, quantity, jur)
            discount = rng.choice(DISCOUNTS) if rng.random() < 0.2 else Decimal(0)
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
        po = f"PO-{_digits(rng, 6)}" if rng.random() < 0.5 else None
        total = subtotal + tax_total
        extra: dict[str, Any] = {}
        if archetype == "credit_note":
            extra = {"document_type": "credit_note", "original_invoice": invoice_number,
                     "reason": rng.choice(REASONS[jur.language])}
            invoice_number = f"{CREDIT_PREFIX[jur.language]}-{issue.year}-{_digits(rng, 5)}"
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
            split=self.split(index, archetype, seller),
            **extra,
        )
