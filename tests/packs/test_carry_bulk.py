"""A captured page's boxes carried many at once (``render.corners``) give the floats the
box-by-box carry gives, to the bit (signs of zero included), on every kind of page map:
a scan's rotation and shift, a photo's perspective, the identity of ``annotated``, with
boxes inside, across and past the page, on exact halves of the third decimal and
degenerate; through ``Carry.many`` over pages and with the quads kept on the page."""

from __future__ import annotations

import random
from array import array
from collections.abc import Callable, Sequence
from functools import partial

import pytest

from docfleet.packs.sdk.capture import Carry, _many, on_page
from docfleet.render.capture import IDENTITY, Capture, homography
from docfleet.render.corners import Corners, carry_boxes
from docfleet.render.layout import Box
from docfleet.render.scan import ScanParams

SIZES = [(595.276, 841.89), (612.0, 792.0), (204.0, 600.75)]  # A4, Letter, a receipt


def _bits(values: Sequence[float]) -> bytes:
    return array("d", values).tobytes()


def _boxes(rng: random.Random, size: tuple[float, float], n: int) -> list[Box]:
    w, h = size
    out: list[Box] = []
    for k in range(n):
        kind = k % 6
        if kind == 0:  # a glyph inside the page
            x, y = rng.uniform(10, w - 30), rng.uniform(10, h - 30)
            out.append((round(x, 3), round(y, 3), round(x + rng.uniform(2, 12), 3),
                        round(y + rng.uniform(5, 14), 3)))
        elif kind == 1:  # across or past an edge
            x, y = rng.uniform(-40, w + 10), rng.uniform(-40, h + 10)
            out.append((x, y, x + rng.uniform(0, 60), y + rng.uniform(0, 60)))
        elif kind == 2:  # on exact halves of the third decimal (4 decimals, last a 5)
            x, y = rng.randrange(1000, int(w - 40) * 1000), rng.randrange(1000, int(h - 40) * 1000)
            out.append(((x + 0.5) / 1000, (y + 0.5) / 1000, (x + 9000.5) / 1000,
                        (y + 11000.5) / 1000))
        elif kind == 3:  # degenerate: a point, a line
            x, y = rng.uniform(1, w - 1), rng.uniform(1, h - 1)
            out.append((x, y, x, y + rng.choice((0.0, 3.0))))
        elif kind == 4:  # the page's own edges
            out.append((0.0, 0.0, w, h) if rng.random() < 0.5 else (0.0, rng.uniform(0, h), 5.0, h))
        else:  # many decimals
            x, y = rng.uniform(0, w), rng.uniform(0, h)
            out.append((x, y, x + rng.random() * 20, y + rng.random() * 20))
    return out


def _capture_maps(rng: random.Random, size: tuple[float, float]) -> list[Capture]:
    w, h = size
    src = [(0.0, 0.0), (w, 0.0), (w, h), (0.0, h)]
    photo = homography(src, [(x + rng.uniform(-30, 30), y + rng.uniform(-30, 30))
                             for x, y in src])
    return [Capture([photo], [size]), Capture([IDENTITY], [size])]


def _check(boxes: list[Box], size: tuple[float, float], corners: Corners,
           box: Callable[[Box], Box], quad: Callable[[Box], Sequence[float]]) -> int:
    """Assert bulk == one by one; return how many boxes the bulk path left to ``box``."""
    asked: list[Box] = []

    def counted(b: Box) -> Box:
        asked.append(b)
        return box(b)

    hulls, quads = carry_boxes(boxes, size, corners, counted, quad)
    want_hulls = [box(b) for b in boxes]
    want_quads = [v for b in boxes for v in quad(b)]
    assert _bits([v for h in hulls for v in h]) == _bits([v for h in want_hulls for v in h])
    assert _bits(quads) == _bits(want_quads)
    return len(asked)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("clamp", [False, True])
def test_a_scanned_page_carries_many_boxes_as_one_at_a_time(
        size: tuple[float, float], clamp: bool) -> None:
    rng = random.Random(f"scan{size}{clamp}")
    left = carried = 0
    for seed in range(12):
        params = ScanParams.draw(seed)
        box, quad, corners = params.page_maps(*size)
        if clamp:
            clamped = on_page(lambda _page, b, q=quad: q(b), [size])  # type: ignore[misc]
            quad = partial(clamped, 1)  # type: ignore[assignment]
        boxes = _boxes(rng, size, 300)
        left += _check(boxes, size, corners, box, quad)
        carried += len(boxes)
        # the per-box maps are transform_box and transform_point, rounded
        for b in boxes[:40]:
            assert box(b) == params.transform_box(b, *size)
            x0, y0, x1, y1 = b
            corners_of_b = tuple(round(v, 3) for x, y in ((x0, y0), (x1, y0), (x1, y1), (x0, y1))
                                 for v in params.transform_point(x, y, *size))
            assert params.page_maps(*size)[1](b) == corners_of_b
    assert 0 < left < carried / 2  # both paths were taken


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("clamp", [False, True])
def test_a_photo_or_annotated_page_carries_many_boxes_as_one_at_a_time(
        size: tuple[float, float], clamp: bool) -> None:
    rng = random.Random(f"capture{size}{clamp}")
    left = carried = 0
    for _ in range(8):
        for geometry in _capture_maps(rng, size):
            quad = on_page(geometry.quad, [size]) if clamp else geometry.quad
            boxes = _boxes(rng, size, 300)
            left += _check(boxes, size, geometry.corners(1), partial(geometry.box, 1),
                           partial(quad, 1))
            carried += len(boxes)
    assert 0 < left < carried / 2


def test_carry_many_runs_page_by_page_and_equals_box_and_quad() -> None:
    rng = random.Random(7)
    sizes = [SIZES[0], SIZES[1], SIZES[0]]
    params = ScanParams.draw(3)
    maps = [params.page_maps(w, h) for w, h in sizes]

    def box(page: int, b: Box) -> Box:
        return maps[page - 1][0](b)

    def quad(page: int, b: Box) -> tuple[float, ...]:
        return maps[page - 1][1](b)

    carry = Carry(box, quad, _many(sizes, lambda page: maps[page - 1][2], box, quad))
    pages = [1] * 50 + [2] * 70 + [3] * 30 + [2] * 5  # back to a page: its own run
    boxes = [b for p in pages for b in _boxes(rng, sizes[p - 1], 1)]
    hulls, quads = carry.many(pages, boxes)
    assert hulls == [carry.box(p, b) for p, b in zip(pages, boxes, strict=True)]
    assert _bits(quads) == _bits([v for p, b in zip(pages, boxes, strict=True)
                                  for v in carry.quad(p, b)])
    assert carry.many([], []) == ([], [])
    with pytest.raises(ValueError, match="pages for"):
        carry.many([1, 1], boxes[:1])
    clean = Carry()
    assert clean.many([1], [(1.0, 2.0, 3.0, 4.0)]) == (
        [(1.0, 2.0, 3.0, 4.0)], [1.0, 2.0, 3.0, 2.0, 3.0, 4.0, 1.0, 4.0])
