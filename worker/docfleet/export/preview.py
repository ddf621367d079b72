"""One page of one document with its golden truth drawn on it (``docfleet preview``, the
thumbnails of ``docfleet report``).

The page is rasterised with pypdfium2 at ``dpi`` (points x ``dpi / 72`` pixels, as the
interchange exports do) and every golden box of that page is drawn on it, coloured by
kind (:data:`KIND_COLOURS`): words, table cells, printed keys (``labels`` of kind
``label``), headings (kind ``header``), field values, and each key → value link as a line
from the key's box to the value's. A box carried through a capture condition (scan,
photo, fax, annotated) is drawn as its ``quad`` (the exact carried corners) where the
table has one, else as its axis-aligned box. A legend band is added below the page; the
page itself keeps its size in pixels.

``boxes="ink_box"`` draws the ink-tight boxes (columns ``ink_x0`` … ``ink_y1`` and
``ink_quad``, or a struct column ``ink_box``) of a run that has them; a run without them
is refused (:class:`ExportError`). Any pack with a ``pages`` table works: the document's
file is found in its unit's part, its pages in ``pages``.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow.compute as pc
import pypdfium2 as pdfium
from PIL import Image, ImageDraw, ImageFont

from docfleet.export.reader import ExportError, PartInfo, RunReader

#: colour of each kind, in drawing order (later kinds are drawn over earlier ones)
KIND_COLOURS: dict[str, tuple[int, int, int]] = {
    "word": (0, 145, 255),
    "cell": (0, 170, 70),
    "header": (150, 90, 0),
    "label": (255, 120, 0),
    "field": (225, 0, 110),
    "link": (120, 40, 220),
}
#: the golden table each kind is read from
KIND_TABLES = {"word": "words", "cell": "cells", "header": "labels", "label": "labels",
               "field": "fields"}
BOX_CHOICES = ("box", "ink_box")
LEGEND_ROW, LEGEND_FONT = 16, 12  # px: the legend band below the page
Quad = tuple[tuple[float, float], ...]


@dataclass
class PagePreview:
    """A drawn page: ``image`` is the page (``page_size`` pixels, ``scale`` pixels per
    point) with the legend band below it; ``shapes`` holds, per kind, what was drawn (in
    points: a quad per box, the two ends of each link)."""

    image: Image.Image
    document: int
    page: int
    pages: int
    condition: str
    scale: float
    page_size: tuple[int, int]
    shapes: dict[str, list[Quad]] = field(default_factory=dict)

    def png(self) -> bytes:
        buf = io.BytesIO()
        self.image.save(buf, format="PNG", optimize=True)
        return buf.getvalue()

    def save(self, path: Path) -> None:
        """Write the PNG to ``path`` whole or not at all (a temporary file renamed)."""
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            tmp.write_bytes(self.png())
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)


def find_document(reader: RunReader, index: int) -> tuple[PartInfo, str]:
    """The part holding document ``index`` and the document's file name. Raises
    :class:`ExportError` for an index the run does not hold."""
    last = -1
    for part in reader.parts():
        last = max(last, part.start + part.count - 1)
        if part.start <= index < part.start + part.count:
            for key in part.documents:
                name = key.removeprefix("documents/")
                if Path(name).stem.isdigit() and int(Path(name).stem) == index:
                    return part, name
            raise ExportError(f"document {index} of run {reader.run_id} has no file in "
                              f"unit {part.unit}'s part")
    hint = f"give an index from 0 to {last}" if last >= 0 else "the run has no documents"
    raise ExportError(f"document {index} is not in run {reader.run_id}", hint)


def _rows(reader: RunReader, part: PartInfo, table: str, index: int) -> list[dict[str, Any]]:
    if table not in part.shards:
        return []
    shard = reader.shard(part, table)
    return shard.filter(pc.equal(shard.column("document"), index)).to_pylist()


def _has_ink(rows: Iterable[dict[str, Any]]) -> bool:
    return any("ink_box" in r or "ink_x0" in r for r in rows)


def _quad(row: dict[str, Any], boxes: str) -> Quad | None:
    """The row's shape in points: its carried quad if it has one, else its box."""
    if boxes == "ink_box":
        quad, box = row.get("ink_quad"), row.get("ink_box")
        if isinstance(box, dict):
            box = (box.get("x0"), box.get("y0"), box.get("x1"), box.get("y1"))
        elif box is None:
            box = tuple(row.get(f"ink_{c}") for c in ("x0", "y0", "x1", "y1"))
    else:
        quad, box = row.get("quad"), (row.get("x0"), row.get("y0"), row.get("x1"),
                                      row.get("y1"))
    if quad and len(quad) == 8:
        return tuple((quad[i], quad[i + 1]) for i in range(0, 8, 2))
    if box is None or any(v is None for v in box):
        return None
    x0, y0, x1, y1 = box
    return ((x0, y0), (x1, y0), (x1, y1), (x0, y1))


