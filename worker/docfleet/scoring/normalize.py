"""Per-field normalisation: a predicted string and a golden value are compared in the
field's kind, so formatting never counts as an error in the default (lenient) mode.

- ``money`` / ``number``: compared as :class:`~decimal.Decimal`, whatever the locale's
  grouping and decimal marks, currency symbols or codes and ``%``: ``"1 234,50 €"``,
  ``"1.234,50"``, ``"$1,234.50"``, ``"EUR 1234.5"`` all equal ``1234.50``. A single
  ``,`` or ``.`` followed by exactly three digits (``"1,234"``) is ambiguous (a quantity
  ``1,234`` kWh in French is 1.234): either reading matches.
- ``date``: ISO, numeric (``31/03/2024``, ``03/31/2024`` for en-US, ``31.03.2024``,
  ``2024/03/31``, two-digit years) and long forms with month names in English, French,
  German, Spanish, Italian, Dutch and Portuguese (``31 mars 2024``, ``31. März 2024``,
  ``March 31, 2024``).
- ``text``: Unicode NFKC, case folded, runs of whitespace (line breaks included)
  collapsed to one space.

Exact mode compares the prediction to the canonical ``fields.value`` byte for byte.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from decimal import Decimal, InvalidOperation

MONEY_FIELDS = frozenset({"subtotal", "discount_total", "tax_total", "total", "tax_base",
                          "tax_amount", "net_amount", "unit_price", "discount_amount"})
NUMBER_FIELDS = frozenset({"quantity", "discount_percent", "line_tax_rate", "tax_rate",
                           "line_number"})
DATE_FIELDS = frozenset({"issue_date", "due_date"})
ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")

#: locales whose decimal mark is ``.`` (others: ``,``)
DOT_DECIMAL = ("en", "ja", "zh", "ko", "he", "th", "hi")
MONTH_FIRST = ("en-US", "en-PH", "en-CA")

_MONTHS: dict[str, list[str]] = {
    "en": ["january", "february", "march", "april", "may", "june", "july", "august",
           "september", "october", "november", "december"],
    "fr": ["janvier", "fevrier", "mars", "avril", "mai", "juin", "juillet", "aout",
           "septembre", "octobre", "novembre", "decembre"],
    "de": ["januar", "februar", "marz", "april", "mai", "juni", "juli", "august",
           "september", "oktober", "november", "dezember"],
    "es": ["enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto",
           "septiembre", "octubre", "noviembre", "diciembre"],
    "it": ["gennaio", "febbraio", "marzo", "aprile", "maggio", "giugno", "luglio", "agosto",
           "settembre", "ottobre", "novembre", "dicembre"],
    "nl": ["januari", "februari", "maart", "april", "mei", "juni", "juli", "augustus",
           "september", "oktober", "november", "december"],
    "pt": ["janeiro", "fevereiro", "marco", "abril", "maio", "junho", "julho", "agosto",
           "setembro", "outubro", "novembro", "dezembro"],
}


def _fold(text: str) -> str:
    """Lower case without accents (``März`` → ``marz``)."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _month_table() -> dict[str, int]:
    table: dict[str, int] = {"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7,
                             "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12,
                             "janv": 1, "fevr": 2, "avr": 4, "juil": 7, "okt": 10, "dez": 12,
                             "mrz": 3, "mai": 5, "may": 5, "mei": 5}
    for names in _MONTHS.values():
        for number, name in enumerate(names, start=1):
            table.setdefault(name, number)
            table.setdefault(name[:3], number)
            table.setdefault(name[:4], number)
    return table


MONTHS = _month_table()


def field_kind(field: str, golden_value: str) -> str:
    """``money``, ``number``, ``date`` or ``text`` for ``field`` (by name for the invoice
    pack's fields; an unknown field holding an ISO date is a ``date``, else ``text``)."""
    if field in MONEY_FIELDS:
        return "money"
    if field in NUMBER_FIELDS:
        return "number"
    if field in DATE_FIELDS or ISO_DATE.match(golden_value):
        return "date"
    return "text"


