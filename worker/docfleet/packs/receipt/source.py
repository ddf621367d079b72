"""The receipt :class:`DocumentSource`: ``generate(run_id, index)`` → :class:`Receipt`.

Every draw comes from ``document_rng(run_id, index)`` (and a Faker seeded from it) in a
fixed order. Item names are at most 20 columns and every printed text is fitted to the
archetype's column budget, so a receipt row never wraps.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import random
import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from docfleet.core.seeding import document_rng
from docfleet.packs.receipt.layouts import ITEM_TABLE_COLUMNS, RECEIPT_LAYOUTS
from docfleet.packs.receipt.records import (
    Loyalty,
    Receipt,
    ReceiptItem,
    Store,
    build_item,
    receipt_taxes,
)
from docfleet.packs.receipt.variation import (
    ReceiptStyle,
    canonical_time,
    cash_rounding,
    draw_style,
)
from docfleet.packs.sdk.locales import JURISDICTIONS
from docfleet.packs.sdk.money import round_money
from docfleet.packs.sdk.options import PackOptions, kinds
from docfleet.packs.sdk.parties import party, pooled_party, seeded_faker
from docfleet.packs.sdk.telemetry import traced
from docfleet.packs.sdk.text import digits, fit, fit_lines, fit_whole, whole

FIRST_DAY = dt.date(2023, 1, 1)
DAYS = 3 * 365


@dataclass(frozen=True)
class Goods:
    names: dict[str, str]  # language → name (≤ 20 columns)
    price: tuple[str, str]
    tax_class: str = "standard"
    weighed: bool = False  # sold per kg
    modifiers: tuple[tuple[dict[str, str], str], ...] = ()  # (names, price)


#: English name → its Japanese and Arabic names (≤ 10 characters: wide ones count 2)
LOCAL_NAMES: dict[str, tuple[str, str]] = {
    "Cappuccino": ("カプチーノ", "كابتشينو"),
    "Latte macchiato": ("ラテマキアート", "لاتيه"),
    "Espresso": ("エスプレッソ", "إسبريسو"),
    "Flat white": ("フラットホワイト", "فلات وايت"),
    "Croissant": ("クロワッサン", "كرواسون"),
    "Blueberry muffin": ("ブルーベリーマフィン", "مافن توت"),
    "Ham sandwich": ("ハムサンド", "ساندويتش"),
    "Orange juice": ("オレンジジュース", "برتقال"),
    "Carrot cake": ("キャロットケーキ", "كيك جزر"),
    "Iced tea": ("アイスティー", "شاي مثلج"),
    "Bananas": ("バナナ", "موز"),
    "Apples Gala": ("りんご", "تفاح جالا"),
    "Tomatoes": ("トマト", "طماطم"),
    "Whole milk 1L": ("牛乳 1L", "حليب 1ل"),
    "Eggs x10": ("卵 10個", "بيض 10"),
    "Sourdough bread": ("食パン", "خبز"),
    "Butter 250g": ("バター 250g", "زبدة 250غ"),
    "Pasta 500g": ("パスタ 500g", "مكرونة 500غ"),
    "Olive oil 75cl": ("オリーブ油", "زيت زيتون"),
    "Dish soap": ("食器用洗剤", "سائل صحون"),
    "Paper towels x4": ("キッチンペーパー", "مناديل"),
    "Red wine 75cl": ("赤ワイン", "عصير عنب"),
    "Cheeseburger": ("チーズバーガー", "تشيز برجر"),
    "Caesar salad": ("シーザーサラダ", "سلطة سيزر"),
    "Margherita pizza": ("マルゲリータ", "بيتزا جبن"),
    "Fish and chips": ("フィッシュ＆チップス", "سمك وبطاطس"),  # noqa: RUF001
    "Soup of the day": ("本日のスープ", "شوربة"),
    "Sparkling water": ("炭酸水", "مياه غازية"),
    "Draft beer": ("生ビール", "مشروب شعير"),
    "Glass of wine": ("グラスワイン", "عصير تفاح"),
    "Tiramisu": ("ティラミス", "تيراميسو"),
    "Oat milk": ("オーツミルク", "حليب شوفان"),
    "Extra shot": ("ショット追加", "شوت إضافي"),
    "Vanilla syrup": ("バニラシロップ", "فانيلا"),
    "Extra cheese": ("チーズ追加", "جبن إضافي"),
    "Add bacon": ("ベーコン追加", "لحم مقدد"),
    "No onions": ("玉ねぎ抜き", "بدون بصل"),
    "Side fries": ("ポテト", "بطاطس"),
}


def _names(en: str, fr: str, de: str) -> dict[str, str]:
    ja, ar = LOCAL_NAMES[en]
    return {"en": en, "fr": fr, "de": de, "ja": ja, "ar": ar}


def _g(en: str, fr: str, de: str, lo: str, hi: str, **kw: Any) -> Goods:
    return Goods(_names(en, fr, de), (lo, hi), **kw)


MILK = (_names("Oat milk", "Lait d'avoine", "Hafermilch"), "0.50")
SHOT = (_names("Extra shot", "Shot en plus", "Extra Shot"), "0.80")
SYRUP = (_names("Vanilla syrup", "Sirop vanille", "Vanillesirup"), "0.60")
CHEESE = (_names("Extra cheese", "Supp. fromage", "Extra Käse"), "1.20")
BACON = (_names("Add bacon", "Supp. bacon", "Mit Speck"), "1.90")
NOONION = (_names("No onions", "Sans oignons", "Ohne Zwiebeln"), "0")
FRIES = (_names("Side fries", "Frites", "Pommes"), "2.50")

STORES: dict[str, tuple[Goods, ...]] = {
    "cafe": (
        _g("Cappuccino", "Cappuccino", "Cappuccino", "2.80", "4.20",
           modifiers=(MILK, SHOT, SYRUP)),
        _g("Latte macchiato", "Latte macchiato", "Latte Macchiato", "3.20", "4.60",
           modifiers=(MILK, SHOT, SYRUP)),
        _g("Espresso", "Espresso", "Espresso", "1.80", "2.60", modifiers=(SHOT,)),
        _g("Flat white", "Flat white", "Flat White", "3.00", "4.10", modifiers=(MILK,)),
        _g("Croissant", "Croissant", "Croissant", "1.40", "2.60", tax_class="reduced"),
        _g("Blueberry muffin", "Muffin myrtille", "Blaubeermuffin", "2.20", "3.40",
           tax_class="reduced"),
        _g("Ham sandwich", "Sandwich jambon", "Schinkenbrot", "4.20", "6.90",
           tax_class="reduced", modifiers=(CHEESE,)),
        _g("Orange juice", "Jus d'orange", "Orangensaft", "2.90", "4.50"),
        _g("Carrot cake", "Gâteau carottes", "Karottenkuchen", "3.10", "4.80",
           tax_class="reduced"),
        _g("Iced tea", "Thé glacé", "Eistee", "2.60", "3.90"),
    ),
    "grocery": (
        _g("Bananas", "Bananes", "Bananen", "1.19", "2.49", tax_class="reduced",
           weighed=True),
        _g("Apples Gala", "Pommes Gala", "Äpfel Gala", "1.99", "3.49", tax_class="reduced",
           weighed=True),
        _g("Tomatoes", "Tomates", "Tomaten", "2.49", "4.99", tax_class="reduced",
           weighed=True),
        _g("Whole milk 1L", "Lait entier 1L", "Vollmilch 1L", "0.89", "1.49",
           tax_class="reduced"),
        _g("Eggs x10", "Œufs x10", "Eier 10 St.", "2.19", "3.99", tax_class="reduced"),
        _g("Sourdough bread", "Pain au levain", "Sauerteigbrot", "2.40", "4.20",
           tax_class="reduced"),
        _g("Butter 250g", "Beurre 250g", "Butter 250g", "1.89", "2.99", tax_class="reduced"),
        _g("Pasta 500g", "Pâtes 500g", "Nudeln 500g", "0.99", "2.29", tax_class="reduced"),
        _g("Olive oil 75cl", "Huile d'olive 75cl", "Olivenöl 0,75L", "5.49", "9.99",
           tax_class="reduced"),
        _g("Dish soap", "Liquide vaisselle", "Spülmittel", "1.29", "2.99"),
        _g("Paper towels x4", "Essuie-tout x4", "Küchenrolle 4x", "2.49", "4.49"),
        _g("Red wine 75cl", "Vin rouge 75cl", "Rotwein 0,75L", "4.99", "14.99"),
    ),
    "restaurant": (
        _g("Cheeseburger", "Cheeseburger", "Cheeseburger", "8.50", "13.90",
           modifiers=(CHEESE, BACON, NOONION, FRIES)),
        _g("Caesar salad", "Salade César", "Caesar Salat", "7.90", "12.50",
           modifiers=(BACON,)),
        _g("Margherita pizza", "Pizza margherita", "Pizza Margherita", "7.50", "11.90",
           modifiers=(CHEESE,)),
        _g("Fish and chips", "Poisson frites", "Fish & Chips", "10.90", "15.50"),
        _g("Soup of the day", "Soupe du jour", "Tagessuppe", "4.50", "6.90"),
        _g("Sparkling water", "Eau gazeuse", "Mineralwasser", "2.20", "3.80"),
        _g("Draft beer", "Bière pression", "Bier vom Fass", "3.90", "5.90"),
        _g("Glass of wine", "Verre de vin", "Glas Wein", "4.50", "7.50"),
        _g("Tiramisu", "Tiramisu", "Tiramisu", "4.90", "7.20"),
        _g("Espresso", "Espresso", "Espresso", "1.80", "2.80"),
    ),
}

DISCOUNT_NAMES = {
    "en": ("Promo", "Happy hour", "Member price", "Staff discount"),
    "fr": ("Promo", "Happy hour", "Prix fidélité", "Remise"),
    "de": ("Aktion", "Happy Hour", "Kundenkarte", "Rabatt"),
    "ja": ("特売", "タイムセール", "会員価格", "値引"),
    "ar": ("عرض", "خصم الساعة", "سعر العضو", "خصم"),
}
DISCOUNTS = (Decimal(10), Decimal(15), Decimal(20), Decimal(25), Decimal(50))


def _price(rng: random.Random, lo: str, hi: str, currency: str) -> Decimal:
    low, high = Decimal(lo), Decimal(hi)
    step = Decimal("0.01")
    price = low + step * rng.randint(0, int((high - low) / step))
    if rng.random() < 0.6:  # 3.90, 2.49
        price = price.quantize(Decimal("0.1")) - (Decimal("0.01") if rng.random() < 0.4
                                                   else 0)
    if currency == "JPY":
        price *= 150
    return max(round_money(price, currency), round_money(Decimal("0.10"), currency))


def _tendered(rng: random.Random, total: Decimal, currency: str) -> Decimal:
    scale = Decimal(150) if currency == "JPY" else Decimal(1)
    options = [total] + [n * scale for n in (Decimal(5), Decimal(10), Decimal(20),
                                            Decimal(50), Decimal(100), Decimal(200))
                         if n * scale >= total]
    whole = (total // scale + 1) * scale
    options.append(whole)
    return round_money(rng.choice(options[:4]), currency)


def _restyle(items: tuple[ReceiptItem, ...], style: ReceiptStyle, budget: int
             ) -> tuple[ReceiptItem, ...]:
    """Items with names as the style prints them: in capitals on an all-caps printer,
    fitted to an item table's name column."""
    def name(text: str) -> str:
        return fit(style.line(text), budget)

    return tuple(dataclasses.replace(
        i, name=name(i.name),
        modifiers=tuple(dataclasses.replace(m, name=name(m.name)) for m in i.modifiers),
        discount=dataclasses.replace(i.discount, name=name(i.discount.name))
        if i.discount else None) for i in items)


