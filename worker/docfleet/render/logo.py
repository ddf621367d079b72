"""Inline SVG logos drawn from a seed: a few geometric marks in the seller's colours.
Shapes only (no text), so a logo adds no words to the page."""

from __future__ import annotations

import math
import random

from markupsafe import Markup


def _polygon(cx: float, cy: float, r: float, sides: int, turn: float) -> str:
    pts = []
    for k in range(sides):
        a = turn + 2 * math.pi * k / sides
        pts.append(f"{cx + r * math.cos(a):.1f},{cy + r * math.sin(a):.1f}")
    return " ".join(pts)


def logo_svg(seed: int, primary: str, secondary: str, size: int = 56) -> Markup:
    """A ``size``-px square SVG mark; the same seed draws the same mark."""
    rng = random.Random(seed)
    kind = rng.randrange(5)
    s = 100
    parts: list[str] = []
    if kind == 0:  # rings
        for i in range(rng.randint(2, 4)):
            r = 44 - i * 11
            parts.append(f'<circle cx="50" cy="50" r="{r}" fill="none" '
                         f'stroke="{primary if i % 2 == 0 else secondary}" stroke-width="7"/>')
    elif kind == 1:  # polygon with inner mark
        sides = rng.choice((3, 5, 6, 8))
        parts.append(f'<polygon points="{_polygon(50, 50, 46, sides, rng.random())}" '
                     f'fill="{primary}"/>')
        parts.append(f'<circle cx="50" cy="50" r="{rng.randint(10, 20)}" fill="{secondary}"/>')
    elif kind == 2:  # bars
        n = rng.randint(3, 5)
        width = 80 / n
        for i in range(n):
            height = rng.randint(30, 90)
            parts.append(f'<rect x="{10 + i * width:.1f}" y="{95 - height}" '
                         f'width="{width - 4:.1f}" height="{height}" '
                         f'fill="{primary if i % 2 else secondary}"/>')
    elif kind == 3:  # quarter tiles
        for i, (x, y) in enumerate(((6, 6), (52, 6), (6, 52), (52, 52))):
            shape = rng.randrange(2)
            fill = primary if (i + shape) % 2 else secondary
            if shape:
                parts.append(f'<rect x="{x}" y="{y}" width="42" height="42" rx="8" '
                             f'fill="{fill}"/>')
            else:
                parts.append(f'<circle cx="{x + 21}" cy="{y + 21}" r="21" fill="{fill}"/>')
    else:  # leaf / wave
        parts.append(f'<path d="M10 80 Q 50 {rng.randint(-10, 30)} 90 20 Q 60 90 10 80 Z" '
                     f'fill="{primary}"/>')
        parts.append(f'<circle cx="{rng.randint(25, 75)}" cy="{rng.randint(25, 75)}" r="9" '
                     f'fill="{secondary}"/>')
    body = "".join(parts)
    return Markup(f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" '
                  f'viewBox="0 0 {s} {s}" aria-hidden="true">{body}</svg>')
