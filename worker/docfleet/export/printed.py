"""What printed text holds, recognised from the text alone (no golden field is consulted):
shape signatures, amounts with or without a currency mark, date-like strings, times of
day and keyword families ("total"-like, "date"-like, …) in every language docfleet's
locales print (English, French, German, Japanese, Arabic). :mod:`.diversity` counts with
these; ``bench/transfer.py`` draws its extractor's candidates with them.

Every function takes one printed line (or any string) and is pure. Each recogniser is a
heuristic a reader of the page could apply, written down: its docstring says what it
accepts and what it refuses.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from decimal import Decimal

_SPACES = re.compile(r"\s+")
_DIGIT_MAP = {**{0x0660 + i: str(i) for i in range(10)},  # Arabic-Indic
              **{0x06F0 + i: str(i) for i in range(10)},  # Extended Arabic-Indic
              **{0xFF10 + i: str(i) for i in range(10)},  # full width
              0x066B: ".", 0x066C: ","}  # Arabic decimal and thousands separators


_NORMAL = str.maketrans({**_DIGIT_MAP, **{c: " " for c in range(0x3001) if chr(c).isspace()}})


def normalise(text: str) -> str:
    """``text`` with every Unicode space as one ASCII space (one for one, so positions
    keep) and Arabic-Indic / full-width digits as ASCII digits."""
    return text.translate(_NORMAL)


def fold(text: str) -> str:
    """Case-folded, spaces collapsed: how two label strings are compared."""
    return _SPACES.sub(" ", text.casefold()).strip()


def shape(text: str) -> str:
    """The shape signature of ``text``: each digit (any script) → ``9``, each upper-case
    letter → ``A``, each lower-case or caseless letter (CJK, Arabic) → ``a``, each space
    → one space; separators and symbols kept. A run of letters of one class folds to one
    (a month's or a word's length is not a format; a number's digits are):
    ``"Inv-2024/07"`` → ``"Aa-9999/99"``, ``"5 mars 2024"`` → ``"9 a 9999"``."""
    out: list[str] = []
    for ch in text:
        if ch.isspace():
            sym = " "
        elif unicodedata.category(ch) == "Nd":
            sym = "9"
        elif ch.isalpha():
            sym = "A" if ch.isupper() else "a"
            if out and out[-1] == sym:
                continue
        else:
            sym = ch
        out.append(sym)
    return "".join(out)


_INTEGER_PART = re.compile(r"(?:9{1,3}(?:(?P<sep>[,.'\u2019 ])999)(?:(?P=sep)999)*|9+)"
                           r"(?P<dec>[.,]9+)?")


def amount_shape(text: str) -> str:
    """:func:`shape` with every integer digit run (its grouping included) folded to one
    ``9``: ``"£21,295.26"`` and ``"£3.00"`` are both ``"£9.99"``; ``"1 234,50 €"`` is
    ``"9,99 €"``. The decimals, the symbol and its place stay: those are the format."""
    return _INTEGER_PART.sub(lambda m: "9" + (m.group("dec") or ""), shape(text))


# --- currency marks: any Unicode currency symbol, ISO 4217 codes, local signs
_ISO_CODES = frozenset({
    "USD", "EUR", "GBP", "CHF", "AUD", "CAD", "JPY", "SAR", "NZD", "SEK", "NOK", "DKK", "PLN",
    "CZK", "HUF", "CNY", "HKD", "SGD", "INR", "AED", "QAR", "KWD", "BHD", "OMR", "JOD", "EGP",
    "MAD", "TND", "ZAR", "BRL", "MXN", "KRW", "TWD", "THB", "MYR", "IDR", "PHP", "VND", "TRY",
    "ILS", "RUB"})
_LOCAL_MARKS = ("ر.س", "﷼", "円", "SFr.", "Fr.", "€", "kr.")
_MARK = re.compile("|".join([*(re.escape(m) for m in _LOCAL_MARKS),
                             # a code joined by a hyphen is an article code (KWD-757)
                             r"(?<![A-Za-z-])(?:" + "|".join(sorted(_ISO_CODES)) +
                             r")(?![A-Za-z-])"]))
CURRENCY_SIGN = "¤"


def _mark_currency(text: str) -> str:
    """Every currency mark as ``¤`` padded with spaces to its own length."""
    text = _MARK.sub(lambda m: CURRENCY_SIGN + " " * (len(m.group()) - 1), text)
    return "".join(CURRENCY_SIGN if unicodedata.category(ch) == "Sc" else ch for ch in text)


# --- dates and times
_MONTHS = {
    "en": "january february march april may june july august september october november "
          "december jan feb mar apr jun jul aug sep sept oct nov dec",
    "fr": "janvier février fevrier mars avril mai juin juillet août aout septembre octobre "
          "novembre décembre decembre janv févr fevr avr juil sept oct nov déc",
    "de": "januar jänner februar feber märz april mai juni juli august september oktober "
          "november dezember jän feb mär apr aug sep sept okt nov dez",
    "ar": "يناير فبراير مارس أبريل ابريل مايو يونيو يوليو أغسطس اغسطس سبتمبر أكتوبر اكتوبر "
          "نوفمبر ديسمبر",
}
_MONTH = "(?:" + "|".join(sorted({re.escape(m) for v in _MONTHS.values() for m in v.split()},
                                 key=len, reverse=True)) + r")\.?"
_DATE_PATTERNS = [
    # 31/12/2024, 12/31/24, 2024-12-31, 31.12.2024, 2024/12/31 (one separator twice)
    re.compile(r"(?<![\d./-])(\d{1,4})([./-])(\d{1,2})\2(\d{1,4})(?![\d]|[./-]\d)"),
    # 5 mars 2024, 5. März 2024, 05-Mar-24, 6 ديسمبر 2024
    re.compile(r"(?<!\d)\d{1,2}\.?[ -]?" + _MONTH + r"[ -]?,? ?\d{2,4}(?!\d)", re.IGNORECASE),
    # March 5, 2024 / Mar 5 2024
    re.compile(r"(?<![^\W\d_])" + _MONTH + r" \d{1,2}(?:st|nd|rd|th)?,? \d{4}(?!\d)",
               re.IGNORECASE),
    # 2024年12月31日, 令和 aside
    re.compile(r"\d{2,4} ?年 ?\d{1,2} ?月 ?\d{1,2} ?日"),
    # 20241231 inside a number (a date printed in a document number)
    re.compile(r"(?<!\d)(?:19|20)\d\d(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])(?!\d)"),
]
_TIME = re.compile(r"(?<![\d:.,])(?:[01]?\d|2[0-3])(?::|h|時)[0-5]\d(?::[0-5]\d)?(?!\d)"
                   r"(?: ?[ap]\.?m\.?)?", re.IGNORECASE)


def _plausible_numeric_date(m: re.Match[str]) -> bool:
    a, b, c = int(m.group(1)), int(m.group(3)), int(m.group(4))
    la, lc = len(m.group(1)), len(m.group(4))
    if la == 4:  # year first: y-m-d
        return 1900 <= a <= 2099 and 1 <= b <= 12 and 1 <= c <= 31 and lc <= 2
    if lc not in (2, 4) or (lc == 4 and not 1900 <= c <= 2099) or la > 2:
        return False
    return (1 <= a <= 31 and 1 <= b <= 12) or (1 <= a <= 12 and 1 <= b <= 31)


def _overlaps(span: tuple[int, int], spans: list[tuple[int, int]]) -> bool:
    return any(s < span[1] and span[0] < e for s, e in spans)


def _dates(t: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    if not any(ch.isdigit() for ch in t):
        return spans
    for n, pattern in enumerate(_DATE_PATTERNS):
        for m in pattern.finditer(t):
            if n == 0 and not _plausible_numeric_date(m):
                continue
            if not _overlaps(m.span(), spans):
                spans.append(m.span())
    return sorted(spans)


def _times(t: str, dates: list[tuple[int, int]]) -> list[tuple[int, int]]:
    if ":" not in t and "h" not in t and "H" not in t and "時" not in t:
        return []
    return [m.span() for m in _TIME.finditer(t) if not _overlaps(m.span(), dates)]


def find_dates(text: str) -> list[tuple[int, int]]:
    """Spans of the date-like strings in ``text`` (numeric with one separator used twice
    and a plausible day, month and year; with a month name in English, French, German or
    Arabic; Japanese 年月日; an 8-digit yyyymmdd inside a number), not overlapping."""
    return _dates(normalise(text))


def find_times(text: str) -> list[tuple[int, int]]:
    """Spans of times of day (``14:05``, ``14:05:09``, ``2:05 pm``, ``14h05``, ``14時05``)
    outside date-like strings."""
    t = normalise(text)
    return _times(t, _dates(t))


# --- amounts
_NUMBER = re.compile(
    r"(?<![\w.,'\u2019/:])(?<!\w-)(?:"
    r"(?P<whole>\d{1,3}(?:(?P<sep>[,.'\u2019 ])\d{3})(?:(?P=sep)\d{3})*)"  # grouped
    r"|(?P<plain>\d+))"
    r"(?:(?P<dec>[.,])(?P<frac>\d{1,4}))?"
    r"(?![\w'\u2019/:%]|[.,]\d| %)")


@dataclass(frozen=True)
class Amount:
    """A printed amount: its magnitude, whether a currency mark stands beside it, its span
    in the text."""

    value: Decimal
    marked: bool
    start: int
    end: int


def find_amounts(text: str, minor: int = 2) -> list[Amount]:
    """The amounts printed in ``text``: a number with a currency mark beside it (any
    decimals: ``$0.0676``, ``¥1,470``, ``CHF 12.38``), or a bare number with exactly
    ``minor`` decimals (the currency's minor unit: ``12.38``, ``1 234,50``); with
    ``minor=0`` (yen) a bare number counts only when it is grouped by commas and has no
    decimals (``1,470``).
    Not amounts: percentages, dates, times, numbers inside codes (``WSH-605``, ``M12``)
    and bare integers (quantities, counts, phone numbers). The sign is not part of it."""
    return scan(text, minor).amounts


@dataclass(frozen=True)
class Scan:
    """What one printed line holds: its text (:func:`normalise`), its amounts and the
    spans of its date-like strings and times."""

    text: str
    amounts: list[Amount]
    dates: list[tuple[int, int]]
    times: list[tuple[int, int]]

    def date_strings(self) -> list[str]:
        return [" ".join(self.text[s:e].split()) for s, e in self.dates]


def scan(text: str, minor: int = 2) -> Scan:
    """Amounts (:func:`find_amounts`), dates (:func:`find_dates`) and times
    (:func:`find_times`) of one printed line in one pass."""
    t = normalise(text)
    dates = _dates(t)
    times = _times(t, dates)
    if not any(ch.isdigit() for ch in t):
        return Scan(t, [], dates, times)
    blanked = t
    for s, e in dates + times:
        blanked = blanked[:s] + " " * (e - s) + blanked[e:]
    marked_text = _mark_currency(blanked)
    found = []
    for m in _NUMBER.finditer(marked_text):
        grouped = m.group("whole") is not None
        digits = re.sub(r"\D", "", m.group("whole") or m.group("plain"))
        frac = m.group("frac") or ""
        if grouped and frac and m.group("dec") == m.group("sep"):
            continue  # 1,234,5: no number of any locale
        value = Decimal(f"{digits}.{frac}" if frac else digits)
        left = marked_text[:m.start()].rstrip(" \u2212\u2013+-")
        right = marked_text[m.end():].lstrip(" \u2212\u2013-")
        marked = left.endswith(CURRENCY_SIGN) or right.startswith(CURRENCY_SIGN)
        bare_yen = minor == 0 and grouped and not frac and m.group("sep") == ","
        if marked or (minor > 0 and len(frac) == minor) or bare_yen:
            found.append(Amount(value, marked, m.start(), m.end()))
    return Scan(t, found, dates, times)


# --- keyword families: what a printed line says it is, in every language of the locales
KEYWORDS: dict[str, re.Pattern[str]] = {
    # "total"-like: total, subtotal, totals by tax, amount due, sums (German), 合計 / 小計
    # / 総計 / 請求金額, إجمالي / مجموع
    "total": re.compile(
        r"total|amount due|balance due|to pay|"
        r"montant dû|à payer|"
        r"summe|gesamt|endbetrag|zu zahlen|"
        r"計|請求金額|総額|"
        r"إجمالي|اجمالي|مجموع", re.IGNORECASE),
    # a balance (the statement's "total"): balance, solde, Kontostand / Saldo, 残高, رصيد
    "balance": re.compile(r"balance|solde|kontostand|saldo|übertrag|残高|繰越|رصيد",
                          re.IGNORECASE),
    # date-like keywords: date, Datum, 日付 / …日, تاريخ
    "date": re.compile(r"date|datum|日付|日時|発行日|請求日|注文日|取引日|起算日|作成日|"
                       r"期日|期限|納期|تاريخ",
                       re.IGNORECASE),
    # number-like keywords: no., n°, nr., number, #, 番号, رقم
    "number": re.compile(r"(?<![^\W\d_])(?:no|n°|nº)\.?(?![^\W\d_])|nr\.?(?![^\W\d_])|"
                         r"#|number|nummer|numéro|番号|رقم", re.IGNORECASE),
}


def matches_family(family: str, text: str) -> bool:
    """Whether printed ``text`` holds a keyword of ``family`` (:data:`KEYWORDS`)."""
    return KEYWORDS[family].search(normalise(text).casefold()) is not None


def families(text: str) -> set[str]:
    """The :data:`KEYWORDS` families whose keywords printed ``text`` holds."""
    t = normalise(text).casefold()
    return {name for name, pattern in KEYWORDS.items() if pattern.search(t)}


def free_line_key(text: str) -> str:
    """The element key of a free line: case-folded, digit runs as ``#``."""
    return re.sub(r"\d+", "#", fold(normalise(text)))
