"""Locales: currency, tax regime, paper, script and number/date formats per locale.

Formatting here is the single source of every printed money, quantity, percent and date
string, so golden ``fields.text`` and the page agree by construction. A pack's printed
words are its own (keyed by :attr:`Jurisdiction.language`: ``en``, ``fr``, ``de``,
``ja``, ``ar``; :func:`docfleet.packs.sdk.text.labels_for` falls back to English).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal

NBSP = "\u00a0"

MONTHS = {
    "en": ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December"),
    "fr": ("janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août",
           "septembre", "octobre", "novembre", "décembre"),
    "de": ("Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August",
           "September", "Oktober", "November", "Dezember"),
    "de-AT": ("Jänner", "Februar", "März", "April", "Mai", "Juni", "Juli", "August",
              "September", "Oktober", "November", "Dezember"),
    "ar": ("يناير", "فبراير", "مارس", "أبريل", "مايو", "يونيو", "يوليو", "أغسطس", "سبتمبر",
           "أكتوبر", "نوفمبر", "ديسمبر"),
}

#: Arabic-Indic digits, as Saudi invoices print dates in their Arabic parts
ARABIC_DIGITS = str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")

@dataclass(frozen=True)
class Jurisdiction:
    """One locale's money, tax and print conventions."""

    locale: str  # BCP 47, e.g. fr-FR
    faker_locale: str
    language: str  # key of a pack's words and of MONTHS
    currency: str
    symbol: str
    symbol_first: bool
    group: str  # thousands separator
    decimal: str
    tax_name: str  # printed tax label: "Sales tax", "VAT", "TVA", "USt."
    #: tax class → rate in percent
    rates: dict[str, Decimal]
    date_style: str  # numeric date pattern: mdy | dmy/ | dmy.
    page: tuple[int, int]  # page size in CSS px (96/in): Letter or A4
    tax_id_prefix: str
    #: printed money: ``{n}`` is the number (default: symbol before/after by symbol_first)
    pattern: str | None = None
    places: int = 2  # the currency's minor unit: JPY has none
    direction: str = "ltr"  # rtl: Arabic
    #: CSS font stacks for the script (overrides the archetype's), from Debian fonts
    fonts: tuple[str, ...] = ()
    date_digits: str = "latin"  # arabic: dates in Arabic-Indic digits
    months: str | None = None  # key of MONTHS when not the language (de-AT: Jänner)
    #: CSS line height: CJK and Arabic fonts have taller glyph boxes than Latin ones
    line_height: float = 1.3

    def money(self, amount: Decimal) -> str:
        """``1234.5`` → ``$1,234.50`` / ``£1,234.50`` / ``1 234,50 €`` / ``1.234,50 €`` /
        ``¥1,235`` / ``CHF 1'234.50`` / ``1,234.50 ر.س``."""
        number = self.number(amount, self.places)
        if self.pattern:
            return self.pattern.format(n=number)
        return f"{self.symbol}{number}" if self.symbol_first else f"{number}{NBSP}{self.symbol}"

    def number(self, value: Decimal, places: int) -> str:
        """Group and localise ``value`` with exactly ``places`` decimals."""
        quantum = Decimal(1).scaleb(-places)
        text = f"{abs(value.quantize(quantum)):,.{places}f}"
        whole, _, frac = text.partition(".")
        whole = whole.replace(",", self.group)
        sign = "-" if value < 0 else ""
        return f"{sign}{whole}{self.decimal}{frac}" if places else f"{sign}{whole}"

    def percent(self, rate: Decimal) -> str:
        """``20`` → ``20%`` / ``20 %``; ``8.875`` → ``8.875%``; ``5.5`` → ``5,5 %``."""
        text = canonical(rate).replace(".", self.decimal)
        return f"{text}%" if self.language in ("en", "ja", "ar") else f"{text}{NBSP}%"

    def date(self, day: dt.date, long: bool = False) -> str:
        """A numeric date, or a long one with the month's name (``5 mars 2024``)."""
        if self.language == "ja":
            if long:
                return f"{day.year}年{day.month}月{day.day}日"
            return f"{day.year}/{day.month:02d}/{day.day:02d}"
        if self.language == "ar":
            if long:
                text = f"{day.day} {MONTHS['ar'][day.month - 1]} {day.year}"
            else:
                text = f"{day.day:02d}/{day.month:02d}/{day.year}"
            return text.translate(ARABIC_DIGITS) if self.date_digits == "arabic" else text
        if self.date_style == "ymd-" and not long:
            return day.isoformat()
        if long:
            month = MONTHS[self.months or self.language][day.month - 1]
            if self.locale in ("en-US", "en-CA"):
                return f"{month} {day.day}, {day.year}"
            if self.language == "de":
                return f"{day.day}. {month} {day.year}"
            return f"{day.day} {month} {day.year}"
        if self.date_style == "mdy":
            return f"{day.month:02d}/{day.day:02d}/{day.year}"
        if self.date_style == "dmy.":
            return f"{day.day:02d}.{day.month:02d}.{day.year}"
        return f"{day.day:02d}/{day.month:02d}/{day.year}"


