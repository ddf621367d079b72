"""Ink truth from the printed PDF: every glyph's outline box, and what a reader can see.

Chromium's layout gives typographic boxes (the font's ascent to descent, the advance
widths). The ink is read from the clean PDF Chromium printed, with pdfium's text page:
for each character, ``FPDFText_GetCharBox`` is the bounding box of its glyph's outline in
the embedded font, placed at the glyph's origin and scaled by the font size (exact: no
rasterising), and ``FPDFText_GetLooseCharBox`` its typographic box (advance x ascent to
descent). A glyph belongs to the layout word whose box holds its typographic centre; a
word's, field's or label's ink box is the union of its glyphs' outline boxes.

:func:`measure_ink` also looks at the page as a reader does: the page rendered at
:data:`VISIBILITY_DPI`, a word whose ink box shows no contrast (every pixel one shade:
painted over, clipped away, or printed in the colour of what lies under it) is a fault.
"""

from __future__ import annotations

import ctypes
import math
from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from dataclasses import dataclass

from docfleet.render.layout import Box, Layout, WordBox

#: resolution of the visibility raster: enough to see a 7 pt glyph, cheap to draw
VISIBILITY_DPI = 72
#: least grey-level range (0-255) inside a visible word's ink box at that resolution
MIN_CONTRAST = 24
#: a word whose ink is narrower or lower than 2 pt or covers under 12 pt² (a dot, a
#: dash, "!", "=") is too small for that raster to judge
MIN_INK, MIN_INK_AREA = 2.0, 12.0
#: slack (points) when a glyph's centre is matched to a word box
_SLACK = 0.75


@dataclass(frozen=True)
class Glyph:
    """One printed glyph: its text, typographic and ink boxes (points, top-left origin)
    and the layout word it belongs to (an index into :attr:`Layout.words`)."""

    page: int
    word: int
    text: str
    box: Box
    ink: Box


@dataclass(frozen=True)
class Ink:
    """The ink boxes of a layout's words, fields and labels (same order as the layout's
    lists; a value with no glyph keeps its typographic box), its glyphs in reading order
    (by word, then as the PDF holds them) and the visibility faults."""

    words: list[Box]
    fields: list[Box]
    labels: list[Box]
    glyphs: list[Glyph]
    faults: list[str]


def _union(boxes: Iterable[Box]) -> Box | None:
    x0 = y0 = float("inf")
    x1 = y1 = float("-inf")
    for b in boxes:
        x0, y0, x1, y1 = min(x0, b[0]), min(y0, b[1]), max(x1, b[2]), max(y1, b[3])
    return None if x0 == float("inf") else (x0, y0, x1, y1)


def _page_glyphs(textpage: object, height: float) -> list[tuple[str, Box, Box]]:
    """(text, typographic box, ink box) of every printed character of a text page, in
    points with a top-left origin; generated spaces and line breaks left out."""
    import pypdfium2.raw as raw

    tp = textpage
    out = []
    left, right, bottom, top = (ctypes.c_double() for _ in range(4))
    loose = raw.FS_RECTF()
    unicode, char_box, loose_box = (raw.FPDFText_GetUnicode, raw.FPDFText_GetCharBox,
                                    raw.FPDFText_GetLooseCharBox)
    for i in range(raw.FPDFText_CountChars(tp)):
        code = unicode(tp, i)  # pdfium's generated characters are spaces and breaks
        if code in (0, 0xFFFE) or chr(code).isspace():
            continue
        char_box(tp, i, left, right, bottom, top)
        loose_box(tp, i, loose)
        ink = (round(left.value, 3), round(height - top.value, 3),
               round(right.value, 3), round(height - bottom.value, 3))
        typo = (round(loose.left, 3), round(height - loose.top, 3),
                round(loose.right, 3), round(height - loose.bottom, 3))
        out.append((chr(code), typo, ink))
    return out


class _WordIndex:
    """The words of one page by vertical position: which word holds a point."""

    def __init__(self, words: list[tuple[int, WordBox]]) -> None:
        self.words = sorted(words, key=lambda w: w[1].box[1])
        self.tops = [w.box[1] for _, w in self.words]
        self.tallest = max((w.box[3] - w.box[1] for _, w in self.words), default=0.0)

    def find(self, x: float, y: float) -> int | None:
        lo = bisect_left(self.tops, y - self.tallest - _SLACK)
        hi = bisect_right(self.tops, y + _SLACK)
        best, area = None, float("inf")
        for k in range(lo, hi):
            index, w = self.words[k]
            x0, y0, x1, y1 = w.box
            if x0 - _SLACK <= x <= x1 + _SLACK and y0 - _SLACK <= y <= y1 + _SLACK:
                a = (x1 - x0) * (y1 - y0)
                if a < area:  # nested boxes (never in practice): the tightest
                    best, area = index, a
        return best