def normalize_text(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


MINUS = "\u2212"
APOSTROPHE = "\u2019"
_NUMBER_JUNK = re.compile(rf"[^\d.,'{APOSTROPHE}\-{MINUS}()+]")


def parse_number(text: str, locale: str | None = None) -> Decimal | None:
    """A decimal from a locale-formatted amount, or None if ``text`` is not one."""
    raw = unicodedata.normalize("NFKC", text).strip()
    if not raw or not any(c.isdigit() for c in raw):
        return None
    letters = re.sub(r"\b[A-Za-z]{1,3}\b\.?", "", raw)  # currency codes, "Fr."
    if re.search(r"[^\W\d_]", letters.replace("€", "")):
        return None  # words left: not an amount
    body = _NUMBER_JUNK.sub("", letters)
    negative = body.startswith(("-", MINUS, "(")) or body.endswith(("-", ")"))
    body = body.strip(f"-{MINUS}()+").replace("'", "").replace(APOSTROPHE, "")
    if not body or re.search(r"[^\d.,]", body):
        return None
    dot, comma = body.rfind("."), body.rfind(",")
    if dot >= 0 and comma >= 0:
        decimal_mark = "." if dot > comma else ","
    elif dot >= 0 or comma >= 0:
        mark = "." if dot >= 0 else ","
        head, _, tail = body.rpartition(mark)
        if body.count(mark) > 1:
            decimal_mark = ""  # 1.234.567: grouping only
        elif len(tail) == 3 and head.isdigit() and head != "0":
            language = (locale or "en").split("-")[0]
            locale_mark = "." if language in DOT_DECIMAL else ","
            decimal_mark = mark if mark == locale_mark else ""
        else:
            decimal_mark = mark
    else:
        decimal_mark = ""
    group_mark = {".": ",", ",": "."}.get(decimal_mark, "")
    if decimal_mark == "":
        digits = body.replace(".", "").replace(",", "")
    else:
        whole, _, frac = body.rpartition(decimal_mark)
        digits = whole.replace(group_mark, "") + "." + frac
    try:
        value = Decimal(digits)
    except InvalidOperation:
        return None
    return -value if negative else value


def _date(year: int, month: int, day: int) -> dt.date | None:
    if year < 100:
        year += 2000 if year < 70 else 1900
    try:
        return dt.date(year, month, day)
    except ValueError:
        return None


def parse_date(text: str, locale: str | None = None) -> dt.date | None:
    """A date from any common printed form, or None."""
    stamp = re.match(r"\s*(\d{4}-\d{2}-\d{2})[T ]\d", text)  # an ISO timestamp
    if stamp:
        return _date(*(int(x) for x in stamp.group(1).split("-")))
    folded = _fold(unicodedata.normalize("NFKC", text)).strip()
    tokens = re.findall(r"\d+|[^\W\d_]+", folded)
    numbers = [t for t in tokens if t.isdigit()]
    words = [t for t in tokens if not t.isdigit()]
    month_words = [MONTHS[w] for w in words if w in MONTHS]
    if month_words and len(numbers) == 2:
        a, b = int(numbers[0]), int(numbers[1])
        day, year = (b, a) if len(numbers[0]) == 4 or a > 31 else (a, b)
        return _date(year, month_words[0], day)
    if len(numbers) != 3 or month_words:
        return None
    a, b, c = numbers
    if len(a) == 4:  # 2024-03-31, 2024/03/31
        return _date(int(a), int(b), int(c))
    first, second, year = int(a), int(b), int(c)
    month_first = (locale or "") in MONTH_FIRST
    order = [(second, first), (first, second)] if month_first else [(first, second),
                                                                    (second, first)]
    for day, month in order:
        found = _date(year, month, day)
        if found is not None:
            return found
    return None


#: currency symbols and the ISO 4217 codes each may stand for
CURRENCY_SYMBOLS: dict[str, frozenset[str]] = {
    "R$": frozenset({"BRL"}), "zł": frozenset({"PLN"}), "Kč": frozenset({"CZK"}),
    "Fr.": frozenset({"CHF"}), "kr": frozenset({"SEK", "NOK", "DKK", "ISK"}),
    "$": frozenset({"USD", "CAD", "AUD", "NZD", "SGD", "HKD", "MXN", "ARS", "CLP", "COP"}),
    "€": frozenset({"EUR"}), "£": frozenset({"GBP"}), "¥": frozenset({"JPY", "CNY"}),
    "₹": frozenset({"INR"}), "₩": frozenset({"KRW"}), "₪": frozenset({"ILS"}),
    "﷼": frozenset({"SAR"}), "ر.س": frozenset({"SAR"}), "₺": frozenset({"TRY"}),
}
_ISO_CODE = re.compile(r"(?<![A-Za-z])([A-Z]{3})(?![A-Za-z])")


def currencies_named(text: str) -> frozenset[str] | None:
    """The ISO codes a money string's currency mark may mean (``"$1.00"`` → USD, CAD, …;
    ``"EUR 5"`` → EUR), or ``None`` when it names no currency (a bare amount)."""
    raw = unicodedata.normalize("NFKC", text)
    codes = set(_ISO_CODE.findall(raw))
    for symbol, meant in CURRENCY_SYMBOLS.items():
        if symbol in raw:
            codes |= meant
            raw = raw.replace(symbol, " ")
    return frozenset(codes) if codes else None


def matches(kind: str, predicted: str, value: str, printed: str, locale: str | None,
            exact: bool, currency: str | None = None) -> bool:
    """Does ``predicted`` match the golden ``value`` (canonical) / ``printed`` text? A
    money prediction that names a currency (symbol or code) other than the document's
    ``currency`` never matches, whatever its amount."""
    if exact:
        return predicted == value
    if kind == "money" and currency:
        named = currencies_named(predicted)
        if named is not None and currency not in named:
            return False
    if kind in ("money", "number"):
        target = parse_number(value, "en")
        # a lone mark before three digits ("1,234") may be either: accept both readings
        readings = {parse_number(predicted, loc) for loc in (locale, "en", "fr")}
        if target is not None and target in readings:
            return True
    elif kind == "date":
        day = dt.date.fromisoformat(value) if ISO_DATE.match(value) else parse_date(value)
        if day is not None and parse_date(predicted, locale) == day:
            return True
    if normalize_text(predicted) == normalize_text(value):
        return True
    return normalize_text(predicted) == normalize_text(printed)
