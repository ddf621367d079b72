"""Golden rows of the page: the fields the template printed and the boxes the browser
measured, joined into the rows of the shared tables (:mod:`.schema`): ``fields``,
``words``, ``lines``, ``labels``, ``links``, ``cells`` and ``pages``.

:func:`layout_rows` is the one place that turns a laid-out document into those rows
(every box through the condition's :class:`~.capture.Carry`); :func:`html_rows` is the same
for the ``html`` format (fields without boxes, no layout tables). A content version
with ink truth (:mod:`docfleet.render.ink`) adds the ``ink_*`` columns beside the boxes
and the ``chars`` table, each ink box through the same carry as its box.
:func:`document_meta` gives the columns every document table shares.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from docfleet.core.columns import Columns
from docfleet.packs.sdk.capture import Carry
from docfleet.render.html import PrintedField
from docfleet.render.ink import Ink
from docfleet.render.layout import Box, Layout

#: golden tables of the page layout: empty in the html format
LAYOUT_TABLES = ("words", "lines", "labels", "links", "cells", "pages")
_CLEAN = Carry()


def _edges(box: Box) -> dict[str, float]:
    x0, y0, x1, y1 = box
    return {"x0": x0, "y0": y0, "x1": x1, "y1": y1}


def _ink_edges(page: int, box: Box, carry: Carry, quad: bool) -> dict[str, Any]:
    """The ``ink_*`` columns of an ink box on page ``page`` (through ``carry``)."""
    x0, y0, x1, y1 = carry.box(page, box)
    row: dict[str, Any] = {"ink_x0": x0, "ink_y0": y0, "ink_x1": x1, "ink_y1": y1}
    if quad:
        row["ink_quad"] = carry.quad(page, box)
    return row


def _line_boxes(page: int, boxes: tuple[Box, ...], carry: Carry) -> list[dict[str, float]]:
    return [_edges(carry.box(page, b)) for b in boxes]


def field_rows(document: int, printed: list[PrintedField], layout: Layout | None,
               carry: Carry = _CLEAN, ink: Ink | bool | None = None) -> list[dict[str, Any]]:
    """One row per printed occurrence. With a layout, each row gets its measured box
    through ``carry`` (and its ink box with ``ink``; ``True``: the ink columns, null, as
    in html); a printed field the layout lacks, a measured field nobody printed, or a DOM
    text that differs raises ``ValueError``."""
    boxes = {}
    inks: dict[tuple[str, int | None, int], Box] = {}
    if layout is not None:
        boxes = {(f.field, f.line, f.occurrence): f for f in layout.fields}
        if isinstance(ink, Ink):
            inks = {(f.field, f.line, f.occurrence): b
                    for f, b in zip(layout.fields, ink.fields, strict=True)}
        if len(boxes) != len(layout.fields) or set(boxes) != {p.key for p in printed}:
            missing = {p.key for p in printed} ^ set(boxes)
            raise ValueError(f"document {document}: printed and laid-out fields differ: "
                             f"{sorted(missing, key=str)[:5]}")
    rows = []
    for p in printed:
        row: dict[str, Any] = {
            "document": document, "field": p.name, "line": p.line, "occurrence": p.occurrence,
            "text": p.text, "value": p.value, "page": None,
            "x0": None, "y0": None, "x1": None, "y1": None, "line_boxes": None, "quad": None,
        }
        if ink:
            row.update(ink_x0=None, ink_y0=None, ink_x1=None, ink_y1=None, ink_quad=None)
        if layout is not None:
            measured = boxes[p.key]
            if measured.text != p.text:
                raise ValueError(f"document {document}: field {p.name} prints "
                                 f"{measured.text!r}, golden {p.text!r}")
            page = measured.page
            row.update(page=page, **_edges(carry.box(page, measured.box)),
                       line_boxes=_line_boxes(page, measured.lines or (measured.box,), carry),
                       quad=carry.quad(page, measured.box))
            if inks:
                row.update(_ink_edges(page, inks[p.key], carry, quad=True))
        rows.append(row)
    return rows


def word_rows(document: int, layout: Layout, carry: Carry = _CLEAN, ink: Ink | None = None
              ) -> list[dict[str, Any]]:
    """One row per printed word, numbered in reading order per page."""
    rows: list[dict[str, Any]] = []
    counters: dict[int, int] = {}
    pages = [w.page for w in layout.words]
    boxes, quads = carry.many(pages, [w.box for w in layout.words])
    inks, ink_quads = carry.many(pages, ink.words) if ink is not None else ([], [])
    for k, w in enumerate(layout.words):
        page = w.page
        number = counters.get(page, 0)
        counters[page] = number + 1
        x0, y0, x1, y1 = boxes[k]
        row = {"document": document, "page": page, "word": number, "text": w.text,
               "x0": x0, "y0": y0, "x1": x1, "y1": y1,
               "field": w.field, "line": w.line, "occurrence": w.occurrence,
               "text_line": w.text_line, "label_id": w.label,
               "quad": quads[8 * k:8 * k + 8]}
        if ink is not None:
            row["ink_x0"], row["ink_y0"], row["ink_x1"], row["ink_y1"] = inks[k]
            row["ink_quad"] = ink_quads[8 * k:8 * k + 8]
        rows.append(row)
    return rows


def char_rows(document: int, ink: Ink, words: list[dict[str, Any]], carry: Carry = _CLEAN
              ) -> Columns:
    """One row per printed glyph (``ink.glyphs``, in reading order), numbered per page;
    ``words``: the document's ``words`` rows (a glyph names its word's number). Built as
    columns (a page holds thousands of glyphs): the same rows as one dict per glyph would
    give, converted to Arrow once."""
    import pyarrow as pa  # lazy: start-up (pyarrow: loaded by the task, not here)

    from docfleet.packs.sdk.schema import CHARS  # lazy: start-up (its schemas are pyarrow's)

    glyphs = ink.glyphs
    if not glyphs:
        return Columns(CHARS.empty_table())
    pages, owners, texts, boxes, inks = zip(*glyphs, strict=True)
    counters: dict[int, int] = {}
    numbers = []
    for page in pages:
        number = counters.get(page, 0)
        counters[page] = number + 1
        numbers.append(number)
    carried, quads = carry.many(pages, boxes)
    carried_inks, ink_quads = carry.many(pages, inks)
    number_of = [w["word"] for w in words]
    offsets = pa.array(range(0, 8 * len(glyphs) + 1, 8), pa.int32())
    x0, y0, x1, y1 = zip(*carried, strict=True)
    i0, i1, i2, i3 = zip(*carried_inks, strict=True)
    columns = {"document": [document] * len(glyphs), "page": pages, "char": numbers,
               "text": texts, "word": [number_of[k] for k in owners],
               "x0": x0, "y0": y0, "x1": x1, "y1": y1,
               "ink_x0": i0, "ink_y0": i1, "ink_x1": i2, "ink_y1": i3,
               "quad": pa.ListArray.from_arrays(offsets, pa.array(quads, pa.float64())),
               "ink_quad": pa.ListArray.from_arrays(offsets, pa.array(ink_quads,
                                                                      pa.float64()))}
    return Columns(pa.Table.from_arrays([pa.array(columns[f.name], f.type) for f in CHARS],
                                        schema=CHARS))



def text_line_rows(document: int, layout: Layout, carry: Carry = _CLEAN
                   ) -> list[dict[str, Any]]:
    """One row per printed line of text."""
    return [{"document": document, "page": t.page, "text_line": t.number, "text": t.text,
             **_edges(carry.box(t.page, t.box)), "first_word": t.first_word,
             "words": t.words} for t in layout.lines]


def label_rows(document: int, layout: Layout, carry: Carry = _CLEAN, ink: Ink | None = None
               ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(labels, links): every printed key or heading, and one link per value a key
    labels. A link always names a printed field occurrence (else ``ValueError``)."""
    printed = {(f.field, f.line, f.occurrence) for f in layout.fields}
    labels: list[dict[str, Any]] = []
    links: list[dict[str, Any]] = []
    for n, lab in enumerate(layout.labels):
        labels.append({
            "document": document, "label_id": lab.id, "kind": lab.kind, "name": lab.name,
            "scope": lab.scope, "text": lab.text, "page": lab.page,
            **_edges(carry.box(lab.page, lab.box)),
            "line_boxes": _line_boxes(lab.page, lab.lines or (lab.box,), carry),
        })
        if ink is not None:
            labels[-1].update(_ink_edges(lab.page, ink.labels[n], carry, quad=False))
        for k in lab.links:
            if (k.field, k.line, k.occurrence) not in printed:
                raise ValueError(f"document {document}: label {lab.name!r} links to "
                                 f"{k.field} (line {k.line}), which is not printed")
            links.append({"document": document, "label_id": lab.id, "page": lab.page,
                          "field": k.field, "line": k.line, "occurrence": k.occurrence})
    return labels, links


