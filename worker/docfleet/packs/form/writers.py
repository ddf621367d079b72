"""Who fills a form in: typed entries (a typewriter or a form-filling program) and one to
three handwriting writers per document, each a handwriting font of Debian's packages
(``fonts-breip``, ``fonts-dancingscript``, ``fonts-kristi``;
``fonts-seto`` for Japanese, ``fonts-kacst``'s KacstPen for Arabic) with its own slant,
size, pressure (weight), ink and a per-entry baseline jitter (offset and tilt), all as CSS.
From content :data:`FONT_CONTENT` on, Japanese is typed in a font the PDF embeds
(:data:`EMBEDDED_TYPED`; ``packs.sdk.style.EMBEDDED``)."""

from __future__ import annotations

import random
from dataclasses import dataclass

#: handwriting fonts per script, with the widest and narrowest advance of their Latin
#: letters and digits (em), as measured in Chromium (CJK and Arabic: :func:`_advance`)
HANDS: dict[str, tuple[tuple[str, float, float], ...]] = {
    "latin": (("Breip", 0.60, 0.38), ("Dancing Script", 0.52, 0.34), ("Kristi", 0.42, 0.26)),
    "ja": (("SetoFont", 0.55, 0.45),),
    "ar": (("KacstPen", 0.60, 0.40),),
}
#: typed entries: a form-filling font, its widest and narrowest Latin advance
TYPED: dict[str, tuple[tuple[str, float, float], ...]] = {
    "latin": (("Liberation Mono", 0.62, 0.58), ("Liberation Sans", 0.60, 0.22),
              ("DejaVu Sans Mono", 0.62, 0.58)),
    "ja": (("Noto Sans CJK JP", 0.58, 0.45),),
    "ar": (("Noto Naskh Arabic", 0.60, 0.40),),
}
#: content 3 on (:data:`FONT_CONTENT`): a script's typed font in place of a CFF one, which
#: Chromium draws as Type 3 procedures; BIZ UDPGothic's Latin and digits are wider than
#: Noto's (per-answer mean up to 0.77 em) and its proportional kana narrower (down to 0.6)
EMBEDDED_TYPED: dict[str, tuple[tuple[str, float, float], ...]] = {
    "ja": (("BIZ UDPGothic", 0.78, 0.52),),
}
#: the content version from which :data:`EMBEDDED_TYPED` types (the pack's ``font_content``)
FONT_CONTENT = 3
#: the narrowest CJK advance (em) of a proportional font (a full-width one: 0.95)
PROPORTIONAL_CJK = {"BIZ UDPGothic": 0.58}
#: fallbacks after a writer's own font (a glyph it lacks: Œ, €)
FALLBACK = {"latin": "'Liberation Sans', sans-serif",
            "ja": "'Noto Sans CJK JP', sans-serif",
            "ar": "'Noto Naskh Arabic', 'DejaVu Sans', sans-serif"}
#: fonts whose letters are small for their size (a fine cursive) are written larger and
#: spaced wider (a text layer reader takes a doubled letter packed that tight for a
#: fake-bold duplicate and drops it)
SCALE, SPACING = {"Kristi": 1.35}, {"Kristi": 1.6}
INKS = ("#1b2f8a", "#15256b", "#222222", "#0d3b8c", "#2a2a40")
#: jitter classes per writer (a per-entry baseline offset and tilt)
JITTERS = 6


@dataclass(frozen=True)
class Writer:
    """One hand (or the typing) of a document."""

    number: int  # 0: typed; 1, 2, 3: handwriting writers
    font: str
    size: float  # px
    wide: float  # widest advance per column, em
    narrow: float  # narrowest advance per column, em
    slant: float  # skewX, degrees
    weight: int  # the pen's pressure as a font weight (400, or 700: a heavier stroke)
    ink: str
    spacing: float  # letter spacing, px
    jitter: tuple[tuple[float, float], ...]  # (dy px, rotation deg) per jitter class
    cjk_narrow: float = 0.95  # narrowest CJK advance, em (:data:`PROPORTIONAL_CJK`)

    @property
    def handwritten(self) -> bool:
        return self.number > 0

    def max_width(self, text: str) -> float:
        """The widest ``text`` can print in this hand, px."""
        return sum(_advance(ch, self.wide, 1.05, 0.5) * self.size + max(self.spacing, 0)
                   for ch in text) + 2

    def min_width(self, text: str) -> float:
        """The narrowest ``text`` can print in this hand, px."""
        return sum(_advance(ch, self.narrow, self.cjk_narrow, 0.22) * self.size
                   + min(self.spacing, 0) for ch in text)

    def css(self, script: str, fallback: str | None = None) -> str:
        """This writer's CSS classes: ``.w{n}`` and its jitter classes ``.w{n}.j{k}``;
        ``fallback``: the families after its own (default :data:`FALLBACK`'s)."""
        n = self.number
        rules = [f".w{n} {{ font-family: '{self.font}', {fallback or FALLBACK[script]}; "
                 f"font-size: {self.size}px; color: {self.ink}; "
                 f"letter-spacing: {self.spacing}px; font-weight: {self.weight}; }}"]
        for k, (dy, rot) in enumerate(self.jitter):
            rules.append(f".w{n}.j{k} {{ transform: translateY({dy}px) rotate({rot}deg) "
                         f"skewX({self.slant}deg); }}")
        return "\n".join(rules)


def _advance(ch: str, latin: float, wide: float, arabic: float) -> float:
    """A character's advance, em: a CJK or full-width one, an Arabic one, any other."""
    code = ord(ch)
    if 0x0600 <= code <= 0x06FF or 0xFB50 <= code <= 0xFEFF:
        return arabic
    if 0x2E80 <= code <= 0x9FFF or 0xFF00 <= code <= 0xFFEF or 0x3000 <= code <= 0x303F:
        return wide
    return latin


def script_of(language: str) -> str:
    return language if language in ("ja", "ar") else "latin"


def draw_writers(rng: random.Random, language: str, hands: int, embedded: bool = False
                 ) -> tuple[Writer, ...]:
    """The typing (writer 0) and ``hands`` handwriting writers of one document;
    ``embedded``: type in :data:`EMBEDDED_TYPED`'s font where the script has one (as
    many fonts as :data:`TYPED` gives the script, so the rest draws the same)."""
    script = script_of(language)
    typing = EMBEDDED_TYPED.get(script, TYPED[script]) if embedded else TYPED[script]
    font, wide, narrow = rng.choice(typing)
    typed = Writer(0, font, rng.choice((13.0, 13.5, 14.0)), wide, narrow, 0.0, 400,
                   "#111111", 0.0, tuple((0.0, 0.0) for _ in range(JITTERS)),
                   PROPORTIONAL_CJK.get(font, 0.95))
    writers = [typed]
    fonts = list(HANDS[script])
    rng.shuffle(fonts)
    for n in range(1, hands + 1):
        font, wide, narrow = fonts[(n - 1) % len(fonts)]
        size = round(min(21.0, rng.uniform(15.0, 18.0) * SCALE.get(font, 1.0)), 1)
        jitter = tuple((round(rng.uniform(-1.5, 1.5), 1), round(rng.uniform(-0.8, 0.8), 2))
                       for _ in range(JITTERS))
        writers.append(Writer(n, font, size, wide, narrow, round(rng.uniform(-12, 3), 1),
                              rng.choice((400, 400, 700)),
                              rng.choice(INKS),
                              round(rng.uniform(0.6, 1.3) + SPACING.get(font, 0), 1), jitter))
    return tuple(writers)
