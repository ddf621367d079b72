"""Printed text: a pack's words per language, and text fitted to a column budget (a
receipt row, a table cell) so a printed value never wraps or is cut where it is recorded
whole."""

from __future__ import annotations

import random
import unicodedata
from collections.abc import Mapping


def labels_for(table: Mapping[str, Mapping[str, str]], language: str) -> dict[str, str]:
    """The pack's printed words for ``language``; English words for a language the pack
    has none for (a locale added after the pack), so every locale renders."""
    return {**table["en"], **table.get(language, {})}


def columns(text: str) -> int:
    """Monospace columns ``text`` takes: wide (CJK) and non-Latin characters count 2."""
    width = 0
    for ch in text:
        wide = unicodedata.east_asian_width(ch) in "WF" or ord(ch) > 0x24F
        width += 2 if wide else 1
    return width


def fit(text: str, budget: int) -> str:
    """``text`` cut at a word boundary (else a character) to at most ``budget`` columns."""
    if columns(text) <= budget:
        return text
    words, out = text.split(" "), ""
    for word in words:
        candidate = f"{out} {word}".strip()
        if columns(candidate) > budget:
            break
        out = candidate
    if not out:
        out = text
        while columns(out) > budget:
            out = out[:-1]
    return out.rstrip(" ,.-")


def whole(identifier: str, budget: int) -> str | None:
    """``identifier`` if it fits ``budget`` columns, else ``None``: an identifier is printed
    whole or not at all (a cut one would be printed, and recorded, wrong)."""
    return identifier if columns(identifier) <= budget else None


def digits(rng: random.Random, n: int) -> str:
    """``n`` random decimal digits."""
    return "".join(str(rng.randrange(10)) for _ in range(n))


def plain(text: str) -> str:
    """``text`` without combining marks (Arabic harakat: تمّام → تمام)."""
    return "".join(c for c in text if not unicodedata.combining(c))


#: words bound to the word after them (Arabic family and filial particles, titles, street
#: kinds): a line cut to fit never ends on one ("مجموعة آل", "محمد بن", "طريق الملك")
BOUND_WORDS = frozenset(("آل", "بن", "ابن", "بنت", "عبد", "أبو", "أبا", "أبي", "أم", "ذو",
                         "الملك", "الأمير", "شارع", "طريق", "حي", "شركة", "مؤسسة",
                         "مجموعة", "السيد", "السيدة", "الآنسة", "الدكتور", "الدكتورة",
                         "الأستاذ", "الأستاذة", "المهندس", "المهندسة", "من", "إلى"))


def fit_lines(lines: tuple[str, ...], budget: int) -> tuple[str, ...]:
    """Address lines fitted with :func:`fit_whole`; a line too long for ``budget`` is first
    broken at its commas (``،`` or ``,``) into lines of their own, so a street and its
    district are never cut."""
    out: list[str] = []
    for line in lines:
        parts = [line]
        if columns(line) > budget:
            parts = [p.strip() for p in line.replace("،", ",").split(",") if p.strip()] \
                if ("،" in line or "," in line) else [line]
        out += [fit_whole(p, budget) for p in parts]
    return tuple(out)


def fit_whole(text: str, budget: int) -> str:
    """:func:`fit`, then without the bound words a cut leaves at its end (the text as it
    is where nothing was cut)."""
    out = fit(text, budget)
    if out == text:
        return out
    words = out.split(" ")
    while len(words) > 1 and words[-1].rstrip("،,") in BOUND_WORDS:
        words.pop()
    return " ".join(words).rstrip(" ,.-،")


def arabic_company(name: str) -> str:
    """An Arabic company name from Faker's ar-SA one, which glues English to Arabic
    ("الشايع PLC", "الجفالي, آل العسكري and المشاولة"): its first family name, without the
    English words, as a company ("شركة الشايع")."""
    first = name.replace(" and ", ",").replace("-", ",").split(",")[0]
    words = [w for w in first.split() if not w.isascii()]
    return f"شركة {' '.join(words)}" if words else name
