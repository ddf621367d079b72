"""The photo, fax and annotated capture conditions on the three new packs through the real
Chromium: image-only pages, every page's applied parameters in the ``pages`` table, every
first-page field box and quadrilateral carried through that page's recorded geometry onto
its ink — the same proof as the invoice's, over every archetype and locale of each pack."""

from __future__ import annotations

from typing import Any

import pytest
from packlib import PACKS, head

from docfleet.packs.base import RenderedDocument
from docfleet.packs.sdk.locales import JURISDICTIONS
from docfleet.render.browser import Chromium
from support.capturegeom import assert_boxes_on_ink

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
        assert_boxes_on_ink(captured, clean, condition, row["page_count"], check_params,
                            (name, condition, archetype, locale))
        assert captured.rows["words"] and all(len(w["quad"]) == 8
                                              for w in captured.rows["words"])