def canonical(value: Decimal) -> str:
    """The canonical text of a decimal: no exponent, no trailing fractional zeros."""
    text = format(value, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


LETTER = (816, 1056)
A4 = (794, 1123)

JURISDICTIONS: dict[str, Jurisdiction] = {
    "en-US": Jurisdiction(
        "en-US", "en_US", "en", "USD", "$", True, ",", ".", "Sales tax",
        {"standard": Decimal("8.875"), "reduced": Decimal("4.5"), "zero": Decimal("0")},
        "mdy", LETTER, "EIN",
    ),
    "en-GB": Jurisdiction(
        "en-GB", "en_GB", "en", "GBP", "£", True, ",", ".", "VAT",
        {"standard": Decimal("20"), "reduced": Decimal("5"), "zero": Decimal("0")},
        "dmy/", A4, "GB",
    ),
    "fr-FR": Jurisdiction(
        "fr-FR", "fr_FR", "fr", "EUR", "€", False, NBSP, ",", "TVA",
        {"standard": Decimal("20"), "reduced": Decimal("5.5"), "zero": Decimal("2.1")},
        "dmy/", A4, "FR",
    ),
    "de-DE": Jurisdiction(
        "de-DE", "de_DE", "de", "EUR", "€", False, ".", ",", "USt.",
        {"standard": Decimal("19"), "reduced": Decimal("7"), "zero": Decimal("0")},
        "dmy.", A4, "DE",
    ),
    "de-AT": Jurisdiction(
        "de-AT", "de_AT", "de", "EUR", "€", True, ".", ",", "USt.",
        {"standard": Decimal("20"), "reduced": Decimal("10"), "zero": Decimal("0")},
        "dmy.", A4, "ATU", pattern="€" + NBSP + "{n}", months="de-AT",
    ),
    "fr-CH": Jurisdiction(
        "fr-CH", "fr_CH", "fr", "CHF", "CHF", True, "'", ".", "TVA",
        {"standard": Decimal("8.1"), "reduced": Decimal("2.6"), "zero": Decimal("0")},
        "dmy.", A4, "CHE", pattern="CHF" + NBSP + "{n}",
    ),
    "en-AU": Jurisdiction(
        "en-AU", "en_AU", "en", "AUD", "$", True, ",", ".", "GST",
        {"standard": Decimal("10"), "reduced": Decimal("10"), "zero": Decimal("0")},
        "dmy/", A4, "ABN",
    ),
    "en-CA": Jurisdiction(
        "en-CA", "en_CA", "en", "CAD", "$", True, ",", ".", "HST",
        {"standard": Decimal("13"), "reduced": Decimal("13"), "zero": Decimal("0")},
        "ymd-", LETTER, "BN",
    ),
    "ja-JP": Jurisdiction(
        "ja-JP", "ja_JP", "ja", "JPY", "¥", True, ",", ".", "消費税",
        {"standard": Decimal("10"), "reduced": Decimal("8"), "zero": Decimal("0")},
        "ymd/", A4, "T", places=0, line_height=1.5,
        fonts=("'Noto Sans CJK JP', sans-serif", "'Noto Serif CJK JP', serif"),
    ),
    "ar-SA": Jurisdiction(
        "ar-SA", "ar_SA", "ar", "SAR", "SAR", True, ",", ".", "ضريبة VAT",
        {"standard": Decimal("15"), "reduced": Decimal("15"), "zero": Decimal("0")},
        "dmy/", A4, "VAT", pattern="{n}" + NBSP + "ر.س", direction="rtl",
        fonts=("'DejaVu Sans', 'Noto Naskh Arabic', sans-serif",),
        date_digits="arabic",
    ),
}

#: US sales tax differs by state; a seller's state picks its combined rate.
US_STATE_RATES: dict[str, Decimal] = {
    "NY": Decimal("8.875"), "CA": Decimal("7.25"), "TX": Decimal("6.25"), "WA": Decimal("10.1"),
    "IL": Decimal("10.25"), "FL": Decimal("7"), "MA": Decimal("6.25"), "CO": Decimal("8.81"),
}
