"""Per-document conventions for a pack's content version 2 (issue 25): real documents of one
type differ from one issuer to the next in the words beside their values, their case and
punctuation, and how they write money and dates; a model trained on one convention learns
the convention. These helpers draw such a convention per document from a random stream of
its own (so a version-1 document's draws are untouched) — pure, deterministic in ``rng``.

- :func:`pick`: one of a pool of variants, the commonest first.
- :func:`vary_words`: a pack's printed words with some keys drawn from variant pools
  (:data:`PAGE_WORDS`: the page-number words every paginated pack shares).
- :func:`money_style`: the locale with amounts printed with their symbol, the ISO code or
  as bare numbers.
- :func:`date_style`: the locale with one of the numeric date orders its documents use.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Mapping

from docfleet.packs.sdk.locales import NBSP, Jurisdiction

#: numeric date styles a locale's documents use besides its default (``Jurisdiction.date``)
DATE_STYLES: dict[str, tuple[str, ...]] = {
    "en-US": ("mdy", "ymd-"),
    "en-GB": ("dmy/", "dmy.", "ymd-"),
    "en-AU": ("dmy/", "dmy.", "ymd-"),
    "en-CA": ("ymd-", "dmy/", "mdy"),
    "fr-FR": ("dmy/", "dmy.", "ymd-"),
    "fr-CH": ("dmy.", "dmy/", "ymd-"),
    "de-DE": ("dmy.", "ymd-", "dmy/"),
    "de-AT": ("dmy.", "ymd-", "dmy/"),
}


#: page numbers as documents print them ("Page 2 of 3", "S. 2/3", "2 sur 3"), per language:
#: the ``page`` and ``of`` words a pack's page footer prints, for :func:`vary_words`
PAGE_WORDS: dict[str, dict[str, tuple[str, ...]]] = {
    "en": {"page": ("Page", "Pg.", "p.", "Sheet", "Page no."), "of": ("of", "/")},
    "fr": {"page": ("Page", "P.", "Feuillet", "Pg", "Folio"), "of": ("sur", "/", "de")},
    "de": {"page": ("Seite", "S.", "Blatt", "Seite Nr.", "Bl."), "of": ("von", "/")},
    "ja": {"page": ("ページ", "頁", "P.", "No.", "Page", "枚目")},
    "ar": {"page": ("صفحة Page", "صفحة", "Page", "ص"), "of": ("/", "من")},
}


def pick(rng: random.Random, pool: tuple[str, ...], skew: float = 0.7) -> str:
    """One of ``pool``, the first likeliest (weight ``1 / (i + 1) ** skew``)."""
    return rng.choices(pool, [1 / (i + 1) ** skew for i in range(len(pool))])[0]


def vary_words(words: Mapping[str, str], variants: Mapping[str, tuple[str, ...]],
               rng: random.Random, upper: bool = False, skew: float = 0.4) -> dict[str, str]:
    """``words`` with every key that has ``variants`` drawn from them (:func:`pick` with
    ``skew``, in key order so the draws are stable), in capitals if ``upper``."""
    out = dict(words)
    for key in sorted(variants):
        if key in out and variants[key]:
            out[key] = pick(rng, variants[key], skew)
    if upper:
        out = {k: v.upper() for k, v in out.items()}
    return out


def money_style(jur: Jurisdiction, rng: random.Random,
                weights: tuple[float, float, float] = (6, 3, 1)) -> tuple[Jurisdiction, str]:
    """(the locale printing money one way, that way): ``symbol`` (the locale's own
    pattern), ``code`` (``1,234.50 EUR`` / ``EUR 1,234.50``) or ``bare`` (``1,234.50``),
    drawn with ``weights``."""
    mode = rng.choices(("symbol", "code", "bare"), weights)[0]
    if mode == "symbol":
        return jur, mode
    if mode == "bare":
        return dataclasses.replace(jur, pattern="{n}"), mode
    pattern = f"{jur.currency}{NBSP}{{n}}" if rng.random() < 0.5 else f"{{n}}{NBSP}{jur.currency}"
    return dataclasses.replace(jur, pattern=pattern), mode


def date_style(jur: Jurisdiction, rng: random.Random) -> Jurisdiction:
    """The locale with one of the numeric date styles of :data:`DATE_STYLES` (its own
    default first and likeliest); other locales unchanged."""
    styles = DATE_STYLES.get(jur.locale)
    if not styles:
        return jur
    return dataclasses.replace(jur, date_style=pick(rng, styles, 1.0))
