"""How one receipt looks (content version 2): a :class:`ReceiptStyle` drawn per document
from its own random stream — which word prints each key (:mod:`.vocabulary`), the case
and punctuation of the printer, how money, dates and times are written, which optional
lines and blocks it prints and in what order.

Real receipts differ in exactly these ways from one shop to the next, and a model trained
on one convention learns the convention; the style is the convention, drawn. Everything a
style prints that carries a value is still a golden field (the context builds it), so
the truth stays exact whatever the style. Pure and deterministic in the ``rng`` given.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from docfleet.packs.receipt.vocabulary import FOOTER_LINES, HEADER_LINES, LABELS, TITLES
from docfleet.packs.sdk.locales import ARABIC_DIGITS, MONTHS, Jurisdiction
from docfleet.packs.sdk.variation import pick

EN_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov",
             "Dec")

#: date patterns real receipts of a locale print, commonest first ({d} day, {dd} 2-digit
#: day, {m}/{mm} month, {yy}/{yyyy} year, {mon} English abbreviation, {month} the name)
DATE_FORMATS: dict[str, tuple[str, ...]] = {
    "en-US": ("{mm}/{dd}/{yyyy}", "{mm}/{dd}/{yy}", "{m}/{d}/{yyyy}", "{mon} {d}, {yyyy}",
              "{dd}-{mon}-{yyyy}", "{yyyy}-{mm}-{dd}", "{m}/{d}/{yy}"),
    "en-GB": ("{dd}/{mm}/{yyyy}", "{dd}/{mm}/{yy}", "{dd}-{mm}-{yyyy}", "{d} {mon} {yyyy}",
              "{dd}.{mm}.{yy}", "{dd}-{mon}-{yy}", "{yyyy}-{mm}-{dd}"),
    "en-AU": ("{dd}/{mm}/{yyyy}", "{dd}/{mm}/{yy}", "{d}/{m}/{yyyy}", "{d} {mon} {yyyy}",
              "{dd}-{mm}-{yyyy}", "{yyyy}-{mm}-{dd}"),
    "en-CA": ("{yyyy}-{mm}-{dd}", "{dd}/{mm}/{yyyy}", "{mm}/{dd}/{yyyy}", "{mon} {d}, {yyyy}",
              "{yyyy}/{mm}/{dd}", "{dd}/{mm}/{yy}"),
    "fr": ("{dd}/{mm}/{yyyy}", "{dd}/{mm}/{yy}", "{dd}-{mm}-{yyyy}", "{d} {month} {yyyy}",
           "{dd}.{mm}.{yyyy}", "{yyyy}-{mm}-{dd}"),
    "de": ("{dd}.{mm}.{yyyy}", "{dd}.{mm}.{yy}", "{yyyy}-{mm}-{dd}", "{d}. {month} {yyyy}",
           "{d}.{m}.{yyyy}", "{dd}/{mm}/{yyyy}"),
    "ja": ("{yyyy}/{mm}/{dd}", "{yyyy}年{m}月{d}日", "{yyyy}-{mm}-{dd}", "{yy}/{mm}/{dd}",
           "{yyyy}.{mm}.{dd}", "{yyyy}年{mm}月{dd}日"),
    "ar": ("{dd}/{mm}/{yyyy}", "{yyyy}-{mm}-{dd}", "{dd}-{mm}-{yyyy}", "{yyyy}/{mm}/{dd}",
           "{d} {month} {yyyy}"),
}
#: times of day: hh:mm, with seconds, 12-hour, French 14h05, Japanese 14時05分
TIME_FORMATS: dict[str, tuple[str, ...]] = {
    "en": ("{H}:{MM}", "{H}:{MM}:{SS}", "{h}:{MM} {AP}", "{h}:{MM}:{SS} {AP}"),
    "en-GB": ("{H}:{MM}", "{H}:{MM}:{SS}", "{h}:{MM} {ap}"),
    "fr": ("{H}:{MM}", "{H}:{MM}:{SS}", "{H}h{MM}"),
    "de": ("{H}:{MM}", "{H}:{MM}:{SS}", "{H}:{MM} Uhr"),
    "ja": ("{H}:{MM}", "{H}:{MM}:{SS}", "{H}時{MM}分"),
    "ar": ("{H}:{MM}", "{H}:{MM}:{SS}"),
}
#: the blocks after the totals, in the orders real receipts use (the info block —
#: number, date, till — sometimes closes the receipt instead of opening it)
TAIL_ORDERS = (
    ("pay", "taxes", "slip", "loyalty", "foot"),
    ("pay", "slip", "taxes", "loyalty", "foot"),
    ("taxes", "pay", "loyalty", "slip", "foot"),
    ("pay", "loyalty", "taxes", "foot", "slip"),
    ("pay", "taxes", "loyalty", "foot", "slip"),
    ("loyalty", "pay", "taxes", "slip", "foot"),
)


@dataclass(frozen=True)
class ReceiptStyle:
    """One receipt's conventions (see the module docstring)."""

    labels: tuple[tuple[str, str], ...]  # key → printed word ("" = no word)
    upper: bool  # the printer prints capitals only
    colon: bool  # keys end with ":"
    currency: str  # "symbol" on every amount | "bare" numbers | "code" on the total only
    date_format: str
    slip_date_format: str
    time_format: str
    title: str | None
    header_lines: tuple[str, ...]
    footer_lines: tuple[str, ...]
    #: optional elements printed (till, cashier, phone, item_count, subtotal (of a
    #: tax-inclusive receipt: a tax-exclusive one always prints it), date_label,
    #: time, tax_table, tax_codes, item_table, price_places3, slip, loyalty, print_stamp,
    #: return_by, info_bottom, datetime_row, tax_base_total, tax_total, number_label, paid_total)
    show: frozenset[str]
    tail: tuple[str, ...]

    def label(self, key: str, fallback: str, colon: bool = True) -> str:
        """The printed word of ``key`` (``fallback`` if the style has none); ``colon``:
        whether the style's colon applies (not to a column heading)."""
        text = dict(self.labels).get(key, fallback)
        if not text:
            return ""
        if colon and self.colon and not text.endswith((":", ".", "#", "°")):
            text += ":"
        return text.upper() if self.upper else text

    def line(self, text: str) -> str:
        return text.upper() if self.upper else text