def cell_rows(document: int, layout: Layout, carry: Carry = _CLEAN) -> list[dict[str, Any]]:
    """One row per table cell, numbered in document order."""
    return [{"document": document, "page": c.page, "table": c.table, "table_index": c.index,
             "cell": number, "row": c.row, "column": c.column, "column_span": c.span,
             "header": c.header, "text": c.text, **_edges(carry.box(c.page, c.box)),
             "field": c.field, "line": c.line} for number, c in enumerate(layout.cells)]


def page_rows(document: int, condition: str, sizes: list[tuple[float, float]],
              params: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """One ``pages`` row per printed page: size in points, the condition and every
    capture parameter applied to that page (``params[i]``; all null for clean)."""
    from docfleet.packs.sdk.schema import (
        PAGES,  # lazy: start-up (pyarrow: loaded by the task, not here)
    )

    rows = []
    for i, (w, h) in enumerate(sizes):
        row: dict[str, Any] = {"document": document, "page": i + 1, "width": w, "height": h,
                               "condition": condition}
        if params:
            row.update(params[i])
        for name in PAGES.names:
            row.setdefault(name, None)
        rows.append(row)
    return rows


def layout_rows(document: int, condition: str, printed: list[PrintedField], layout: Layout,
                carry: Carry, sizes: list[tuple[float, float]],
                page_params: list[dict[str, Any]] | None, ink: Ink | None = None
                ) -> dict[str, Sequence[dict[str, Any]]]:
    """Every shared table's rows of one laid-out document (see the module docstring);
    with ``ink``, the ink columns and the ``chars`` table too."""
    labels, links = label_rows(document, layout, carry, ink)
    words = word_rows(document, layout, carry, ink)
    return {
        "fields": field_rows(document, printed, layout, carry, ink),
        "words": words,
        **({"chars": char_rows(document, ink, words, carry)} if ink is not None else {}),
        "lines": text_line_rows(document, layout, carry),
        "labels": labels,
        "links": links,
        "cells": cell_rows(document, layout, carry),
        "pages": page_rows(document, condition, sizes, page_params),
    }


def html_rows(document: int, printed: list[PrintedField], ink: bool = False
              ) -> dict[str, list[dict[str, Any]]]:
    """The shared tables of an ``html`` document: its fields (no page, no box; null ink
    columns with ``ink``) and no layout rows."""
    return {"fields": field_rows(document, printed, None, ink=ink),
            **{table: [] for table in (*LAYOUT_TABLES, *(("chars",) if ink else ()))}}


def line_pages(layout: Layout, field: str) -> dict[int, int]:
    """line → the page its first printing of ``field`` is on (a per-line field's page is
    its line's page)."""
    return {f.line: f.page for f in layout.fields
            if f.field == field and f.occurrence == 0 and f.line is not None}


def document_meta(record: Any, pages: int | None, size: tuple[float, float] | None
                  ) -> dict[str, Any]:
    """The columns every document table starts and ends with (:func:`.schema.meta_fields`):
    ``record`` carries ``document``, ``archetype``, ``locale``, ``condition``, ``format``,
    ``file`` and ``currency``; ``pages`` and ``size`` are ``None`` in html."""
    return {
        "document": record.document, "archetype": record.archetype, "locale": record.locale,
        "condition": record.condition, "format": record.format, "file": record.file,
        "currency": record.currency, "page_count": pages,
        "page_width": size[0] if size else None, "page_height": size[1] if size else None,
    }
