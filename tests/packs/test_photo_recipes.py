"""Photo recipe 2 (issue 32): the newest content version of every document pack captures
``photo`` with a cheaper recipe — the same draws of geometry, so the same carried boxes,
different pixels — while every older content version keeps the recipe, and the bytes,
it printed before.

- Recipe 1 prints the bytes it printed before recipe 2 existed (a drawn page, digest taken
  from the code before, commit 15a0dfd).
- Both recipes carry a page through the same geometry and record it the same way; the
  pixels differ and both are colour photographs of the page on a background.
- Each pack's newest content version resolves to recipe 2, every older one to recipe 1,
  and a content-4 invoice photo keeps every box on its ink (real Chromium).
"""

from __future__ import annotations

import hashlib
import zlib
from typing import Any

import pypdfium2 as pdfium
import pytest
from PIL import Image, ImageDraw

from docfleet.packs import load_pack
from docfleet.packs.invoice.options import parse_options
from docfleet.packs.invoice.pack import InvoiceSession
from docfleet.packs.sdk.session import photo_recipe
from docfleet.render.browser import Chromium
from docfleet.render.capture import PHOTO_RECIPES, CaptureError, capture_pdf
from docfleet.render.imagepdf import ImagePage, image_pdf
from support.capturegeom import assert_boxes_on_ink

#: the drawn page's PDF and its recipe-1 photo (seed 1234), from the code before recipe 2
PAGE_DIGEST = "995d5433aa0cd78dd813fc5a64fcb814db5860685eac861db98e332be0fcae98"
RECIPE_1_DIGEST = "d9784b4d10bb24dff810d975bcf484c3f3b71902a930b2a8e9cfb1307d43ea8b"
#: its recipe-2 photo, from the code before the light grid was built as bytes (4e93b73)
RECIPE_2_DIGEST = "17b116e6257f683d034770b20f48ecb8690d27082d9903d6daab469191cd14da"
#: the recorded parameters that place the page (the rest are each recipe's own draws)
GEOMETRY = ("angle", "perspective", "dpi", "bits")
PACKS = ("invoice", "receipt", "purchase_order", "bank_statement", "form")


def drawn_page() -> bytes:
    """A one-page A5 'document' drawn without fonts: bars for lines, a rule, a box."""
    w, h = 420, 595
    im = Image.new("L", (w, h), 255)
    d = ImageDraw.Draw(im)
    d.rectangle((30, 30, 200, 60), fill=40)
    for k in range(24):
        y = 90 + k * 18
        d.rectangle((40, y, 40 + (k * 37) % 300 + 40, y + 8), fill=20)
    d.line((30, 540, 390, 540), fill=0, width=2)
    d.rectangle((250, 550, 390, 575), outline=0, width=2)
    return image_pdf([ImagePage(zlib.compress(im.tobytes(), 9), (w, h), (w, h),
                                "DeviceGray", 8, "FlateDecode")])


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def pixels(pdf: bytes) -> Image.Image:
    doc = pdfium.PdfDocument(pdf)
    try:
        return doc[0].render(scale=1).to_pil().convert("RGB")
    finally:
        doc.close()


def test_recipe_1_prints_the_bytes_it_printed_before_recipe_2() -> None:
    page = drawn_page()
    assert sha(page) == PAGE_DIGEST
    assert sha(capture_pdf(page, "photo", 1234)[0]) == RECIPE_1_DIGEST
    assert sha(capture_pdf(page, "photo", 1234, photo_recipe=1)[0]) == RECIPE_1_DIGEST


def test_recipe_2_prints_the_bytes_it_printed_before() -> None:
    """The newest versions' photos keep their bytes too (its light grid: one tinted
    multiply, built from the same levels)."""
    assert sha(capture_pdf(drawn_page(), "photo", 1234, photo_recipe=2)[0]) == RECIPE_2_DIGEST


def test_both_recipes_carry_the_page_through_the_same_geometry() -> None:
    page = drawn_page()
    for seed in (1, 2, 3, 1234):
        one, geo1, params1 = capture_pdf(page, "photo", seed, photo_recipe=1)
        two, geo2, params2 = capture_pdf(page, "photo", seed, photo_recipe=2)
        assert geo1 == geo2  # the same homography and page size: every box carries alike
        assert {k: params1[0][k] for k in GEOMETRY} == {k: params2[0][k] for k in GEOMETRY}
        assert set(params1[0]) == set(params2[0])
        assert one != two and capture_pdf(page, "photo", seed, photo_recipe=2)[0] == two
        # a colour photograph of the page: the page's centre is light, a frame corner
        # (outside the carried quadrilateral) is the darker background
        im = pixels(two)
        w, h = im.size
        centre, corner = im.getpixel((w // 2, h // 2)), im.getpixel((1, h - 2))
        assert isinstance(centre, tuple) and isinstance(corner, tuple)
        assert sum(centre) > sum(corner), (seed, centre, corner)
        bg = params2[0]["background"]
        assert bg.startswith("#") and len(bg) == 7


def test_an_unknown_recipe_is_one_clear_error() -> None:
    with pytest.raises(CaptureError, match="unknown photo recipe 3"):
        capture_pdf(drawn_page(), "photo", 1, photo_recipe=3)
    assert PHOTO_RECIPES == (1, 2)


@pytest.mark.parametrize("name", PACKS)
def test_the_newest_content_version_photographs_with_recipe_2(name: str) -> None:
    pack: Any = load_pack(name)
    versions = pack.content_versions
    assert photo_recipe(pack.steps, versions[-1]) == 2
    first = pack.steps.photo_content  # recipe 2 from the version that brought it on
    assert first in versions
    assert all(photo_recipe(pack.steps, v) == (2 if v >= first else 1) for v in versions)
    assert pack.parse(pack.validate_options({})).content == versions[-1]


def test_a_newest_version_invoice_photo_keeps_every_box_on_its_ink(
        chromium: Chromium) -> None:
    from test_pack_capture import check_params

    def render(**options: Any) -> Any:
        session = InvoiceSession(parse_options(options), chromium.executable,
                                 chromium.pages, chromium=chromium)
        try:
            (doc,) = session.render("photo-recipe", range(1))
            return doc
        finally:
            session.close()

    opts = {"archetypes": "classic", "locales": "de-DE", "lines": "3-8"}
    newest = render(conditions="photo", content="4", **opts)
    before = render(conditions="photo", content="3", **opts)
    clean = render(conditions="clean", content="4", **opts)
    row = newest.rows["invoices"][0]
    assert_boxes_on_ink(newest, clean, "photo", row["page_count"], check_params,
                        ("photo", "recipe 2"))
    # the same record and geometry as content 3, in other pixels
    def geometry(doc: Any) -> list[dict[str, Any]]:
        return [{k: v for k, v in p.items()
                 if k in (*GEOMETRY, "page", "width", "height", "condition")}
                for p in doc.rows["pages"]]

    assert geometry(newest) == geometry(before) and geometry(newest)[0]["perspective"]
    assert newest.rows["words"] == before.rows["words"]
    assert newest.files != before.files
