"""The parts of the ink truth (render/ink.py) that its speed rests on, each against the
plain rule it replaced: the banded word index finds what a scan of every word finds (and
its glyph loop, what ``find`` finds), the
union keeps the earlier value on a tie, and the page's text read in one call equals the
text read character by character (and gives way to it for a character beyond the BMP),
the boxes read by bare C calls and rounded as one array are the same floats, and the
layout's boxes converted to points as one array land where the box-by-box conversion put
them."""

from __future__ import annotations

import ctypes
import pickle
import random
import subprocess
import sys
from pathlib import Path

import pypdfium2 as pdfium
import pytest

from docfleet.render import ink
from docfleet.render.browser import Chromium
from docfleet.render.ink import measure_ink
from docfleet.render.layout import PX_TO_PT, WordBox, parse_layout, round3


def _word(box: tuple[float, float, float, float]) -> WordBox:
    return WordBox(page=1, text="w", box=box, field=None, line=None, occurrence=None,
                   label=None)


def _scan(words: list[tuple[int, WordBox]], x: float, y: float) -> int | None:
    """The rule: of the words holding the point (within the slack), the tightest; on a
    tie, the first by top (a stable sort)."""
    best, area = None, float("inf")
    for index, w in sorted(words, key=lambda w: w[1].box[1]):
        x0, y0, x1, y1 = w.box
        s = ink._SLACK
        if x0 - s <= x <= x1 + s and y0 - s <= y <= y1 + s:
            a = (x1 - x0) * (y1 - y0)
            if a < area:
                best, area = index, a
    return best


def test_the_banded_index_finds_what_a_scan_of_every_word_finds() -> None:
    rng = random.Random(32)
    for _ in range(40):
        words = []
        for k in range(rng.randint(0, 60)):
            x0, y0 = rng.uniform(-5, 580), rng.uniform(-5, 800)
            # some tall words (a title), some boxes repeated (a tie), edges on band lines
            h = rng.choice((rng.uniform(4, 14), 24.0, 4.0 * rng.randint(1, 4)))
            if rng.random() < 0.2:
                y0 = 4.0 * rng.randint(0, 200) - ink._SLACK
            box = (x0, y0, x0 + rng.uniform(2, 90), y0 + h)
            if words and rng.random() < 0.1:
                box = words[-1][1].box
            words.append((k, _word(box)))
        index = ink._WordIndex(words)
        points = [(rng.uniform(-10, 700), rng.uniform(-10, 830)) for _ in range(300)]
        for _, w in words:  # the edges themselves, slack included
            x0, y0, x1, y1 = w.box
            points += [(x0 - ink._SLACK, y0 - ink._SLACK), (x1 + ink._SLACK, y1 + ink._SLACK),
                       ((x0 + x1) / 2, (y0 + y1) / 2), (x0, y1 + ink._SLACK + 1e-9)]
        for x, y in points:
            assert index.find(x, y) == _scan(words, x, y), (x, y)


def test_assigning_a_pages_glyphs_is_finding_each_glyphs_word() -> None:
    """The loop with :meth:`find` written out gives every glyph the word ``find`` gives
    it, as the same Glyph, in the same order; a glyph outside every word is left out."""
    rng = random.Random(48)
    assigned = missed = 0
    for _ in range(30):
        words = []
        for k in range(rng.randint(0, 50)):
            x0, y0 = rng.uniform(0, 560), rng.uniform(0, 800)
            box = (x0, y0, x0 + rng.uniform(2, 90), y0 + rng.choice((9.0, 24.0, 4.0)))
            if words and rng.random() < 0.1:
                box = words[-1][1].box  # a tie: the first by top
            words.append((k, _word(box)))
        texts: list[str] = []
        edges: list[float] = []
        for _ in range(rng.randint(0, 400)):
            x0, y0 = rng.uniform(-10, 650), rng.uniform(-10, 830)
            if words and rng.random() < 0.7:  # most glyphs sit in a word
                wx0, wy0, wx1, wy1 = rng.choice(words)[1].box
                x0, y0 = rng.uniform(wx0 - 2, wx1), rng.uniform(wy0 - 2, wy1)
            typo = [x0, y0, x0 + rng.uniform(1, 8), y0 + rng.uniform(4, 12)]
            texts.append(rng.choice("aéZ7ü.-"))
            edges += typo + [v + rng.uniform(-0.5, 0.5) for v in typo]
        index = ink._WordIndex(words)
        want: list[list[ink.Glyph]] = [[] for _ in words]
        for k, text in enumerate(texts):
            x0, y0, x1, y1 = edges[8 * k:8 * k + 4]
            found = index.find((x0 + x1) / 2, (y0 + y1) / 2)
            if found is None:
                missed += 1
                continue
            want[found].append(ink.Glyph(3, found, text, (x0, y0, x1, y1),
                                         tuple(edges[8 * k + 4:8 * k + 8])))  # type: ignore[arg-type]
        got: list[list[ink.Glyph]] = [[] for _ in words]
        index.assign(3, texts, edges, got)
        assert got == want
        assert all(type(g) is ink.Glyph for gs in got for g in gs)
        assigned += sum(map(len, got))
    assert assigned > 2000 and missed > 500  # both paths, many times
    with pytest.raises(ValueError, match="edges"):
        ink._WordIndex([]).assign(1, ["a"], [0.0] * 7, [])


