"""A document's look: colour palettes and font stacks, drawn per document from its style
seed (a ``random.Random`` of its own, so the look never shifts the record's draws).

Fonts are only families of Debian's fonts-dejavu-core and fonts-liberation2 (what
setup-dev and the image install), so layouts are the same wherever the worker runs; a
locale's script may override them (:attr:`.locales.Jurisdiction.fonts`), and from the
content versions that embed them a language's TrueType families stand in for its CFF ones
(:func:`embedded_fonts`: Japanese in BIZ UD)."""

from __future__ import annotations

import random
from functools import cache

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

#: TrueType families (gothic, mincho) for a language whose Debian fonts are CFF outlines.
#: Chromium's PDF embeds a TrueType font's glyphs as a font (Type0 / CIDFontType2, as real
#: Japanese PDFs carry theirs) but draws every glyph of a CFF font (Noto Sans CJK) as a
#: Type 3 procedure: 70-130 nameless fonts per Japanese invoice, several times the bytes
#: of a Latin one. BIZ UDPGothic and UDPMincho are Morisawa's (shipped with Windows),
#: from Debian's fonts-morisawa-bizud-gothic and -mincho; the Mincho has no bold, and a
#: synthesised bold is drawn as Type 3 too, so such documents synthesise no style.
EMBEDDED = {"ja": ("'BIZ UDPGothic'", "'BIZ UDPMincho'")}
#: the CFF families the embedded ones stand in for
_CFF = {"'noto sans cjk jp'": 0, "'noto serif cjk jp'": 1}
_GENERIC = ("serif", "sans-serif", "monospace", "cursive", "fantasy", "system-ui")


@cache  # a pure function of two strings, asked again for every document
def embedded_fonts(stack: str, language: str) -> str:
    """``stack`` (a CSS font-family list) with ``language``'s embedded family
    (:data:`EMBEDDED`) in place of a Noto CJK family, else before the generic family: the
    mincho where the stack's script is serif, the gothic otherwise, so the language's
    characters come from a font the PDF embeds while its Latin ones keep the stack's own
    face. ``stack`` unchanged for a language without one; idempotent."""
    faces = EMBEDDED.get(language.split("-")[0])
    if faces is None:
        return stack
    names = [name.strip() for name in stack.split(",") if name.strip()]
    if any(name in faces for name in names):
        return stack
    serif = next((_CFF[n.lower()] for n in names if n.lower() in _CFF),
                 int(bool(names) and names[-1] == "serif"))
    names = [name for name in names if name.lower() not in _CFF]
    at = next((k for k, name in enumerate(names) if name in _GENERIC), len(names))
    names.insert(at, faces[serif])
    return ", ".join(names)


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
