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
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import NamedTuple

from docfleet.render.layout import Box, Layout, WordBox, round3

#: resolution of the visibility raster: enough to see a 7 pt glyph, cheap to draw
VISIBILITY_DPI = 72
#: least grey-level range (0-255) inside a visible word's ink box at that resolution
MIN_CONTRAST = 24
#: a word whose ink is narrower or lower than 2 pt or covers under 12 pt² (a dot, a
#: dash, "!", "=") is too small for that raster to judge
MIN_INK, MIN_INK_AREA = 2.0, 12.0
#: slack (points) when a glyph's centre is matched to a word box
_SLACK = 0.75
#: height (points) of the bands a page's words are indexed by
_BAND = 4.0


class Glyph(NamedTuple):
    """One printed glyph: its text, typographic and ink boxes (points, top-left origin)
    and the layout word it belongs to (an index into :attr:`Layout.words`). A named
    tuple: a page holds thousands, made in the hot path."""

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
    """The smallest box holding ``boxes`` (None for none); on a tie the earlier box's
    value is kept, as min/max keep it."""
    it = iter(boxes)
    for x0, y0, x1, y1 in it:
        for a, b, c, d in it:
            if a < x0:
                x0 = a
            if b < y0:
                y0 = b
            if c > x1:
                x1 = c
            if d > y1:
                y1 = d
        return (x0, y0, x1, y1)
    return None


def _page_glyphs(textpage: object, height: float) -> tuple[list[str], list[float]]:
    """The text of every printed character of a text page and its edges, eight a
    character: its typographic box (x0, y0, x1, y1), then its ink box, in points with a
    top-left origin, each ``round(v, 3)``; generated spaces and line breaks left out."""
    import pypdfium2.raw as raw

    tp = textpage
    left, right, bottom, top = (ctypes.c_double() for _ in range(4))
    loose = raw.FS_RECTF()
    char_box, loose_box = _box_calls()
    handle = ctypes.c_void_p(ctypes.cast(tp, ctypes.c_void_p).value)  # type: ignore[arg-type]
    refs = [ctypes.byref(v) for v in (left, right, bottom, top)]
    loose_ref = ctypes.byref(loose)
    texts: list[str] = []
    edges: list[float] = []
    count = raw.FPDFText_CountChars(tp)
    codes = _codes(tp, count) or [raw.FPDFText_GetUnicode(tp, i) for i in range(count)]
    for i, code in enumerate(codes):
        if code == 0 or code == 0xFFFE:  # pdfium's generated characters: spaces, breaks
            continue
        text = chr(code)
        if text.isspace():
            continue
        char_box(handle, i, *refs)
        loose_box(handle, i, loose_ref)
        texts.append(text)
        edges += (loose.left, height - loose.top, loose.right, height - loose.bottom,
                  left.value, height - top.value, right.value, height - bottom.value)
    return texts, round3(edges)


def _box_calls() -> tuple[Callable[..., int], Callable[..., int]]:
    """``FPDFText_GetCharBox`` and ``FPDFText_GetLooseCharBox`` as bare C calls (no
    argument conversion: called with a ``c_void_p`` text page, an index and ``byref``
    pointers), made once per process."""
    global _BOX_CALLS
    if _BOX_CALLS is None:
        import pypdfium2.raw as raw

        bare = ctypes.CFUNCTYPE(ctypes.c_int)
        char_box, loose_box = (ctypes.cast(f, ctypes.c_void_p).value or 0
                               for f in (raw.FPDFText_GetCharBox,
                                         raw.FPDFText_GetLooseCharBox))
        _BOX_CALLS = (bare(char_box), bare(loose_box))
    assert _BOX_CALLS is not None
    return _BOX_CALLS


_BOX_CALLS: tuple[Callable[..., int], Callable[..., int]] | None = None


def _codes(textpage: object, count: int) -> list[int] | None:
    """The text page's characters in one call (``FPDFText_GetText``, UTF-16), or None
    when that text does not map one code unit to one character (a surrogate pair)."""
    import pypdfium2.raw as raw

    if count <= 0:
        return None
    buffer = ctypes.create_string_buffer(2 * (count + 1))
    got = raw.FPDFText_GetText(textpage, 0, count,
                               ctypes.cast(buffer, ctypes.POINTER(ctypes.c_ushort)))
    if got != count + 1:
        return None
    codes = memoryview(buffer.raw).cast("H")[:count].tolist()
    if any(0xD800 <= c <= 0xDFFF for c in codes):
        return None
    return codes


