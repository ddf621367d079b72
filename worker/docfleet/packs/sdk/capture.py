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
from typing import Any

from docfleet.core.seeding import document_seed
from docfleet.render.layout import Box, Layout

BoxMap = Callable[[int, Box], Box]
QuadMap = Callable[[int, Box], tuple[float, ...]]
#: seed salts of the capture draws (part of every captured document's bytes)
SCAN_SALT = 0x5CA9
CAPTURE_SALT = 0xCA97


@dataclass(frozen=True)
class Carry:
    """A page box (page 1-based, points) → the captured page: identity when clean."""

    box_map: BoxMap | None = None
    quad_map: QuadMap | None = None

    def box(self, page: int, box: Box) -> Box:
        """The hull of ``box`` on the captured page (``box`` itself when clean)."""
        return self.box_map(page, box) if self.box_map else box

    def quad(self, page: int, box: Box) -> list[float]:
        """The corners TL, TR, BR, BL of ``box`` on the captured page (x, y x 4)."""
        if self.quad_map is not None:
            return list(self.quad_map(page, box))
        x0, y0, x1, y1 = box
        return [x0, y0, x1, y0, x1, y1, x0, y1]


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
        q = quad_map(page, b)
        return tuple(min(max(round(v, 3), 0.0), w if k % 2 == 0 else h)
                     for k, v in enumerate(q))
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

        def box(page: int, b: Box) -> Box:
            w, h = sizes[page - 1]
            return params.transform_box(b, w, h)

        def quad(page: int, b: Box) -> tuple[float, ...]:
            w, h = sizes[page - 1]
            x0, y0, x1, y1 = b
            return tuple(round(v, 3) for x, y in ((x0, y0), (x1, y0), (x1, y1), (x0, y1))
                         for v in params.transform_point(x, y, w, h))

        return Captured(scanned, (round(sizes[0][0], 3), round(sizes[0][1], 3)), sizes,
                        Carry(box, on_page(quad, sizes) if clamp else quad),
                        [scan_page_params(params)] * len(sizes))
    from docfleet.render.capture import capture_pdf  # lazy: start-up (photo, fax, annotated)

    captured, geometry, page_params = capture_pdf(
        pdf, condition, document_seed(run_id, document) ^ CAPTURE_SALT, language, targets(),
        photo_recipe)
    return Captured(captured, geometry.sizes[0], geometry.sizes,
                    Carry(geometry.box, on_page(geometry.quad, geometry.sizes) if clamp
                          else geometry.quad), page_params)
