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
- rounding is :func:`~docfleet.render.layout.round3_array`'s (``rint(v * 1000) /
  1000``, exact where ``v * 1000`` lies clear of a half), as the layout's own boxes are;
- the hull is the rounded corners' least and greatest values (``round`` is monotonic, so
  that is the rounded hull, and rounding a rounded value gives it back), which is the
  clipped hull wherever the box lies inside the page.

A box with any value in doubt (a corner near a half of the third decimal, on or past a
page edge, huge or not finite) is carried by the map's own per-box functions instead, so
every box gets exactly what the per-box carry gives. Pure functions; pyarrow loads on
first use.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import chain
from typing import Any

from docfleet.render.layout import Box, float64_array, floats, round3_array

Quad = tuple[float, float, float, float, float, float, float, float]
#: a page's map on many points at once: x and y as float64 Arrow arrays → the carried x
#: and y, unrounded
Corners = Callable[[Any, Any], tuple[Any, Any]]


def _rounded(v: Any, edge: float) -> tuple[Any, Any]:
    """``v`` rounded to 3 decimals, and which values are in doubt: those
    :func:`~docfleet.render.layout.round3_array` doubts, and those on or past ``0`` or
    ``edge`` before or after rounding (where the clip decides)."""
    import pyarrow.compute as pc  # lazy: a clean document never needs it here

    rounded, doubt = round3_array(v)
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
    import pyarrow as pa  # lazy: as in _rounded
    import pyarrow.compute as pc  # lazy: as in _rounded

    if not boxes:
        return [], []
    n = len(boxes)
    x0, y0, x1, y1 = (float64_array(c) for c in zip(*boxes, strict=True))
    # every box's corners TL, TR, BR, BL as four runs of n points
    xs, ys = corners(pa.concat_arrays([x0, x1, x1, x0]), pa.concat_arrays([y0, y0, y1, y1]))
    rx, doubt_x = _rounded(xs, size[0])
    ry, doubt_y = _rounded(ys, size[1])
    either = pc.or_(doubt_x, doubt_y)
    doubt = either.slice(0, n)  # a box is in doubt if any of its corners is
    for k in range(1, 4):
        doubt = pc.or_(doubt, either.slice(k * n, n))
    rxs, rys = [rx.slice(k * n, n) for k in range(4)], [ry.slice(k * n, n) for k in range(4)]
    hulls: list[Box] = list(zip(
        floats(pc.min_element_wise(*rxs)), floats(pc.min_element_wise(*rys)),
        floats(pc.max_element_wise(*rxs)), floats(pc.max_element_wise(*rys)), strict=True))
    fx, fy = floats(rx), floats(ry)
    quads = list(chain.from_iterable(zip(
        *(c for k in range(4) for c in (fx[k * n:(k + 1) * n], fy[k * n:(k + 1) * n])),
        strict=True)))
    if doubt.true_count:
        for i in pc.indices_nonzero(doubt).to_pylist():
            hulls[i] = box(boxes[i])
            quads[8 * i:8 * i + 8] = quad(boxes[i])
    return hulls, quads
