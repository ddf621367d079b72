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