def test_the_union_is_the_smallest_box_and_keeps_the_earlier_value_on_a_tie() -> None:
    assert ink._union([]) is None
    assert ink._union(iter([(1.0, 2.0, 3.0, 4.0)])) == (1.0, 2.0, 3.0, 4.0)
    assert ink._union([(1.0, 5.0, 3.0, 6.0), (0.5, 2.0, 2.0, 9.0), (2.0, 3.0, 7.0, 1.0)]) \
        == (0.5, 2.0, 7.0, 9.0)
    tied = ink._union([(0.0, -0.0, 1.0, 1.0), (-0.0, 0.0, 1.0, 1.0)])
    assert tied is not None and str(tied[0]) == "0.0" and str(tied[1]) == "-0.0"


def _reference(textpage: object, height: float) -> list[tuple[str, ink.Box, ink.Box]]:
    """The plain rule: each character asked for by itself through pypdfium2's bindings,
    each edge ``round(v, 3)``."""
    raw = pdfium.raw
    left, right, bottom, top = (ctypes.c_double() for _ in range(4))
    loose = raw.FS_RECTF()
    out = []
    for i in range(raw.FPDFText_CountChars(textpage)):
        code = raw.FPDFText_GetUnicode(textpage, i)
        if code in (0, 0xFFFE) or chr(code).isspace():
            continue
        raw.FPDFText_GetCharBox(textpage, i, left, right, bottom, top)
        raw.FPDFText_GetLooseCharBox(textpage, i, loose)
        out.append((chr(code),
                    (round(loose.left, 3), round(height - loose.top, 3),
                     round(loose.right, 3), round(height - loose.bottom, 3)),
                    (round(left.value, 3), round(height - top.value, 3),
                     round(right.value, 3), round(height - bottom.value, 3))))
    return out


def _glyphs(pdf: bytes, how: str, monkeypatch: pytest.MonkeyPatch
            ) -> list[tuple[str, ink.Box, ink.Box]]:
    with monkeypatch.context() as m:
        if how == "by character":
            m.setattr(ink, "_codes", lambda textpage, count: None)
        doc = pdfium.PdfDocument(pdf)
        try:
            page = doc[0]
            tp = page.get_textpage()
            try:
                if how == "reference":
                    return _reference(tp.raw, page.get_height())
                texts, e = ink._page_glyphs(tp.raw, page.get_height())
                return [(t, (e[k], e[k + 1], e[k + 2], e[k + 3]),
                         (e[k + 4], e[k + 5], e[k + 6], e[k + 7]))
                        for t, k in zip(texts, range(0, len(e), 8), strict=True)]
            finally:
                tp.close()
                page.close()
        finally:
            doc.close()


@pytest.mark.parametrize("text", ["Total 1 234,50 € — Straße", "合計 ¥12,345 (税込)",
                                  "a 𠀋 b 𝐀 c"])  # noqa: RUF001 (beyond the BMP on purpose)