def _pool(language: str, key: str) -> tuple[str, ...]:
    words = LABELS.get(language, LABELS["en"])
    return words.get(key) or LABELS["en"].get(key, ())


def draw_style(rng: random.Random, jur: Jurisdiction, columns: int, store_kind: str,
               cash: bool, web: str) -> ReceiptStyle:
    """A receipt's style for a locale and a layout ``columns`` wide. ``cash``: paid in
    cash (a card slip needs a card); ``web``: the shop's web name for header and footer
    lines. Draws in a fixed order from ``rng``."""
    lang = jur.language
    labels = tuple((key, pick(rng, pool)) for key in sorted(LABELS["en"])
                   if (pool := _pool(lang, key)))
    upper = rng.random() < (0.15 if lang in ("ja", "ar") else 0.35)
    colon = rng.random() < 0.3
    currency = rng.choices(("bare", "symbol", "code"), (5, 4, 1))[0]
    dates = DATE_FORMATS.get(jur.locale) or DATE_FORMATS[lang]
    date_format = pick(rng, dates, 1.0)
    slip_date_format = pick(rng, dates, 0.5)
    times = TIME_FORMATS.get(jur.locale) or TIME_FORMATS[lang]
    time_format = pick(rng, times, 1.0)
    must_title = lang == "ar"  # a Saudi simplified tax invoice names itself
    title = pick(rng, TITLES[lang], 0.5) if must_title or rng.random() < 0.3 else None
    n_head = rng.choices((0, 1, 2), (5, 3, 1))[0]
    pool = HEADER_LINES[lang]
    header = tuple(t.format(web=web, n=rng.randint(10, 999))
                   for t in rng.sample(pool, n_head))
    n_foot = rng.choices((0, 1, 2, 3), (1, 4, 3, 1))[0]
    footer = tuple(t.format(web=web) for t in rng.sample(FOOTER_LINES[lang], n_foot))
    chances = {
        "till": 0.55, "cashier": 0.5, "phone": 0.7, "item_count": 0.55, "subtotal": 0.25,
        "date_label": 0.5, "time": 0.8, "tax_table": 0.45, "tax_codes": 0.4,
        "item_table": 0.45 if columns >= 38 else 0.0, "price_places3": 0.25,
        "slip": 0.0 if cash else 0.55, "loyalty": 0.3 if store_kind != "restaurant" else 0.1,
        "print_stamp": 0.3, "return_by": 0.35 if store_kind == "grocery" else 0.05,
        "info_bottom": 0.35, "datetime_row": 0.4, "tax_base_total": 0.45,
        "tax_total": 0.5, "number_label": 0.85, "paid_total": 0.45,
    }
    show = frozenset(name for name, p in chances.items() if rng.random() < p)
    tail = rng.choice(TAIL_ORDERS)
    return ReceiptStyle(labels, upper, colon, currency, date_format, slip_date_format,
                        time_format, title, header, footer, show, tail)


def format_date(jur: Jurisdiction, pattern: str, day: dt.date) -> str:
    """``day`` in ``pattern`` (:data:`DATE_FORMATS`), in the locale's digits."""
    months = MONTHS[jur.months or jur.language] if (jur.months or jur.language) in MONTHS \
        else MONTHS["en"]
    text = pattern.format(d=day.day, dd=f"{day.day:02d}", m=day.month, mm=f"{day.month:02d}",
                          yy=f"{day.year % 100:02d}", yyyy=day.year,
                          mon=EN_MONTHS[day.month - 1], month=months[day.month - 1])
    return text.translate(ARABIC_DIGITS) if jur.date_digits == "arabic" else text


def format_time(pattern: str, hour: int, minute: int, second: int) -> str:
    """A time of day in ``pattern`` (:data:`TIME_FORMATS`)."""
    h12 = hour % 12 or 12
    ap = "AM" if hour < 12 else "PM"
    return pattern.format(H=f"{hour:02d}", h=h12, MM=f"{minute:02d}", SS=f"{second:02d}",
                          AP=ap, ap=ap.lower())


def canonical_time(pattern: str, hour: int, minute: int, second: int) -> str:
    """The golden value of a printed time: ``HH:MM``, or ``HH:MM:SS`` when it prints the
    seconds."""
    base = f"{hour:02d}:{minute:02d}"
    return f"{base}:{second:02d}" if "{SS}" in pattern else base


def cash_rounding(total: Decimal, locale: str) -> Decimal:
    """The cash rounding of ``total`` where the locale rounds cash to 0.05 (Canada,
    Australia, Switzerland: the smallest coin is 5 cents), else 0."""
    if locale not in ("en-CA", "en-AU", "fr-CH"):
        return Decimal(0)
    step = Decimal("0.05")
    rounded = (total / step).quantize(Decimal(1), rounding=ROUND_HALF_UP) * step
    return rounded - total
