"""A captured page's bytes do not move when its steps get cheaper (issue 32): a coloured
page captured under every image condition prints the digests it printed before the
render read RGB straight from pdfium and the light grid was computed as columns (taken on
869f4dc), and each cheaper step gives the bytes of the step it replaced.
"""

from __future__ import annotations

import hashlib
import math
import random
import zlib

import pyarrow as pa
import pyarrow.compute as pc
import pypdfium2 as pdfium
import pytest
from PIL import Image, ImageDraw

from docfleet.render.capture import _grey_rgb, _in_mode, _light_grid, capture_pdf
from docfleet.render.imagepdf import ImagePage, image_pdf

PAGE_DIGEST = "c919e87ad1eedb9f9e037625bc9a3b2484138653c978f1fc87037ec8496ab2bb"
#: (condition, photo recipe) -> the capture's sha256 on 869f4dc (seed 4321)
DIGESTS = {
    ("photo", 1): "e227e8ed6d4ab8eeb54b19a628a35afacf0271a70163468614fbe6af53b8a159",
    ("photo", 2): "9479f7335c513195a400374f4ed0449072f12b83c57cb5c0b6643de28c5d4a2e",
    ("fax", 1): "549ca5bd8f0bd0801f28ba59131967af16e00e4b764a2ccb551586fb2c4a1b1d",
    ("annotated", 1): "a6a619373cb2639ecca8bf459827bb8a258df89332389d1616b696a2a16d99d5",
}
TARGETS = [[(40.0, 90.0, 200.0, 98.0), (40.0, 108.0, 150.0, 116.0)]]


def coloured_page() -> bytes:
    """A one-page A5 'document' in colour, drawn without fonts: bars, a rule, a box."""
    w, h = 420, 595
    im = Image.new("RGB", (w, h), (252, 250, 244))
    d = ImageDraw.Draw(im)
    d.rectangle((30, 30, 200, 60), fill=(30, 60, 170))
    for k in range(24):
        y = 90 + k * 18
        d.rectangle((40, y, 40 + (k * 37) % 300 + 40, y + 8),
                    fill=((k * 53) % 200, 20, (k * 97) % 160))
    d.line((30, 540, 390, 540), fill=(200, 30, 30), width=2)
    d.rectangle((250, 550, 390, 575), outline=(20, 120, 60), width=2)
    return image_pdf([ImagePage(zlib.compress(im.tobytes(), 9), (w, h), (w, h),
                                "DeviceRGB", 8, "FlateDecode")])


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize(("condition", "recipe"), sorted(DIGESTS))
def test_each_condition_prints_the_bytes_it_printed_before(condition: str, recipe: int
                                                          ) -> None:
    page = coloured_page()
    assert sha(page) == PAGE_DIGEST
    out, _, params = capture_pdf(page, condition, 4321, "en", TARGETS, recipe)
    assert sha(out) == DIGESTS[condition, recipe]
    assert params[0]["dpi"] in (100, 150, 200)


def test_pdfium_writes_rgb_with_the_pixels_of_its_bgr() -> None:
    doc = pdfium.PdfDocument(coloured_page())
    try:
        page = doc[0]
        swapped = page.render(scale=150 / 72).to_pil()
        direct = page.render(scale=150 / 72, rev_byteorder=True).to_pil()
        page.close()
    finally:
        doc.close()
    assert direct.mode == swapped.mode == "RGB"
    assert direct.tobytes() == swapped.tobytes()
    assert len(direct.getcolors(1 << 16) or ()) > 20  # a coloured raster, not one shade


def scalar_grid(lighting: float, direction: float, tint: tuple[int, ...] | None = None
                ) -> Image.Image:
    """The light grid point by point: the formula the columns must match to the byte."""
    gw, gh = 64, 64
    cos, sin = math.cos(direction), math.sin(direction)
    us = [i / (gw - 1) - 0.5 for i in range(gw)]
    levels = []
    for j in range(gh):
        v = j / (gh - 1) - 0.5
        for u in us:
            lin = 0.5 + (u * cos + v * sin)
            rad = 1 - 0.6 * (u * u + v * v) * 2
            levels.append(255 * (1 - lighting * (1 - lin * rad)))
    if tint is None:
        return Image.frombytes("L", (gw, gh),
                               bytes(max(0, min(255, round(level))) for level in levels))
    return Image.frombytes("RGB", (gw, gh), bytes(max(0, min(255, round(level * c / 255)))
                                                  for level in levels for c in tint))


def test_the_light_grid_as_columns_is_the_scalar_formula_to_the_byte() -> None:
    rng = random.Random(32)
    clamped = 0
    for k in range(400):
        # the drawn range, and past it so that levels clamp at both ends
        lighting = (round(rng.uniform(0.25, 0.45), 3) if k % 4 else
                    round(rng.uniform(-0.6, 1.6), 3))
        direction = rng.uniform(0, 2 * math.pi)
        tint = tuple(rng.randint(0, 255) for _ in range(3)) if k % 2 else None
        got, want = _light_grid(lighting, direction, tint), scalar_grid(lighting, direction,
                                                                         tint)
        assert (got.mode, got.size) == (want.mode, want.size) == (
            "L" if tint is None else "RGB", (64, 64))
        assert got.tobytes() == want.tobytes(), (lighting, direction, tint)
        clamped += {0, 255} & set(got.tobytes()) != set()
    assert clamped > 10


def test_arrow_rounds_halves_to_even_as_python_does() -> None:
    """The grid's rounding: exact halves, their neighbours one ulp away, and plain values."""
    rng = random.Random(5)
    values = [k / 2 for k in range(-4, 520)]
    values += [math.nextafter(v, math.inf) for v in values] + [
        math.nextafter(v, -math.inf) for v in values]
    values += [rng.uniform(-10, 300) for _ in range(5000)]
    got = pc.round(pa.array(values, pa.float64()), 0, round_mode="half_to_even").to_pylist()
    assert got == [float(round(v)) for v in values]


def test_the_cheaper_conversions_give_the_bytes_of_convert() -> None:
    rng = random.Random(9)
    grey = Image.frombytes("L", (97, 41), rng.randbytes(97 * 41))
    assert _grey_rgb(grey).mode == "RGB"
    assert _grey_rgb(grey).tobytes() == grey.convert("RGB").tobytes()
    colour = grey.convert("RGB")
    assert _in_mode(colour, "RGB") is colour and _in_mode(grey, "L") is grey  # no copy
    assert _in_mode(grey, "RGB").tobytes() == grey.convert("RGB").tobytes()
    assert _in_mode(colour, "L").tobytes() == colour.convert("L").tobytes()
