"""Many boxes of one page carried through a capture's geometry at once, with the floats a
box-by-box carry gives.

A captured page (scan, photo, fax, annotated) carries every golden box to where its text
now lies: the four corners through the page's map, each rounded to 3 decimals (the
quad), and their hull clipped to the page (the box). A page holds a thousand glyphs, each
with a box and an ink box, and Python's ``round`` and a call per corner made that the
larger part of a captured document's golden rows. :func:`carry_boxes` does it as Arrow
array arithmetic (the image has pyarrow, not numpy):

- ``corners`` computes each corner's x and y with the same operations in the same order
  as the map's own per-box code (IEEE arithmetic is the same in Arrow's kernels: one
  operation per kernel, nothing fused), so the unrounded corners are the same floats;
- rounding is :func:`~docfleet.render.layout.round3`'s (``rint(v * 1000) / 1000``, exact
  where ``v * 1000`` lies clear of a half);
- the hull is the rounded corners' least and greatest values (``round`` is monotonic, so
  that is the rounded hull, and rounding a rounded value gives it back), which is the
  clipped hull wherever the box lies inside the page.

A box with any value in doubt (a corner near a half of the third decimal, on or past a
page edge, huge or not finite) is carried by the map's own per-box functions instead, so
every box gets exactly what the per-box carry gives. Pure functions; pyarrow loads on
first use.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from itertools import chain
from typing import Any

from docfleet.render.layout import Box

Quad = tuple[float, float, float, float, float, float, float, float]
#: a page's map on many points at once: x and y as float64 Arrow arrays → the carried x
#: and y, unrounded
Corners = Callable[[Any, Any], tuple[Any, Any]]

#: a rounding whose ``v * 1000`` lies within this of a half is done by ``round`` itself
_HALF_SLACK = 1e-6
#: coordinates beyond this are carried box by box
_HUGE = 1e6


def _column(values: Sequence[float]) -> Any:
    import pyarrow as pa  # lazy: a clean document never needs it here

    raw = array("d", values)
    return pa.Array.from_buffers(pa.float64(), len(raw), [None, pa.py_buffer(raw)])


def _floats(a: Any) -> list[float]:
    values = memoryview(a.buffers()[1]).cast("d")
    floats: list[float] = values[a.offset:a.offset + len(a)].tolist()  # type: ignore[assignment]
    return floats


def _rounded(v: Any, edge: float) -> tuple[Any, Any]:
    """``v`` rounded to 3 decimals, and which values are in doubt: near a half, huge or
    not finite, or on or past ``0`` or ``edge`` before or after rounding."""
    import pyarrow.compute as pc  # lazy: as in _column

    scaled = pc.multiply(v, 1000.0)
    rounded = pc.divide(pc.round(scaled, 0, round_mode="half_to_even"), 1000.0)
    half = pc.abs(pc.subtract(pc.subtract(scaled, pc.floor(scaled)), 0.5))
    doubt = pc.or_(pc.invert(pc.less(pc.abs(v), _HUGE)), pc.less(half, _HALF_SLACK))
    doubt = pc.or_(doubt, pc.less_equal(pc.min_element_wise(v, rounded), 0.0))
    doubt = pc.or_(doubt, pc.greater_equal(pc.max_element_wise(v, rounded), edge))
    return rounded, doubt


def carry_boxes(boxes: Sequence[Box], size: tuple[float, float], corners: Corners,
                box: Callable[[Box], Box], quad: Callable[[Box], Sequence[float]]
                ) -> tuple[list[Box], list[float]]:
    """The hull and the quad of every box of one ``size`` page: ``(hulls, quads)``, the
    quads flat (eight values a box: TL, TR, BR, BL). ``corners``: the page map in Arrow
    (see the module docstring); ``box`` and ``quad``: the same map box by box, which
    decides every box in doubt. Equal to ``([box(b) for b in boxes], [v for b in boxes
    for v in quad(b)])``."""
    import pyarrow as pa  # lazy: as in _column
    import pyarrow.compute as pc  # lazy: as in _column

    if not boxes:
        return [], []
    n = len(boxes)
    x0, y0, x1, y1 = (_column(c) for c in zip(*boxes, strict=True))
    # every box's corners TL, TR, BR, BL as four runs of n points
    xs, ys = corners(pa.concat_arrays([x0, x1, x1, x0]), pa.concat_arrays([y0, y0, y1, y1]))
    rx, doubt_x = _rounded(xs, size[0])
    ry, doubt_y = _rounded(ys, size[1])
    runs = [slice(k * n, (k + 1) * n) for k in range(4)]

    def part(a: Any, k: int) -> Any:
        return a.slice(k * n, n)

    doubt = pc.or_(doubt_x.slice(0, n), doubt_y.slice(0, n))
    for k in range(1, 4):
        doubt = pc.or_(doubt, pc.or_(part(doubt_x, k), part(doubt_y, k)))
    hull = [_floats(pc.min_element_wise(*(part(rx, k) for k in range(4)))),
            _floats(pc.min_element_wise(*(part(ry, k) for k in range(4)))),
            _floats(pc.max_element_wise(*(part(rx, k) for k in range(4)))),
            _floats(pc.max_element_wise(*(part(ry, k) for k in range(4))))]
    hulls: list[Box] = list(zip(*hull, strict=True))
    fx, fy = _floats(rx), _floats(ry)
    quads = list(chain.from_iterable(zip(*(c for r in runs for c in (fx[r], fy[r])),
                                         strict=True)))
    if doubt.true_count:
        for i in pc.indices_nonzero(pc.fill_null(doubt, True)).to_pylist():
            hulls[i] = box(boxes[i])
            quads[8 * i:8 * i + 8] = quad(boxes[i])
    return hulls, quads
