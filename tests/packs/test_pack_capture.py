"""The photo, fax and annotated capture conditions on the three new packs through the real
Chromium: image-only pages, every page's applied parameters in the ``pages`` table, every
first-page field box and quadrilateral carried through that page's recorded geometry onto
its ink — the same proof as the invoice's, over every archetype and locale of each pack."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium
import pytest
from packlib import PACKS, head, pdf_of

from docfleet.packs.base import RenderedDocument
from docfleet.packs.invoice.locales import JURISDICTIONS
from docfleet.render.browser import Chromium
from docfleet.render.capture import apply
from docfleet.settings import load_settings
from support.capturegeom import geometry
from support.needs import require
from support.pdftext import page_texts

LOCALES = tuple(JURISDICTIONS)
CONDITIONS = ("photo", "fax", "annotated")


def check_params(page: dict[str, Any], condition: str) -> None:
    assert page["condition"] == condition
    if condition == "photo":
        assert -8 <= page["angle"] <= 8 and len(page["perspective"]) == 8
        assert 0 < page["lighting"] < 1 and page["background"].startswith("#")
        assert page["dpi"] == 150 and page["bits"] == 24 and 0 < page["jpeg_quality"] <= 100
        assert page["blur"] > 0 and page["noise"] > 0
    elif condition == "fax":
        assert 100 <= page["dpi"] <= 200 and page["bits"] == 1
        assert 0 < page["threshold"] < 255 and page["streaks"] >= 1
        assert abs(page["angle"]) <= 1
    else:
        assert page["bits"] == 24 and page["annotations"]
        for a in page["annotations"]:  # (the page size is a float32 column)
            assert 0 <= a["x0"] < a["x1"] <= page["width"] + 0.01, a
            assert 0 <= a["y0"] < a["y1"] <= page["height"] + 0.01, a
        if page["page"] == 1:
            kinds = {a["kind"] for a in page["annotations"]}
            assert {"stamp", "signature", "highlight"} <= kinds, kinds


@pytest.fixture(scope="module")
def chromium() -> Iterator[Chromium]:
    path = load_settings().chromium_path
    require(Path(path).exists(), f"Chromium at {path}")
    browser = Chromium(path, pages=2)
    yield browser
    browser.close()


def render(chromium: Chromium, name: str, run_id: str, **options: Any) -> RenderedDocument:
    session = PACKS[name].session(options, chromium.executable, chromium.pages,
                                  chromium=chromium)
    try:
        (doc,) = session.render(run_id, range(1))
        return doc
    finally:
        session.close()


@pytest.mark.parametrize("condition", CONDITIONS)
@pytest.mark.parametrize("name", sorted(PACKS))
def test_every_archetype_and_locale_captures_with_boxes_on_their_ink(
    chromium: Chromium, name: str, condition: str,
) -> None:
    archetypes = PACKS[name].archetypes
    shift = CONDITIONS.index(condition)
    for k, locale in enumerate(LOCALES):
        archetype = archetypes[(k + shift) % len(archetypes)]
        run_id = f"cap-{name}-{condition}-{locale}"
        opts = {"archetypes": archetype, "locales": locale, "lines": "3-8"}
        captured = render(chromium, name, run_id, conditions=condition, **opts)
        clean = render(chromium, name, run_id, conditions="clean", **opts)
        row = head(name, captured)
        assert (row["condition"], row["locale"]) == (condition, locale)
        data = pdf_of(captured)
        assert all(not t.strip() for t in page_texts(data)), "kept a text layer"
        if condition == "fax":
            assert b"/BitsPerComponent 1 " in data
        pages = {p["page"]: p for p in captured.rows["pages"]}
        assert sorted(pages) == list(range(1, row["page_count"] + 1))
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
            assert s["quad"] == pytest.approx(expected, abs=0.01), (name, archetype, s)
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
            assert inked, (name, condition, archetype, locale, s, lo, hi)
            checked += 1
        assert checked > 10 and faint <= 0.05 * (checked + faint), (name, archetype, faint)
        assert captured.rows["words"] and all(len(w["quad"]) == 8
                                              for w in captured.rows["words"])