def _inside(point: tuple[float, float], boxes: Iterable[Box]) -> bool:
    x, y = point
    return any(b[0] - _SLACK <= x <= b[2] + _SLACK and b[1] - _SLACK <= y <= b[3] + _SLACK
               for b in boxes)


def _centre(b: Box) -> tuple[float, float]:
    return (b[0] + b[2]) / 2, (b[1] + b[3]) / 2


def measure_ink(pdf: bytes, layout: Layout, visibility: bool = True) -> Ink:
    """The ink of ``layout`` (measured on the page Chromium laid out) in ``pdf`` (what it
    printed, clean). ``visibility``: also render each page and report the words a reader
    cannot see."""
    import pypdfium2 as pdfium

    by_page: dict[int, list[tuple[int, WordBox]]] = {}
    for k, w in enumerate(layout.words):
        by_page.setdefault(w.page, []).append((k, w))
    word_glyphs: list[list[Glyph]] = [[] for _ in layout.words]
    faults: list[str] = []
    doc = pdfium.PdfDocument(pdf)
    try:
        for n in range(1, len(doc) + 1):
            page = doc[n - 1]
            try:
                index = _WordIndex(by_page.get(n, []))
                tp = page.get_textpage()
                try:
                    printed = _page_glyphs(tp.raw, page.get_height())
                finally:
                    tp.close()
                for text, typo, ink in printed:
                    found = index.find(*_centre(typo))
                    if found is not None:
                        word_glyphs[found].append(Glyph(n, found, text, typo, ink))
                if visibility:
                    faults += _unseen(page, layout, word_glyphs, by_page.get(n, []))
            finally:
                page.close()
    finally:
        doc.close()
    words = []
    for w, glyphs in zip(layout.words, word_glyphs, strict=True):
        words.append(_union(g.ink for g in glyphs) or w.box)
    of_field: dict[tuple[int, str | None, int | None, int | None], list[int]] = {}
    of_label: dict[int | None, list[int]] = {}
    for k, w in enumerate(layout.words):
        of_field.setdefault((w.page, w.field, w.line, w.occurrence), []).append(k)
        of_label.setdefault(w.label, []).append(k)
    on_page = {n: [k for k, _ in ws] for n, ws in by_page.items()}
    fields = []
    for f in layout.fields:  # a field inside a word another field owns: any word
        lines = f.lines or (f.box,)
        near = of_field.get((f.page, f.field, f.line, f.occurrence), [])
        fields.append(_ink_within(lines, near, word_glyphs)
                      or _ink_within(lines, on_page.get(f.page, []), word_glyphs) or f.box)
    labels = []
    for lab in layout.labels:
        lines = lab.lines or (lab.box,)
        near = of_label.get(lab.id, [])
        labels.append(_ink_within(lines, near, word_glyphs)
                      or _ink_within(lines, on_page.get(lab.page, []), word_glyphs)
                      or lab.box)
    glyphs = [g for gs in word_glyphs for g in gs]
    return Ink(words, fields, labels, glyphs, faults)


def _ink_within(lines: tuple[Box, ...], words: list[int], word_glyphs: list[list[Glyph]]
                ) -> Box | None:
    """The ink of the glyphs of ``words`` whose centre lies in one of ``lines``."""
    return _union(g.ink for k in words for g in word_glyphs[k]
                  if _inside(_centre(g.box), lines))


def _unseen(page: object, layout: Layout, word_glyphs: list[list[Glyph]],
            words: list[tuple[int, WordBox]]) -> list[str]:
    """Faults for the words of ``page`` whose ink shows no contrast on its raster."""
    scale = VISIBILITY_DPI / 72
    image = page.render(scale=scale, grayscale=True,  # type: ignore[attr-defined]
                        draw_annots=False).to_pil().convert("L")
    faults = []
    for k, w in words:
        ink = _union(g.ink for g in word_glyphs[k])
        if ink is None:
            faults.append(f"word {w.text!r}{_owner(w)} has no glyph in the PDF on page "
                          f"{w.page}")
            continue
        w_, h_ = ink[2] - ink[0], ink[3] - ink[1]
        if min(w_, h_) < MIN_INK or w_ * h_ < MIN_INK_AREA:
            continue
        x0, y0 = math.floor(ink[0] * scale), math.floor(ink[1] * scale)
        x1 = max(x0 + 1, math.ceil(ink[2] * scale))
        y1 = max(y0 + 1, math.ceil(ink[3] * scale))
        lo, hi = image.crop((x0, y0, x1, y1)).getextrema()
        if hi - lo < MIN_CONTRAST:
            faults.append(f"word {w.text!r}{_owner(w)} is not visible on page {w.page}")
    return faults


def _owner(w: WordBox) -> str:
    if w.field:
        return f" of field {w.field}" + (f" (line {w.line})" if w.line is not None else "")
    return f" of label {w.label}" if w.label is not None else ""
