"""The purchase-order :class:`DocumentSource`: ``generate(run_id, index)`` →
:class:`PurchaseOrder`, every draw from ``document_rng(run_id, index)`` in a fixed order.
Goods come from the SDK's product lines (metered services excluded: nobody orders kWh on
a PO); quantities and agreed prices use its rules."""

from __future__ import annotations

import datetime as dt
import random
from decimal import Decimal

from docfleet.core.seeding import document_rng, document_seed
from docfleet.packs.purchase_order.extras import draw_extras
from docfleet.packs.purchase_order.records import (
    INCOTERMS,
    OrderLine,
    PurchaseOrder,
    order_taxes,
)
from docfleet.packs.sdk.locales import JURISDICTIONS, US_STATE_RATES
from docfleet.packs.sdk.money import round_money
from docfleet.packs.sdk.options import PackOptions, kinds
from docfleet.packs.sdk.parties import (
    SA_CITIES,
    address,
    party,
    pooled_party,
    seeded_faker,
)
from docfleet.packs.sdk.products import (
    PRODUCT_LINES,
    UNITS,
    Product,
    draw_quantity,
    draw_unit_price,
)
from docfleet.packs.sdk.telemetry import traced
from docfleet.packs.sdk.text import digits, fit, fit_lines, fit_whole

FIRST_DAY = dt.date(2023, 1, 1)
DAYS = 3 * 365
ORDERABLE = tuple(
    (line, tuple(p for p in line.products if p.pricing != "metered"))
    for line in PRODUCT_LINES
    if sum(p.pricing != "metered" for p in line.products) >= 2
)


def _po_number(rng: random.Random, day: dt.date) -> str:
    style = rng.randrange(3)
    if style == 0:
        return f"PO-{day.year}-{digits(rng, 5)}"
    if style == 1:
        return f"45{digits(rng, 8)}"
    return f"B{day.strftime('%y%m')}-{digits(rng, 4)}"


def _place(city: str, locale: str, content: int, seed: int) -> str:
    """The delivery place: from content 3 an ar-SA order names a Saudi city (Faker's
    ar-SA cities glue English suffixes to Arabic names)."""
    if content >= 3 and locale == "ar-SA":
        return random.Random(seed ^ 0x0E3C).choice(SA_CITIES)
    return city


class PurchaseOrderSource:
    """Deterministic purchase orders for one run's options."""

    def __init__(self, options: PackOptions) -> None:
        self.options = options

    @traced("docfleet.render.record", lambda self, run_id, index: {
        "docfleet.document.index": index})
    def generate(self, run_id: str, index: int) -> PurchaseOrder:
        rng = document_rng(run_id, index)
        opts = self.options
        locale, archetype, condition = kinds(rng, index, opts)
        jur = JURISDICTIONS[locale]
        lang = jur.language
        fake = seeded_faker(rng, jur)
        state = rng.choice(sorted(US_STATE_RATES)) if locale == "en-US" else None
        buyer, _ = party(rng, fake, jur, seller=True, state=state)
        supplier, _ = party(rng, fake, jur, seller=True,
                          state=rng.choice(sorted(US_STATE_RATES)) if state else None)
        if opts.content >= 3:  # buyers issue many orders, to suppliers they use again
            buyer = pooled_party(run_id, jur, index, "buyer", state)[0]
            supplier = pooled_party(run_id, jur, index, "supplier")[0]
        street = address(fake, jur, state, rng)
        if opts.content >= 3:  # never a cut street or a line ending on a bound word
            ship_to = (fit_whole(buyer.name, 44), *fit_lines(street, 44))
        else:
            ship_to = (fit(f"{buyer.name}", 44), *(fit(a, 44) for a in street))
        rates = dict(jur.rates)
        if state is not None:
            rates = {"standard": US_STATE_RATES[state], "reduced": Decimal(0),
                     "zero": Decimal(0)}
        product_line, products = rng.choice(ORDERABLE)
        pool: list[Product] = list(products)
        rng.shuffle(pool)
        count = rng.randint(*opts.lines) if opts.lines else (
            rng.randint(1, 8) if rng.random() < 0.85 else rng.randint(14, 40))
        issue = FIRST_DAY + dt.timedelta(days=rng.randrange(DAYS))
        lead = rng.choice((7, 10, 14, 21, 28, 30, 45))
        lines = []
        q = lambda v: round_money(v, jur.currency)  # noqa: E731
        for number in range(1, count + 1):
            product = pool[(number - 1) % len(pool)]
            quantity, qplaces = draw_quantity(rng, product)
            price, pplaces = draw_unit_price(rng, product, quantity, jur)
            if jur.currency == "JPY" and opts.content < 5:  # scaled twice (kept as printed)
                price, pplaces = (price * 150).quantize(Decimal(1)), 0
            requested = issue + dt.timedelta(days=lead + rng.choice((0, 0, 0, 7, 14)))
            lines.append(OrderLine(
                number, f"{product.code}-{rng.randint(100, 999)}",
                product.names.get(lang, product.names["en"]), quantity, qplaces,
                UNITS[product.unit].get(lang, UNITS[product.unit]["en"]), price, pplaces,
                q(quantity * price), rates[product.tax_class], requested))
        items = tuple(lines)
        taxes = order_taxes(items, jur.currency)
        subtotal = sum((i.amount for i in items), Decimal(0))
        tax_total = sum((t.amount for t in taxes), Decimal(0))
        extras = None
        if opts.content >= 3:  # a stream of its own: the draws above do not move
            extras = draw_extras(random.Random(document_seed(run_id, index) ^ 0x0E3A),
                                 subtotal + tax_total, jur.currency)
        return PurchaseOrder(
            document=index, po_number=_po_number(rng, issue), archetype=archetype,
            locale=locale, condition=condition, format=opts.format, currency=jur.currency,
            issue_date=issue, buyer=buyer, supplier=supplier,
            supplier_number=f"V{digits(rng, 6)}", ship_to=ship_to,
            contact=fit(fake.name(), 30), incoterm=rng.choice(INCOTERMS),
            delivery_place=_place(fit(fake.city(), 24), locale, opts.content,
                                  document_seed(run_id, index)),
            delivery_date=max(i.requested_date for i in items),
            payment_days=rng.choice((14, 30, 30, 45, 60, 90)), product_line=product_line.key,
            lines=items, taxes=taxes, subtotal=subtotal, tax_total=tax_total,
            total=subtotal + tax_total, style_seed=rng.getrandbits(32),
            content=self.options.content, extras=extras,
        )