def test_the_page_read_in_bulk_equals_the_page_read_by_character(
    chromium: Chromium, text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The text in one call (or by character past the BMP), the boxes by bare C calls
    and the edges rounded as one array: the same glyphs, to the bit, as the plain rule."""
    html = ("<html><head><style>@page { size: 600px 400px; margin: 0 }"
            "html, body { margin: 0; padding: 0 } p { margin: 8px }"
            "div.page { width: 600px; height: 400px; position: relative; overflow: hidden }"
            "</style></head>"
            f"<body><div class='page' style='font-size:14pt'><p>{text}</p><p>{text}</p>"
            "</div></body></html>")
    printed = chromium.submit(html, 600, 400).result(timeout=120)
    assert printed.pdf is not None
    reference = _glyphs(printed.pdf, "reference", monkeypatch)
    assert len(reference) >= 2 * len(text.replace(" ", "")) - 4
    for how in ("bulk", "by character"):
        assert repr(_glyphs(printed.pdf, how, monkeypatch)) == repr(reference), how
    doc = pdfium.PdfDocument(printed.pdf)
    try:
        tp = doc[0].get_textpage()
        count = pdfium.raw.FPDFText_CountChars(tp.raw)
        beyond = any(ord(c) > 0xFFFF for c in text)
        assert (ink._codes(tp.raw, count) is None) == beyond  # a surrogate: by character
        tp.close()
    finally:
        doc.close()


def test_rounding_as_one_array_gives_round_s_floats() -> None:
    """Halves (exact and within float error of one), signed zeros, tiny, huge and
    non-finite values, and a page's worth of random coordinates."""
    rng = random.Random(3)
    values = [0.0625, -0.0625, 2.0005, 1.0015, 0.0005, -0.0004, -0.0, 0.0, 1e-12, -1e-12,
              841.8899999999999, 595.2760009765625, 1e7 + 0.0005, 1e300, -1e300,
              float("inf"), float("-inf"), float("nan")]
    values += [k / 1000 + 0.0005 for k in range(-2000, 2000)]
    values += [rng.uniform(-50, 900) for _ in range(20_000)]
    values += [float(rng.randint(-900_000, 900_000)) / 1000 for _ in range(2_000)]
    assert repr(round3(values)) == repr([round(v, 3) for v in values])
    assert round3([]) == []


def test_scaled_rounding_gives_round_s_floats() -> None:
    """What the layout's px -> pt conversion asks: ``round(v * 0.75, 3)``, for ints and
    floats alike (the page's JSON holds both)."""
    rng = random.Random(4)
    values: list[float] = [rng.uniform(-20, 1200) for _ in range(20_000)]
    values += [rng.randint(-50, 1200) for _ in range(500)]
    values += [k / 750 + 1 / 1500 for k in range(-3000, 3000)]  # a half after the scaling
    assert repr(round3(values, PX_TO_PT)) == repr([round(v * PX_TO_PT, 3) for v in values])


def _box(rng: random.Random) -> list[float]:
    x, y = rng.choice((rng.uniform(0, 800), float(rng.randint(0, 800)))), rng.uniform(0, 1100)
    return [x, y, x + rng.uniform(0, 300), y + rng.choice((rng.uniform(0, 40), 16))]


def test_the_layout_s_boxes_converted_at_once_are_those_converted_one_by_one() -> None:
    """parse_layout converts every box of the page's result in one array; each lands
    where the box-by-box conversion put it."""
    rng = random.Random(5)

    def pt(box: list[float]) -> tuple[float, ...]:
        return tuple(round(v * PX_TO_PT, 3) for v in box)

    words = [_box(rng) for _ in range(200)]
    lines = [_box(rng) for _ in range(40)]
    raw = {"pages": 1, "faults": [], "hidden": [],
           "fields": [{"field": f"f{k}", "line": None, "occ": 0, "text": "t", "page": 1,
                       "box": _box(rng), "lines": [_box(rng) for _ in range(k % 3)]}
                      for k in range(30)],
           "keys": [["f0", None, 0], ["f1", 2, 1]],
           "labels": [{"id": k, "page": 1, "kind": "label", "name": "n", "scope": None,
                       "text": "t", "box": _box(rng), "lines": [_box(rng)] * (k % 2 + 1),
                       "links": []} for k in range(12)],
           "words": {"page": [1] * 200, "text": [f"w{k}" for k in range(200)],
                     "box": [v for b in words for v in b],
                     "key": [k % 3 - 1 for k in range(200)],
                     "label": [k % 4 - 1 for k in range(200)],
                     "tline": [k // 5 for k in range(200)]},
           "lines": {"page": [1] * 40, "number": list(range(40)),
                     "box": [v for b in lines for v in b], "first": [5 * k for k in range(40)],
                     "count": [5] * 40},
           "cells": [{"page": 1, "table": "items", "index": 0, "row": k, "column": 0,
                      "span": 1, "header": False, "text": "c", "box": _box(rng),
                      "field": None, "line": None} for k in range(25)]}
    layout = parse_layout(raw)
    assert [(f.box, f.lines) for f in layout.fields] == [
        (pt(f["box"]), tuple(pt(b) for b in f["lines"])) for f in raw["fields"]]
    assert [(lab.box, lab.lines) for lab in layout.labels] == [
        (pt(lab["box"]), tuple(pt(b) for b in lab["lines"])) for lab in raw["labels"]]
    for theirs, boxes in ((layout.words, words), (layout.lines, lines),
                          (layout.cells, [c["box"] for c in raw["cells"]])):
        assert repr([x.box for x in theirs]) == repr([pt(b) for b in boxes])
    # the columns: a word's field by its key (-1: none), its label (-1: none); a line's
    # text is its words'
    assert [(w.field, w.line, w.occurrence, w.label) for w in layout.words[:4]] == [
        (None, None, None, None), ("f0", None, 0, 0), ("f1", 2, 1, 1), (None, None, None, 2)]
    assert layout.lines[1].text == "w5 w6 w7 w8 w9" and layout.words[7].text_line == 1
    raw["fields"][3]["box"] = [1.0, 2.0, 3.0]
    with pytest.raises(ValueError, match="a box of 3 values"):
        parse_layout(raw)
    raw["fields"][3]["box"] = [1.0, 2.0, 3.0, 4.0]
    raw["words"]["box"].pop()
    with pytest.raises(ValueError, match="words: columns of unequal length"):
        parse_layout(raw)


_WITHOUT_NUMPY = r"""
import importlib.abc, pickle, sys

class NoNumpy(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "numpy" or name.startswith("numpy."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)

sys.meta_path.insert(0, NoNumpy())
from docfleet.render.ink import measure_ink
from docfleet.render.layout import parse_layout, round3
pdf, layout, raw, values = pickle.load(open(sys.argv[1], "rb"))
ink = measure_ink(pdf, layout)
print(repr((ink, parse_layout(raw), round3(values, 0.75))))
assert "numpy" not in sys.modules
"""


def test_the_ink_and_layout_need_no_numpy(chromium: Chromium, tmp_path: Path) -> None:
    """The generation image has pyarrow and Pillow, not numpy: the ink truth, the layout's
    conversion and the rounding run, with the same values, where numpy cannot load."""
    html = ("<html><head><style>@page { size: 600px 400px; margin: 0 }"
            "html, body { margin: 0; padding: 0 } p { margin: 8px }"
            "div.page { width: 600px; height: 400px; position: relative; overflow: hidden }"
            "</style></head><body><div class='page' style='font-size:14pt'>"
            "<p><span data-field='total'>Total 1 234,50 €</span></p></div></body></html>")
    printed = chromium.submit(html, 600, 400).result(timeout=120)
    assert printed.pdf is not None and printed.layout.words
    raw = {"pages": 1, "faults": [], "fields": [], "words": {
        "page": [1], "text": ["w"], "box": [1, 2.5, 30.25, 14], "key": [-1], "label": [-1],
        "tline": [0]}}
    values = [0.1, 2.0005, 612.0, -0.0004]
    data = tmp_path / "case.pickle"
    data.write_bytes(pickle.dumps((printed.pdf, printed.layout, raw, values)))
    done = subprocess.run([sys.executable, "-c", _WITHOUT_NUMPY, str(data)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    here = (measure_ink(printed.pdf, printed.layout), parse_layout(raw),
            round3(values, PX_TO_PT))
    assert done.stdout.strip() == repr(here)
