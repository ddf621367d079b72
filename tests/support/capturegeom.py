"""A capture page's point map rebuilt from the parameters its ``pages`` row records —
nothing else — so the capture tests (invoice and the other packs) prove that the recorded
difficulty labels are enough to carry every box."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pypdfium2 as pdfium
import pytest

from docfleet.packs.base import RenderedDocument
from docfleet.render.capture import apply, homography
from support.pdftext import page_texts


def _corners(w: float, h: float) -> list[tuple[float, float]]:
    return [(0, 0), (w, 0), (w, h), (0, h)]


def geometry(page: dict[str, Any]) -> tuple[float, ...]:
    """The 3x3 projective map (row-major) of a ``pages`` row: the photo's perspective, the
    fax's rotation and shift, the identity for a condition that moves nothing."""
    w, h = page["width"], page["height"]
    if page["condition"] == "photo":
        q = page["perspective"]
        return homography(_corners(w, h), [(q[i], q[i + 1]) for i in range(0, 8, 2)])
    if page["condition"] == "fax":
        t = math.radians(page["angle"])
        dst = []
        for x, y in _corners(w, h):
            dx, dy = x - w / 2, y - h / 2
            dst.append((w / 2 + dx * math.cos(t) + dy * math.sin(t) + page["shift_x"],
                        h / 2 - dx * math.sin(t) + dy * math.cos(t) + page["shift_y"]))
        return homography(_corners(w, h), dst)
    return (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)


def assert_boxes_on_ink(captured: RenderedDocument, clean: RenderedDocument, condition: str,
                        page_count: int, check_params: Callable[[dict[str, Any], str], None],
                        where: tuple[Any, ...]) -> None:
    """``captured`` (one document under ``condition``) against the same document printed
    clean: an image-only PDF (1-bit for fax) whose pages match its ``pages`` rows
    (``check_params`` judges each row), and every page-1 field's quad is its clean box
    carried through :func:`geometry`, its box is the quad's bounds on the page, and there
    is ink inside it (a fax may drop up to 5 % faint values). ``where`` names the case in
    failure messages."""
    data = next(iter(captured.files.values()))
    assert all(not t.strip() for t in page_texts(data)), "kept a text layer"
    if condition == "fax":
        assert b"/BitsPerComponent 1 " in data
    pages = {p["page"]: p for p in captured.rows["pages"]}
    assert sorted(pages) == list(range(1, page_count + 1))
    doc = pdfium.PdfDocument(data)
    try:
        for n, page in pages.items():
            assert doc[n - 1].get_size() == pytest.approx(
                (page["width"], page["height"]), abs=0.01)
            check_params(page, condition)
        first = pages[1]
        scale = 150 / 72
        image = doc[0].render(scale=scale).to_pil().convert("L")
    finally:
        doc.close()
    matrix = geometry(first)
    checked = faint = 0
    for s, c in zip(captured.rows["fields"], clean.rows["fields"], strict=True):
        assert (s["field"], s["line"], s["text"]) == (c["field"], c["line"], c["text"])
        if s["page"] != 1:
            continue
        expected = [v for x, y in ((c["x0"], c["y0"]), (c["x1"], c["y0"]),
                                   (c["x1"], c["y1"]), (c["x0"], c["y1"]))
                    for v in apply(matrix, x, y)]
        assert s["quad"] == pytest.approx(expected, abs=0.01), (*where, s)
        xs, ys = expected[0::2], expected[1::2]
        assert s["x0"] == pytest.approx(max(0, min(xs)), abs=0.01)
        assert s["y1"] == pytest.approx(min(first["height"], max(ys)), abs=0.01)
        crop = image.crop((int(s["x0"] * scale), int(s["y0"] * scale),
                           int(s["x1"] * scale) + 1, int(s["y1"] * scale) + 1))
        lo, hi = crop.getextrema()
        # ink inside the box: clearly darker than the paper around it in the same box
        inked = lo < hi - 60 or lo < 60
        if condition == "fax" and not inked:
            faint += 1  # a fax may drop a faint grey value, as real ones do
            continue
        assert inked, (*where, s, lo, hi)
        checked += 1
    assert checked > 10 and faint <= 0.05 * (checked + faint), (*where, faint)