def _centre(quad: Quad) -> tuple[float, float]:
    return (sum(p[0] for p in quad) / 4, sum(p[1] for p in quad) / 4)


def shapes(tables: dict[str, list[dict[str, Any]]], page: int, boxes: str = "box"
           ) -> dict[str, list[Quad]]:
    """What is drawn on ``page`` of one document, per kind, from its golden rows
    (``tables``: table → that document's rows): quads in points; a link is the pair
    (key centre, value centre)."""
    out: dict[str, list[Quad]] = {kind: [] for kind in KIND_COLOURS}
    on_page = {t: [r for r in rows if r.get("page") == page] for t, rows in tables.items()}
    for kind, table in KIND_TABLES.items():
        for row in on_page.get(table, []):
            if table == "labels" and row.get("kind") != kind:
                continue
            # a table without ink columns (cells) keeps its typographic box
            quad = _quad(row, boxes if _has_ink([row]) else "box")
            if quad is not None:
                out[kind].append(quad)
    keys = {r["label_id"]: _quad(r, "box") for r in on_page.get("labels", [])}
    values = {(r["field"], r["line"], r["occurrence"]): _quad(r, "box")
              for r in on_page.get("fields", [])}
    for link in on_page.get("links", []):
        key = keys.get(link["label_id"])
        value = values.get((link["field"], link["line"], link["occurrence"]))
        if key is not None and value is not None:
            out["link"].append((_centre(key), _centre(value)))
    return out


def _font(size: int) -> Any:
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1: the bitmap font
        return ImageFont.load_default()


def _legend(drawn: dict[str, list[Quad]], title: str, width: int, font: Any
            ) -> list[list[tuple[str, tuple[int, int, int] | None]]]:
    """The legend's rows (wrapped to ``width``): (text, swatch colour or None)."""
    probe = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    rows: list[list[tuple[str, tuple[int, int, int] | None]]] = [[]]
    x = 4
    for kind, colour in KIND_COLOURS.items():
        text = f"{kind} {len(drawn.get(kind, []))}"
        step = 20 + round(probe.textlength(text, font=font))
        if rows[-1] and x + step > width:
            rows.append([])
            x = 4
        rows[-1].append((text, colour))
        x += step
    rows.append([(title, None)])
    return rows


