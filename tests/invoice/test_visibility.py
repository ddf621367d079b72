"""The visibility check of the layout guard (issue 29): a printed value must be seen where
its box says. The two ar-SA faults of the invoice templates before content 3 are caught
(the ``multi_currency`` title painted over by its band, the ``boxed`` e-mail line spilling
out of its box onto the row below); content 3's templates print them visibly; a content
version before the check still renders as it did."""

from __future__ import annotations

import pytest

from docfleet.packs.invoice.options import parse_options
from docfleet.packs.invoice.pack import InvoiceSession
from docfleet.render.browser import Chromium, Printed
from docfleet.render.ink import measure_ink

MARKED = "ar-SA"


def session(chromium: Chromium, archetype: str, content: int) -> InvoiceSession:
    options = parse_options({"archetypes": archetype, "locales": MARKED,
                             "conditions": "clean", "content": content})
    return InvoiceSession(options, "", 2, chromium)


def printed(chromium: Chromium, archetype: str, content: int, index: int = 0) -> Printed:
    """Document ``index`` laid out and printed alone, with no guard in the way."""
    s = session(chromium, archetype, content)
    record, html, _, _ = s.prepare("visibility", index)
    width, height = s.page_size(record)
    return chromium.submit(html, width, height).result(timeout=120)


def faults(result: Printed) -> list[str]:
    assert result.pdf is not None
    return result.layout.faults + result.layout.hidden + \
        measure_ink(result.pdf, result.layout).faults


@pytest.mark.parametrize("index", range(2))
def test_the_multi_currency_title_under_its_band_is_seen(chromium: Chromium,
                                                         index: int) -> None:
    found = faults(printed(chromium, "multi_currency", 2, index))
    title = [f for f in found if "of label 0 is not visible" in f]
    assert title, found  # label 0 is the title, the first heading of the page


@pytest.mark.parametrize("index", range(2))
def test_the_boxed_email_spilling_out_of_its_box_is_seen(chromium: Chromium,
                                                         index: int) -> None:
    found = faults(printed(chromium, "boxed", 2, index))
    assert any(f.startswith("field seller_email (line -) spills out of its div.box")
               for f in found), found


@pytest.mark.parametrize("archetype", ("multi_currency", "boxed"))
def test_content_3_prints_them_visibly_and_content_2_as_before(chromium: Chromium,
                                                               archetype: str) -> None:
    for index in range(2):
        assert faults(printed(chromium, archetype, 3, index)) == []
    for content in (2, 3):  # both render through the session (2 with no check)
        s = session(chromium, archetype, content)
        docs = list(s.render("visibility", range(2)))
        assert len(docs) == 2 and all(d.rows["fields"] for d in docs)
        assert ("chars" in docs[0].rows) == (content >= 3)

