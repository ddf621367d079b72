"""A document's look: colour palettes and font stacks, drawn per document from its style
seed (a ``random.Random`` of its own, so the look never shifts the record's draws).

Fonts are only families of Debian's fonts-dejavu-core and fonts-liberation2 (what
setup-dev and the image install), so layouts are the same wherever the worker runs; a
locale's script may override them (:attr:`.locales.Jurisdiction.fonts`)."""

from __future__ import annotations

import random

#: (primary, secondary) colours
PALETTES = (
    ("#1f4e79", "#f2a900"), ("#2e7d32", "#a5d6a7"), ("#8e24aa", "#f48fb1"),
    ("#c62828", "#424242"), ("#00695c", "#ffb300"), ("#283593", "#90caf9"),
    ("#4e342e", "#d7a86e"), ("#37474f", "#26a69a"), ("#ad1457", "#fce4ec"),
    ("#0d47a1", "#ef6c00"),
)
SANS = ("'Liberation Sans', sans-serif", "'DejaVu Sans', sans-serif")
SERIF = ("'Liberation Serif', serif", "'DejaVu Serif', serif")
MONO = ("'Liberation Mono', monospace", "'DejaVu Sans Mono', monospace")
#: a form-like look
FORM = ("'Liberation Sans', sans-serif", "'DejaVu Sans', sans-serif")


def barcode_bars(text: str, width: float) -> list[tuple[float, float]]:
    """Bars (x, width) in CSS px of a decorative barcode drawn from ``text`` (no text of
    its own, so it adds no words), ``width`` px wide."""
    rng = random.Random(text)
    bars, x = [], 4.0
    while x < width - 8:
        w = rng.choice((1.0, 1.0, 2.0, 3.0))
        bars.append((x, w))
        x += w + rng.choice((1.0, 2.0, 2.0, 3.0))
    return bars