def draw(image: Image.Image, drawn: dict[str, list[Quad]], scale: float, title: str
         ) -> Image.Image:
    """``image`` (the page) with ``drawn`` on it and the legend band below (its rows
    wrapped to the page's width)."""
    font = _font(LEGEND_FONT)
    legend = _legend(drawn, title, image.width, font)
    canvas = Image.new("RGB", (image.width, image.height + LEGEND_ROW * len(legend) + 4),
                       "white")
    canvas.paste(image.convert("RGB"), (0, 0))
    pen = ImageDraw.Draw(canvas)
    width = max(1, round(scale))
    for kind, colour in KIND_COLOURS.items():
        for quad in drawn.get(kind, []):
            pts = [(x * scale, y * scale) for x, y in quad]
            if kind == "link":
                pen.line(pts, fill=colour, width=width)
                (x, y), r = pts[-1], width + 1
                pen.ellipse((x - r, y - r, x + r, y + r), fill=colour)
            else:
                pen.line([*pts, pts[0]], fill=colour, width=width)
    pen.line((0, image.height, canvas.width, image.height), fill=(160, 160, 160))
    y = image.height + 3
    for row in legend:
        x = 4
        for text, swatch in row:
            if swatch is not None:
                pen.rectangle((x, y + 2, x + 10, y + 12), fill=swatch)
                x += 14
            pen.text((x, y), text, fill=(0, 0, 0) if swatch else (90, 90, 90), font=font)
            x += 6 + round(pen.textlength(text, font=font))
        y += LEGEND_ROW
    return canvas


def preview_page(reader: RunReader, index: int, page: int = 1, dpi: int = 100,
                 boxes: str = "box") -> PagePreview:
    """Document ``index``'s page ``page`` (1-based) with its golden boxes drawn. Raises
    :class:`ExportError` for an index, page or box kind the run does not have, a run
    without pages (its pack prints none, or the ``html`` format) and a bad ``dpi``."""
    if boxes not in BOX_CHOICES:
        raise ExportError(f"--boxes {boxes} is not a box kind", "use box or ink_box")
    if not 18 <= dpi <= 600:
        raise ExportError(f"--dpi {dpi} is out of range", "use 18 to 600 (e.g. 100)")
    tables = reader.tables()
    if "pages" not in tables:
        raise ExportError(f"run {reader.run_id} has no pages table: its pack prints no "
                          "page to draw", "preview a run of a pack that prints pages "
                          "(invoice, receipt, purchase_order, bank_statement)")
    part, name = find_document(reader, index)
    if not name.lower().endswith(".pdf"):
        raise ExportError(f"document {index} of run {reader.run_id} is {name}, not a PDF: "
                          "it has no page to draw", "preview a run made with format=pdf")
    rows: dict[str, list[dict[str, Any]]] = {t: _rows(reader, part, t, index)
            for t in ("pages", "fields", "words", "labels", "links", "cells") if t in tables}
    if boxes == "ink_box" and not _has_ink(rows.get("words", []) + rows.get("fields", [])):
        raise ExportError(f"run {reader.run_id} has no ink boxes (ink_box columns): it was "
                          "made before they existed", "use --boxes box, or make the run "
                          "again with this docfleet")
    pages = sorted(rows["pages"], key=lambda r: r["page"])
    if not 1 <= page <= len(pages):
        raise ExportError(f"document {index} of run {reader.run_id} has {len(pages)} "
                          f"page(s); there is no page {page}", f"use --page 1 to {len(pages)}")
    pdf = pdfium.PdfDocument(reader.document(part, name))
    try:
        scale = dpi / 72  # exactly the factor pdfium renders with
        raster = pdf[page - 1].render(scale=scale).to_pil()
    finally:
        pdf.close()
    drawn = shapes(rows, page, boxes)
    condition = pages[page - 1].get("condition") or "clean"
    title = f"{reader.run_id} · document {index} · page {page}/{len(pages)} · {condition}"
    image = draw(raster, drawn, scale, title)
    return PagePreview(image, index, page, len(pages), condition, scale,
                       (raster.width, raster.height), drawn)


def thumbnails(reader: RunReader, count: int = 4, dpi: int = 30) -> list[PagePreview]:
    """The first page of the run's first ``count`` PDF documents, drawn small (what
    ``docfleet report`` shows); none for a run without pages."""
    if "pages" not in reader.tables():
        return []
    out: list[PagePreview] = []
    for part in reader.parts():
        for key in sorted(part.documents):
            stem = Path(key).stem
            if len(out) >= count:
                return out
            if key.lower().endswith(".pdf") and stem.isdigit():
                out.append(preview_page(reader, int(stem), 1, dpi))
    return out
