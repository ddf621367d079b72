"""The parts of the ink truth (render/ink.py) that its speed rests on, each against the
plain rule it replaced: the banded word index finds what a scan of every word finds, the
union keeps the earlier value on a tie, and the page's text read in one call equals the
text read character by character (and gives way to it for a character beyond the BMP)."""

from __future__ import annotations

import random

import pypdfium2 as pdfium
import pytest

from docfleet.render import ink
from docfleet.render.browser import Chromium
from docfleet.render.layout import WordBox


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


def test_the_union_is_the_smallest_box_and_keeps_the_earlier_value_on_a_tie() -> None:
    assert ink._union([]) is None
    assert ink._union(iter([(1.0, 2.0, 3.0, 4.0)])) == (1.0, 2.0, 3.0, 4.0)
    assert ink._union([(1.0, 5.0, 3.0, 6.0), (0.5, 2.0, 2.0, 9.0), (2.0, 3.0, 7.0, 1.0)]) \
        == (0.5, 2.0, 7.0, 9.0)
    tied = ink._union([(0.0, -0.0, 1.0, 1.0), (-0.0, 0.0, 1.0, 1.0)])
    assert tied is not None and str(tied[0]) == "0.0" and str(tied[1]) == "-0.0"


def _glyphs(pdf: bytes, bulk: bool, monkeypatch: pytest.MonkeyPatch
            ) -> list[tuple[str, ink.Box, ink.Box]]:
    with monkeypatch.context() as m:
        if not bulk:
            m.setattr(ink, "_codes", lambda textpage, count: None)
        doc = pdfium.PdfDocument(pdf)
        try:
            page = doc[0]
            tp = page.get_textpage()
            try:
                return ink._page_glyphs(tp.raw, page.get_height())
            finally:
                tp.close()
                page.close()
        finally:
            doc.close()


@pytest.mark.parametrize("text", ["Total 1 234,50 € — Straße", "合計 ¥12,345 (税込)",
                                  "a 𠀋 b 𝐀 c"])  # noqa: RUF001 (beyond the BMP on purpose)
def test_the_text_read_in_one_call_equals_the_text_read_by_character(
    chromium: Chromium, text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    html = ("<html><head><style>@page { size: 600px 400px; margin: 0 }"
            "html, body { margin: 0; padding: 0 } p { margin: 8px }"
            "div.page { width: 600px; height: 400px; position: relative; overflow: hidden }"
            "</style></head>"
            f"<body><div class='page' style='font-size:14pt'><p>{text}</p><p>{text}</p>"
            "</div></body></html>")
    printed = chromium.submit(html, 600, 400).result(timeout=120)
    assert printed.pdf is not None
    bulk, single = (_glyphs(printed.pdf, flag, monkeypatch) for flag in (True, False))
    assert bulk == single and len(bulk) >= 2 * len(text.replace(" ", "")) - 4
    doc = pdfium.PdfDocument(printed.pdf)
    try:
        tp = doc[0].get_textpage()
        count = pdfium.raw.FPDFText_CountChars(tp.raw)
        beyond = any(ord(c) > 0xFFFF for c in text)
        assert (ink._codes(tp.raw, count) is None) == beyond  # a surrogate: by character
        tp.close()
    finally:
        doc.close()