def _web(fake: Any, rng: random.Random) -> str:
    """A shop's web name (ASCII letters and digits)."""
    word = re.sub(r"[^a-z0-9]", "", str(fake.domain_word()).lower())
    return word if len(word) >= 3 else f"shop{rng.randint(10, 99)}"


#: content 3: of the tax-inclusive receipts whose style prints a subtotal, the share that
#: keeps it (a tax-inclusive till prints one mostly where something follows it; real
#: receipts printing both show subtotal = total on about a fifth); the others print their
#: net and tax totals instead
INCLUSIVE_SUBTOTAL_V3 = 0.3


class ReceiptSource:
    """Deterministic receipt records for one run's options (content version
    ``options.content``: 2 draws a :class:`~.variation.ReceiptStyle` per document)."""

    def __init__(self, options: PackOptions) -> None:
        self.options = options

    @traced("docfleet.render.record", lambda self, run_id, index: {
        "docfleet.document.index": index})
    def generate(self, run_id: str, index: int) -> Receipt:
        rng = document_rng(run_id, index)
        opts = self.options
        v2 = opts.content >= 2
        locale, archetype, condition = kinds(rng, index, opts)
        vr = random.Random(rng.getrandbits(64)) if v2 else rng  # the style's own stream
        jur = JURISDICTIONS[locale]
        lang = jur.language
        layout = RECEIPT_LAYOUTS[archetype]
        cols = layout.columns
        fake = seeded_faker(rng, jur)
        state = "NY" if locale == "en-US" else None
        seller, _ = party(rng, fake, jur, seller=True, state=state)
        if opts.content >= 3:  # real merchants print many receipts: a per-run long tail
            seller = pooled_party(run_id, jur, index, "merchant", state)[0]
        cut = fit_whole if opts.content >= 3 else fit  # 3: never end a cut on a bound word
        store = Store(
            cut(seller.name, int(cols / 1.35)),  # printed 1.3x larger
            fit_lines(seller.address, cols) if opts.content >= 3
            else tuple(fit(line, cols) for line in seller.address),
            fit(seller.phone, cols - 6),
            whole(seller.tax_id, cols - 12) if seller.tax_id and rng.random() < 0.8 else None,
        )
        kind = rng.choice(sorted(STORES))
        goods = STORES[kind]
        inclusive = jur.currency != "USD"
        if v2 and (locale == "en-CA" or (locale == "ja-JP" and vr.random() < 0.4)):
            inclusive = False  # GST/HST (and 外税) added on top of shelf prices
        rates = dict(jur.rates)
        if locale == "en-US":
            rates = {"standard": Decimal("8.875"), "reduced": Decimal(0), "zero": Decimal(0)}
        count = rng.randint(*opts.lines) if opts.lines else (
            rng.randint(1, 6) if rng.random() < 0.7 else rng.randint(7, 18))
        items = []
        for line in range(1, count + 1):
            g = rng.choice(goods)
            name = g.names.get(lang, g.names["en"])
            if g.weighed:
                quantity, places, unit = Decimal(rng.randint(150, 2400)) / 1000, 3, "kg"
            else:
                quantity, places, unit = Decimal(rng.choice((1, 1, 1, 1, 2, 2, 3, 4, 6))), 0, None
            price = _price(rng, *g.price, jur.currency)
            mods: list[tuple[str, Decimal]] = []
            for names, mod_price in g.modifiers:
                if rng.random() < 0.3:
                    p = Decimal(mod_price) * (150 if jur.currency == "JPY" else 1)
                    mods.append((fit(names.get(lang, names["en"]), 18),
                                 round_money(p, jur.currency)))
            discount: tuple[str, Decimal] | None = None
            if rng.random() < 0.12:
                discount_names = DISCOUNT_NAMES.get(lang, DISCOUNT_NAMES["en"])
                discount = (rng.choice(discount_names), rng.choice(DISCOUNTS))
            items.append(build_item(line, name, quantity, places, unit, price, tuple(mods),
                                    discount, rates[g.tax_class], jur.currency))
        items_t = tuple(items)
        taxes = receipt_taxes(items_t, inclusive, jur.currency)
        subtotal = sum((i.total for i in items_t), Decimal(0))
        tax_total = sum((t.amount for t in taxes), Decimal(0))
        total = subtotal if inclusive else subtotal + tax_total
        method = rng.choices(("cash", "card", "contactless", "mobile"), (4, 3, 3, 1))[0]
        if total == 0:
            method = "cash"
        style = None
        rounding = Decimal(0)
        if v2:
            style = draw_style(vr, jur, cols, kind, method == "cash", _web(fake, vr))
            if opts.content >= 3 and inclusive and "subtotal" in style.show \
                    and random.Random(f"receipt-v3:{run_id}:{index}").random() \
                    >= INCLUSIVE_SUBTOTAL_V3:
                # ... and its net and tax totals instead (Total excl. VAT, Total VAT)
                style = dataclasses.replace(
                    style, show=(style.show - {"subtotal"}) | {"tax_base_total", "tax_total"})
            budget = cols - ITEM_TABLE_COLUMNS if "item_table" in style.show else 20
            items_t = _restyle(items_t, style, budget)
            if method == "cash":
                rounding = cash_rounding(total, locale)
            store = dataclasses.replace(store, name=style.line(store.name))
        tendered = _tendered(rng, total + rounding, jur.currency) if method == "cash" \
            else total
        card = digits(rng, 4) if method != "cash" else None
        auth = digits(rng, 6) if method != "cash" else None
        day = FIRST_DAY + dt.timedelta(days=rng.randrange(DAYS))
        time = f"{rng.randint(7, 21):02d}:{rng.randrange(60):02d}"
        number = rng.choice((f"{rng.randint(1, 9999):04d}-{digits(rng, 6)}",
                             f"R{digits(rng, 8)}", f"{rng.randint(1, 999)}/{digits(rng, 5)}"))
        first = fake.first_name()
        extras: dict[str, Any] = {}
        if style is not None:
            second = vr.randrange(60)
            hour, minute = int(time[:2]), int(time[3:])
            time = canonical_time(style.time_format, hour, minute, second)
            stamp = dt.datetime.combine(day, dt.time(hour, minute, second)) + \
                dt.timedelta(seconds=vr.randint(0, 90))
            loyalty = None
            if "loyalty" in style.show:
                points = int(total // (150 if jur.currency == "JPY" else 1))
                loyalty = Loyalty(f"****{digits(vr, 4)}", points, points + vr.randint(0, 4000),
                                  round_money(Decimal(vr.randint(100, 30000)) / 100
                                              * (150 if jur.currency == "JPY" else 1),
                                              jur.currency))
            extras = {"content": opts.content, "rounding": rounding, "loyalty": loyalty,
                      "printed_at": stamp if "print_stamp" in style.show else None,
                      "return_by": day + dt.timedelta(days=vr.choice((14, 28, 30, 60)))
                      if "return_by" in style.show else None, "style": style}
        return Receipt(
            document=index, receipt_number=number, archetype=archetype, locale=locale,
            condition=condition, format=opts.format, currency=jur.currency, issue_date=day,
            issue_time=time, store=store, store_kind=kind, till=str(rng.randint(1, 12)),
            cashier=fit(first, 14), items=items_t, tax_inclusive=inclusive,
            taxes=taxes, subtotal=subtotal,
            discount_total=sum((i.discount.amount for i in items_t if i.discount), Decimal(0)),
            tax_total=tax_total, total=total,
            item_count=sum((int(i.quantity) if i.quantity_places == 0 else 1
                            for i in items_t), 0),
            payment_method=method, tendered=tendered, change=tendered - total - rounding,
            card_last4=card, auth_code=auth, style_seed=rng.getrandbits(32), **extras,
        )