class _WordIndex:
    """The words of one page by band of height :data:`_BAND` points: which word holds a
    point (within :data:`_SLACK`; nested boxes: the tightest, then the first by top).
    Each band holds ``(word, x0 - slack, y0 - slack, x1 + slack, y1 + slack, area)``: the
    same floats the comparison would compute, computed once."""

    def __init__(self, words: list[tuple[int, WordBox]]) -> None:
        self.bands: dict[int, list[tuple[int, float, float, float, float, float]]] = {}
        for index, w in sorted(words, key=lambda w: w[1].box[1]):
            x0, y0, x1, y1 = w.box
            entry = (index, x0 - _SLACK, y0 - _SLACK, x1 + _SLACK, y1 + _SLACK,
                     (x1 - x0) * (y1 - y0))
            for band in range(math.floor((y0 - _SLACK) / _BAND),
                              math.floor((y1 + _SLACK) / _BAND) + 1):
                self.bands.setdefault(band, []).append(entry)

    def find(self, x: float, y: float) -> int | None:
        """The word holding ``(x, y)``, or None: the rule :meth:`assign` writes out."""
        best, least = None, math.inf
        for index, lx, ly, hx, hy, area in self.bands.get(math.floor(y / _BAND), ()):
            if lx <= x <= hx and ly <= y <= hy and area < least:
                best, least = index, area  # nested boxes (never in practice): the tightest
        return best

    def assign(self, page: int, texts: list[str], edges: list[float],
               word_glyphs: list[list[Glyph]]) -> None:
        """Append each glyph of ``page`` (``texts``, eight ``edges`` each: typographic
        box, then ink box, as :func:`_page_glyphs` gives them) to the list of the word
        :meth:`find` gives for its typographic centre; a glyph no word holds is left out.
        :meth:`find` written out in the loop: a page has about a thousand glyphs. Raises
        ``ValueError`` unless there are eight edges a text."""
        if len(edges) != 8 * len(texts):
            raise ValueError(f"{len(texts)} glyphs with {len(edges)} edges")
        bands, floor, make, inf = self.bands, math.floor, Glyph._make, math.inf
        it = iter(edges)
        for text, x0, y0, x1, y1, a, b, c, d in zip(texts, *[it] * 8, strict=True):
            x, y = (x0 + x1) / 2, (y0 + y1) / 2
            best, least = None, inf
            for index, lx, ly, hx, hy, area in bands.get(floor(y / _BAND), ()):
                if lx <= x <= hx and ly <= y <= hy and area < least:
                    best, least = index, area
            if best is not None:
                word_glyphs[best].append(make((page, best, text, (x0, y0, x1, y1),
                                               (a, b, c, d))))


def measure_ink(pdf: bytes, layout: Layout, visibility: bool = True) -> Ink:
    """The ink of ``layout`` (measured on the page Chromium laid out) in ``pdf`` (what it
    printed, clean). ``visibility``: also render each page and report the words a reader
    cannot see."""
    import pypdfium2 as pdfium

    by_page: dict[int, list[tuple[int, WordBox]]] = {}
    for k, w in enumerate(layout.words):
        by_page.setdefault(w.page, []).append((k, w))
    word_glyphs: list[list[Glyph]] = [[] for _ in layout.words]
    word_ink: list[Box | None] = [None] * len(layout.words)
    faults: list[str] = []
    doc = pdfium.PdfDocument(pdf)
    try:
        for n in range(1, len(doc) + 1):
            page = doc[n - 1]
            try:
                on_this = by_page.get(n, [])
                index = _WordIndex(on_this)
                tp = page.get_textpage()
                try:
                    texts, e = _page_glyphs(tp.raw, page.get_height())
                finally:
                    tp.close()
                index.assign(n, texts, e, word_glyphs)
                for k, _ in on_this:  # a word's glyphs are all on its page
                    word_ink[k] = _union([g.ink for g in word_glyphs[k]])
                if visibility:
                    faults += _unseen(page, on_this, word_ink)
            finally:
                page.close()
    finally:
        doc.close()
    words = [ink or w.box for w, ink in zip(layout.words, word_ink, strict=True)]
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
    """The ink of the glyphs of ``words`` whose centre lies in one of ``lines`` (within
    :data:`_SLACK`)."""
    slack = [(x0 - _SLACK, y0 - _SLACK, x1 + _SLACK, y1 + _SLACK) for x0, y0, x1, y1 in lines]
    inked = []
    for k in words:
        for g in word_glyphs[k]:
            box = g.box
            x, y = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
            for x0, y0, x1, y1 in slack:
                if x0 <= x <= x1 and y0 <= y <= y1:
                    inked.append(g.ink)
                    break
    return _union(inked)


def _unseen(page: object, words: list[tuple[int, WordBox]], word_ink: list[Box | None]
            ) -> list[str]:
    """Faults for the words of ``page`` whose ink shows no contrast on its raster."""
    scale = VISIBILITY_DPI / 72
    image = page.render(scale=scale, grayscale=True,  # type: ignore[attr-defined]
                        draw_annots=False).to_pil()
    if image.mode != "L":
        image = image.convert("L")
    # Pillow's core image: a crop and its extrema in C, no Python Image per word (the
    # same pixels as ``Image.crop``, which rounds its box to these ints)
    crop = image.im.crop
    faults = []
    for k, w in words:
        ink = word_ink[k]
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
        lo, hi = crop((x0, y0, x1, y1)).getextrema()  # past the edge: black
        if hi - lo < MIN_CONTRAST:
            faults.append(f"word {w.text!r}{_owner(w)} is not visible on page {w.page}")
    return faults


def _owner(w: WordBox) -> str:
    if w.field:
        return f" of field {w.field}" + (f" (line {w.line})" if w.line is not None else "")
    return f" of label {w.label}" if w.label is not None else ""
