"""A printed document under its capture condition, and how its boxes follow.

``clean`` keeps the vector PDF; ``scan`` (:mod:`docfleet.render.scan`) and ``photo``,
``fax``, ``annotated`` (:mod:`docfleet.render.capture`) rasterise it with draws seeded by
(run id, document) alone. A :class:`Carry` maps a box measured on the clean page to the
captured one: the axis-aligned hull (``box``) and the carried corners (``quad``). Every
golden row builder (:mod:`.rows`) takes one, so a box column follows every condition
the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from itertools import chain
from operator import itemgetter
from typing import Any

from docfleet.core.seeding import document_seed
from docfleet.render.corners import Corners, carry_boxes
from docfleet.render.layout import Box, Layout

BoxMap = Callable[[int, Box], Box]
QuadMap = Callable[[int, Box], tuple[float, ...]]
#: (page, its boxes) → their hulls and their quads flat, eight values a box
ManyMap = Callable[[int, Sequence[Box]], tuple[list[Box], list[float]]]
#: a box's corners TL, TR, BR, BL (x, y x 4): its quad on a clean page
_CORNERS = itemgetter(0, 1, 2, 1, 2, 3, 0, 3)
#: seed salts of the capture draws (part of every captured document's bytes)
SCAN_SALT = 0x5CA9
CAPTURE_SALT = 0xCA97


@dataclass(frozen=True)
class Carry:
    """A page box (page 1-based, points) → the captured page: identity when clean."""

    box_map: BoxMap | None = None
    quad_map: QuadMap | None = None
    #: both maps for many boxes of a page at once, with the same floats
    many_map: ManyMap | None = None

    def many(self, pages: Sequence[int], boxes: Sequence[Box]) -> tuple[list[Box], list[float]]:
        """:meth:`box` and :meth:`quad` of every ``(page, box)``: the hulls, and the quads
        flat (eight values a box); the same floats as one box at a time, computed a run
        of one page at a time where the capture can (``many_map``)."""
        if len(pages) != len(boxes):
            raise ValueError(f"{len(pages)} pages for {len(boxes)} boxes")
        if self.box_map is None and self.quad_map is None:  # clean: boxes as they are
            return list(boxes), list(chain.from_iterable(map(_CORNERS, boxes)))
        if self.many_map is None:
            return ([self.box(p, b) for p, b in zip(pages, boxes, strict=True)],
                    list(chain.from_iterable(map(self.quad, pages, boxes))))
        hulls: list[Box] = []
        quads: list[float] = []
        start = 0
        while start < len(pages):  # runs of one page (a document's boxes, page by page)
            page, end = pages[start], start + 1
            while end < len(pages) and pages[end] == page:
                end += 1
            h, q = self.many_map(page, boxes[start:end])
            hulls += h
            quads += q
            start = end
        return hulls, quads

    def box(self, page: int, box: Box) -> Box:
        """The hull of ``box`` on the captured page (``box`` itself when clean)."""
        return self.box_map(page, box) if self.box_map else box

    def quad(self, page: int, box: Box) -> list[float]:
        """The corners TL, TR, BR, BL of ``box`` on the captured page (x, y x 4)."""
        if self.quad_map is not None:
            return list(self.quad_map(page, box))
        return list(_CORNERS(box))


@dataclass
class Captured:
    """The document's final PDF, its first page's size, every page's size, the carry of
    its boxes and the capture parameters applied per page (``None`` when clean)."""

    pdf: bytes
    size: tuple[float, float]
    sizes: list[tuple[float, float]]
    carry: Carry = field(default_factory=Carry)
    page_params: list[dict[str, Any]] | None = None


def markable_boxes(layout: Layout, pages: int, markable: Sequence[str]) -> list[list[Box]]:
    """Per page, the boxes of the printed values an annotator may mark."""
    targets: list[list[Box]] = [[] for _ in range(pages)]
    for f in layout.fields:
        if f.field in markable:
            targets[f.page - 1].append(f.box)
    return targets


def on_page(quad_map: QuadMap, sizes: Sequence[tuple[float, float]]) -> QuadMap:
    """``quad_map`` with every carried corner clamped to its page, as the hull box is:
    the quad's hull is then the box (a corner rotated off a narrow page stays on it)."""
    def quad(page: int, b: Box) -> tuple[float, ...]:
        w, h = sizes[page - 1]
        q0, q1, q2, q3, q4, q5, q6, q7 = quad_map(page, b)  # x, y of each corner
        return (min(max(round(q0, 3), 0.0), w), min(max(round(q1, 3), 0.0), h),
                min(max(round(q2, 3), 0.0), w), min(max(round(q3, 3), 0.0), h),
                min(max(round(q4, 3), 0.0), w), min(max(round(q5, 3), 0.0), h),
                min(max(round(q6, 3), 0.0), w), min(max(round(q7, 3), 0.0), h))
    return quad


def capture(pdf: bytes, size: tuple[float, float], pages: int, condition: str, run_id: str,
            document: int, language: str, targets: Callable[[], list[list[Box]]],
            clamp: bool = False, photo_recipe: int = 1) -> Captured:
    """``pdf`` (clean, ``pages`` pages, first page ``size`` points) under ``condition``.
    ``targets()``: per page, the boxes an annotator may mark (asked only when needed).
    ``clamp``: quads stay on the page like their boxes (:func:`on_page`; a content
    version's choice: older runs keep their bytes); ``photo_recipe``: likewise, which
    :data:`~docfleet.render.capture.PHOTO_RECIPES` a photo uses. Deterministic in
    (run_id, document)."""
    if condition == "clean":
        return Captured(pdf, size, [size] * pages)
    if condition == "scan":
        from docfleet.render.scan import scan_page_params, scan_pdf  # lazy: start-up

        scanned, params, sizes = scan_pdf(pdf, document_seed(run_id, document) ^ SCAN_SALT)
        maps = [params.page_maps(w, h) for w, h in sizes]  # each page's, its trig once

        def box(page: int, b: Box) -> Box:
            return maps[page - 1][0](b)

        def quad(page: int, b: Box) -> tuple[float, ...]:
            return maps[page - 1][1](b)

        quad_map = on_page(quad, sizes) if clamp else quad
        return Captured(scanned, (round(sizes[0][0], 3), round(sizes[0][1], 3)), sizes,
                        Carry(box, quad_map, _many(sizes, lambda page: maps[page - 1][2],
                                                   box, quad_map)),
                        [scan_page_params(params)] * len(sizes))
    from docfleet.render.capture import capture_pdf  # lazy: start-up (photo, fax, annotated)

    captured, geometry, page_params = capture_pdf(
        pdf, condition, document_seed(run_id, document) ^ CAPTURE_SALT, language, targets(),
        photo_recipe)
    quad_map = on_page(geometry.quad, geometry.sizes) if clamp else geometry.quad
    return Captured(captured, geometry.sizes[0], geometry.sizes,
                    Carry(geometry.box, quad_map,
                          _many(geometry.sizes, geometry.corners, geometry.box, quad_map)),
                    page_params)


def _many(sizes: Sequence[tuple[float, float]], corners: Callable[[int], Corners],
          box: BoxMap, quad: QuadMap) -> ManyMap:
    """A page's boxes through ``box`` and ``quad`` at once (``corners(page)``: the same
    map in Arrow; :func:`docfleet.render.corners.carry_boxes`)."""
    def many(page: int, boxes: Sequence[Box]) -> tuple[list[Box], list[float]]:
        return carry_boxes(boxes, sizes[page - 1], corners(page),
                           partial(box, page), partial(quad, page))
    return many
