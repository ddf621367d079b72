"""The golden tables every templated pack writes beside its own: ``fields``, ``words``,
``lines``, ``labels``, ``links``, ``cells`` and ``pages`` (:data:`LAYOUT_TABLES`), their
Arrow schemas and column meanings, and the column types and document-table columns the
packs' own tables share (:func:`meta_fields`). Names and column meanings are a contract:
export and scoring read them. Conventions (docs/schema.md has every column):

- ``document`` is the document index (0 … total-1) in every table; it joins the tables.
- Money is exact: ``decimal128(18, 2)`` in the document's currency (never float).
- Boxes are in **PDF points** (1/72 in) on page ``page`` (1-based), with the origin at
  the **top-left** corner of the page and ``y`` growing downward: ``x0 < x1``,
  ``y0 < y1``. For the ``scan``, ``photo``, ``fax`` and ``annotated`` conditions a box is
  the axis-aligned hull of the original box carried through the page's geometric
  transform, and ``quad`` holds the carried corners (TL, TR, BR, BL) — the exact
  quadrilateral for a photo; for ``clean`` the quad is the box's own corners. Capture
  parameters are in ``pages``. In the ``html`` format there is no page: ``page`` and the
  box columns are null and the layout tables are empty.
- ``fields.text`` is the exact printed string; ``fields.value`` is its canonical form
  (money ``1234.50``, dates ``2024-03-31``, percentages ``20``, other text as printed);
  a value that is not printed has no ``fields`` row; a field printed more than once (a
  running header) has one row per printed occurrence, told apart by ``page`` and
  ``occurrence``.
- ``words`` follow :data:`TOKENISATION`, in reading order per page. Every word of a field
  carries the field's ``field`` / ``line`` / ``occurrence``.
- From a pack's ``ink_content`` version on (:func:`layout_tables`), ``fields``, ``words``
  and ``labels`` carry the ink box ``ink_x0`` … ``ink_y1`` (and ``ink_quad`` beside
  ``quad``) and ``chars`` holds every glyph (:mod:`docfleet.render.ink`).
"""

from __future__ import annotations

import pyarrow as pa

MONEY = pa.decimal128(18, 2)
#: quantities: metered lines carry up to 3 decimals (``12.375`` kWh)
QUANTITY = pa.decimal128(18, 3)
#: unit prices: metered rates carry up to 4 decimals (``0.0450``)
UNIT_PRICE = pa.decimal128(18, 4)
#: percentages (tax rates, discounts): ``8.875`` means 8.875 %
PERCENT = pa.decimal128(7, 3)

TAX_LINE = pa.struct(
    [
        pa.field("rate", PERCENT, nullable=False),
        pa.field("base", MONEY, nullable=False),
        pa.field("amount", MONEY, nullable=False),
    ]
)


def _box() -> list[pa.Field]:
    return [
        pa.field("page", pa.int32()),
        pa.field("x0", pa.float64()),
        pa.field("y0", pa.float64()),
        pa.field("x1", pa.float64()),
        pa.field("y1", pa.float64()),
    ]


#: one box per printed line of a value or label, top to bottom (same units as x0 … y1)
LINE_BOX = pa.struct([pa.field(k, pa.float64(), nullable=False) for k in ("x0", "y0", "x1", "y1")])


FIELDS = pa.schema(
    [
        pa.field("document", pa.int64(), nullable=False),
        pa.field("field", pa.string(), nullable=False),  # e.g. total, seller_name, quantity
        #: line item number for per-line fields, tax row number (1-based, ascending rate)
        #: for tax_rate / tax_base / tax_amount, else null
        pa.field("line", pa.int32()),
        pa.field("occurrence", pa.int32(), nullable=False),  # 0 first printing, 1, …
        pa.field("text", pa.string(), nullable=False),  # exactly as printed
        pa.field("value", pa.string(), nullable=False),  # canonical form
        *_box(),
        pa.field("line_boxes", pa.list_(LINE_BOX)),  # one per printed line; null in html
        pa.field("quad", pa.list_(pa.float64())),  # corners TL, TR, BR, BL: x, y x 4
    ]
)

WORDS = pa.schema(
    [
        pa.field("document", pa.int64(), nullable=False),
        pa.field("page", pa.int32(), nullable=False),
        pa.field("word", pa.int32(), nullable=False),  # reading order on the page, 0-based
        pa.field("text", pa.string(), nullable=False),
        pa.field("x0", pa.float64(), nullable=False),
        pa.field("y0", pa.float64(), nullable=False),
        pa.field("x1", pa.float64(), nullable=False),
        pa.field("y1", pa.float64(), nullable=False),
        pa.field("field", pa.string()),  # the field the word is part of, if any
        pa.field("line", pa.int32()),
        pa.field("occurrence", pa.int32()),
        pa.field("text_line", pa.int32(), nullable=False),  # its row of ``lines``
        pa.field("label_id", pa.int32()),  # the printed label it belongs to, if any
        pa.field("quad", pa.list_(pa.float64())),  # corners TL, TR, BR, BL: x, y x 4
    ]
)

LINES = pa.schema(
    [
        pa.field("document", pa.int64(), nullable=False),
        pa.field("page", pa.int32(), nullable=False),
        pa.field("text_line", pa.int32(), nullable=False),  # reading order on the page
        pa.field("text", pa.string(), nullable=False),  # its words joined by one space
        pa.field("x0", pa.float64(), nullable=False),
        pa.field("y0", pa.float64(), nullable=False),
        pa.field("x1", pa.float64(), nullable=False),
        pa.field("y1", pa.float64(), nullable=False),
        pa.field("first_word", pa.int32(), nullable=False),  # words.word of its first word
        pa.field("words", pa.int32(), nullable=False),
    ]
)

LABELS = pa.schema(
    [
        pa.field("document", pa.int64(), nullable=False),
        pa.field("label_id", pa.int32(), nullable=False),  # reading order in the document
        pa.field("kind", pa.string(), nullable=False),  # label | header
        #: label: the field name(s) it labels, space-separated; header: its name (title, …)
        pa.field("name", pa.string(), nullable=False),
        pa.field("scope", pa.string()),  # label: value | column; header: null
        pa.field("text", pa.string(), nullable=False),  # as printed, spaces collapsed
        *_box(),
        pa.field("line_boxes", pa.list_(LINE_BOX), nullable=False),
    ]
)

LINKS = pa.schema(
    [
        pa.field("document", pa.int64(), nullable=False),
        pa.field("label_id", pa.int32(), nullable=False),  # labels.label_id (the key)
        pa.field("page", pa.int32(), nullable=False),
        #: the linked value: a fields row (field, line, occurrence)
        pa.field("field", pa.string(), nullable=False),
        pa.field("line", pa.int32()),
        pa.field("occurrence", pa.int32(), nullable=False),
    ]
)

CELLS = pa.schema(
    [
        pa.field("document", pa.int64(), nullable=False),
        pa.field("page", pa.int32(), nullable=False),
        pa.field("table", pa.string(), nullable=False),  # line_items
        pa.field("table_index", pa.int32(), nullable=False),  # the table's number on its page
        pa.field("cell", pa.int32(), nullable=False),  # id, 0-based in the document
        pa.field("row", pa.int32(), nullable=False),  # 0 = header row
        pa.field("column", pa.int32(), nullable=False),
        pa.field("column_span", pa.int32(), nullable=False),
        pa.field("header", pa.bool_(), nullable=False),
        pa.field("text", pa.string(), nullable=False),
        pa.field("x0", pa.float64(), nullable=False),
        pa.field("y0", pa.float64(), nullable=False),
        pa.field("x1", pa.float64(), nullable=False),
        pa.field("y1", pa.float64(), nullable=False),
        pa.field("field", pa.string()),  # the first field printed in the cell
        pa.field("line", pa.int32()),  # the line item of a body cell
    ]
)

ANNOTATION = pa.struct([
    #: stamp | signature | tick | circle | highlight
    pa.field("kind", pa.string(), nullable=False),
    pa.field("text", pa.string()),  # a stamp's text
    pa.field("x0", pa.float64(), nullable=False),
    pa.field("y0", pa.float64(), nullable=False),
    pa.field("x1", pa.float64(), nullable=False),
    pa.field("y1", pa.float64(), nullable=False),
])

#: one row per printed page: its size and every capture parameter actually applied
#: (difficulty labels); a parameter the page's condition does not use is null
PAGES = pa.schema(
    [
        pa.field("document", pa.int64(), nullable=False),
        pa.field("page", pa.int32(), nullable=False),
        pa.field("width", pa.float64(), nullable=False),  # points
        pa.field("height", pa.float64(), nullable=False),
        pa.field("condition", pa.string(), nullable=False),
        pa.field("dpi", pa.int32()),  # raster resolution; null for clean
        pa.field("angle", pa.float64()),  # rotation, degrees counter-clockwise
        pa.field("shift_x", pa.float64()),  # points
        pa.field("shift_y", pa.float64()),
        pa.field("blur", pa.float64()),  # Gaussian radius, px
        pa.field("noise", pa.int32()),  # +- grey levels
        pa.field("jpeg_quality", pa.int32()),
        pa.field("contrast", pa.float64()),  # 1.0 = unchanged
        pa.field("bits", pa.int32()),  # 1 (fax), 8 (grey), 24 (colour)
        #: photo: where the page corners TL, TR, BR, BL landed (points): x, y x 4
        pa.field("perspective", pa.list_(pa.float64())),
        pa.field("lighting", pa.float64()),  # photo: depth of the uneven light, 0-1
        pa.field("background", pa.string()),  # photo: background colour
        pa.field("threshold", pa.int32()),  # fax: 1-bit threshold (0-255)
        pa.field("streaks", pa.int32()),  # fax: streak count
        pa.field("annotations", pa.list_(ANNOTATION)),  # annotated: marks, boxes in points
    ]
)

#: the shared tables, in the order every pack declares them after its own
LAYOUT_TABLES: dict[str, pa.Schema] = {
    "fields": FIELDS,
    "words": WORDS,
    "lines": LINES,
    "labels": LABELS,
    "links": LINKS,
    "cells": CELLS,
    "pages": PAGES,
}

# -- ink truth (a pack's ``ink_content`` version on: :mod:`docfleet.render.ink`) ------------

def _ink(nullable: bool, quad: bool) -> list[pa.Field]:
    """The ink box of a row (its glyphs' outline bounds), named like its box."""
    edges = [pa.field(f"ink_{k}", pa.float64(), nullable=nullable)
             for k in ("x0", "y0", "x1", "y1")]
    return [*edges, pa.field("ink_quad", pa.list_(pa.float64()))] if quad else edges


#: one row per printed glyph, in reading order (by word, then as the PDF holds them)
CHARS = pa.schema(
    [
        pa.field("document", pa.int64(), nullable=False),
        pa.field("page", pa.int32(), nullable=False),
        pa.field("char", pa.int32(), nullable=False),  # order on the page, 0-based
        pa.field("text", pa.string(), nullable=False),  # the character (its Unicode)
        pa.field("word", pa.int32(), nullable=False),  # words.word of its word
        pa.field("x0", pa.float64(), nullable=False),  # typographic box: advance x
        pa.field("y0", pa.float64(), nullable=False),  # the font's ascent to descent
        pa.field("x1", pa.float64(), nullable=False),
        pa.field("y1", pa.float64(), nullable=False),
        *_ink(False, False),
        pa.field("quad", pa.list_(pa.float64())),
        pa.field("ink_quad", pa.list_(pa.float64())),
    ]
)


def _with(schema: pa.Schema, extra: list[pa.Field]) -> pa.Schema:
    return pa.schema([*schema, *extra])


#: the shared tables of a content version with ink truth: ``ink_*`` columns beside the
#: boxes of ``fields``, ``words`` and ``labels``, and the ``chars`` table
INK_TABLES: dict[str, pa.Schema] = {
    "fields": _with(FIELDS, _ink(True, True)),
    "words": _with(WORDS, _ink(False, True)),
    "chars": CHARS,
    "lines": LINES,
    "labels": _with(LABELS, _ink(True, False)),
    "links": LINKS,
    "cells": CELLS,
    "pages": PAGES,
}


def layout_tables(ink: bool) -> dict[str, pa.Schema]:
    """The shared tables: with the ink columns and ``chars`` or as before them."""
    return INK_TABLES if ink else LAYOUT_TABLES


#: The tokenisation rule every ``words`` row follows (docs/schema.md, the dataset card).
TOKENISATION = (
    "A word is a maximal run of non-space characters on one printed line. Every Unicode "
    "space splits (no-break spaces included: `1\u00a0234,50\u00a0€` is three words); a "
    "token the page wraps over two lines is two words, one per line; text of touching "
    "elements with no space between joins (`[0%]` is one word even though only `0%` is "
    "the field). A word carries the field (and label) its characters belong to; it may "
    "hold punctuation printed against a field (`-5%` for the field `5%`). Words are in "
    "reading order: the template's logical order of blocks, lines top to bottom within a "
    "block, words in logical order within a line."
)

_INK_DOCS = {
    "ink_x0": "ink box: left of the union of its glyphs' outlines, points",
    "ink_y0": "ink box: top, points", "ink_x1": "ink box: right, points",
    "ink_y1": "ink box: bottom, points",
}
_INK_QUAD = {"ink_quad": "the ink box's corners TL, TR, BR, BL carried through the capture"}

#: What every column of the shared tables means (the dataset card prints it; a test checks
#: that every column is described).
LAYOUT_COLUMN_DOCS: dict[str, dict[str, str]] = {
    "fields": {
        "document": "document index",
        "field": "printed field name (invoice_number, total, description, …)",
        "line": "line item number, tax row number for tax_*, else null",
        "occurrence": "0 for the first printing, 1, … for repeats (running headers)",
        "text": "exactly as printed", "value": "canonical form (1234.50, 2024-03-31, 20)",
        "page": "1-based page; null in html",
        "x0": "left, points from the page's left edge", "y0": "top, points from the top edge",
        "x1": "right, points", "y1": "bottom, points",
        "line_boxes": "one box per printed line of the value, top to bottom",
        "quad": "the box's corners TL, TR, BR, BL carried through the capture (x, y x 4)",
        **_INK_DOCS, **_INK_QUAD,
    },
    "words": {
        "document": "document index", "page": "1-based page",
        "word": "reading-order index on the page, 0-based", "text": "the word (see rule)",
        "x0": "left, points", "y0": "top, points", "x1": "right, points",
        "y1": "bottom, points", "field": "the field the word belongs to, if any",
        "line": "that field's line", "occurrence": "that field's occurrence",
        "text_line": "the word's row in lines (reading order on the page)",
        "label_id": "the printed label the word belongs to (labels.label_id), if any",
        "quad": "the box's corners TL, TR, BR, BL carried through the capture (x, y x 4)",
        **_INK_DOCS, **_INK_QUAD,
    },
    "chars": {
        "document": "document index", "page": "1-based page",
        "char": "order of the glyph on the page (by word, then as the PDF holds them)",
        "text": "the character", "word": "words.word of the word it belongs to",
        "x0": "typographic box (advance x ascent to descent): left, points",
        "y0": "typographic box: top, points", "x1": "typographic box: right, points",
        "y1": "typographic box: bottom, points", **_INK_DOCS,
        "quad": "the typographic box's corners TL, TR, BR, BL carried through the capture",
        **_INK_QUAD,
    },
    "lines": {
        "document": "document index", "page": "1-based page",
        "text_line": "reading-order index of the line on the page, 0-based",
        "text": "its words joined by one space", "x0": "left, points", "y0": "top, points",
        "x1": "right, points", "y1": "bottom, points",
        "first_word": "words.word of its first word", "words": "number of words",
    },
    "labels": {
        "document": "document index",
        "label_id": "id of the printed key or heading, reading order in the document",
        "kind": "label (a key printed for a value: question) or header (title, section)",
        "name": "label: the field name(s) it labels, space-separated; header: its name",
        "scope": "value (labels the value it precedes) or column (a table column header)",
        "text": "as printed, spaces collapsed", "page": "1-based page",
        "x0": "left, points", "y0": "top, points", "x1": "right, points",
        "y1": "bottom, points", "line_boxes": "one box per printed line", **_INK_DOCS,
    },
    "links": {
        "document": "document index", "label_id": "the key (labels.label_id)",
        "page": "page of both ends", "field": "the linked value's field",
        "line": "the linked value's line", "occurrence": "the linked value's occurrence",
    },
    "cells": {
        "document": "document index", "page": "1-based page",
        "table": "which table (line_items, order_lines, transactions)",
        "table_index": "the table's number on its page",
        "cell": "cell id, 0-based in the document", "row": "0-based row; 0 is the header row",
        "column": "0-based column", "column_span": "columns the cell spans",
        "header": "whether it is a header cell", "text": "cell text, spaces collapsed",
        "x0": "left, points", "y0": "top, points", "x1": "right, points",
        "y1": "bottom, points", "field": "the first field printed in the cell",
        "line": "the line item of the row (null in the header row)",
    },
    "pages": {
        "document": "document index", "page": "1-based page",
        "width": "page width in points (after capture)", "height": "page height in points",
        "condition": "clean, scan, photo, fax or annotated",
        "dpi": "raster resolution; null for clean",
        "angle": "rotation applied, degrees counter-clockwise",
        "shift_x": "horizontal shift applied, points", "shift_y": "vertical shift, points",
        "blur": "Gaussian blur radius, px", "noise": "noise amplitude, +- grey levels",
        "jpeg_quality": "JPEG quality of the raster", "contrast": "contrast factor, 1 = none",
        "bits": "bits per pixel: 1 (fax), 8 (grey), 24 (colour)",
        "perspective": "photo: where the page corners TL, TR, BR, BL landed (x, y x 4)",
        "lighting": "photo: depth of the uneven lighting, 0-1",
        "background": "photo: background colour around the page",
        "threshold": "fax: the 1-bit threshold (0-255)", "streaks": "fax: streak count",
        "annotations": "annotated: each mark's kind, text and box in points",
    },
}


#: the document table's split column (train | validation | test) of a pack that assigns
#: splits without options of its own (:func:`docfleet.packs.sdk.splits.document_split`)
SPLIT_FIELD = pa.field("split", pa.string(), nullable=False)


def with_split(schema: pa.Schema) -> pa.Schema:
    """Document table ``schema`` with :data:`SPLIT_FIELD` appended."""
    return schema.append(SPLIT_FIELD)


def meta_fields() -> tuple[list[pa.Field], list[pa.Field]]:
    """Arrow fields of :func:`docfleet.packs.sdk.rows.document_meta`: the columns a
    document table starts with (document, archetype, locale, condition, format, file,
    currency) and ends with (page_count, page_width, page_height)."""
    head = [
        pa.field("document", pa.int64(), nullable=False),
        pa.field("archetype", pa.string(), nullable=False),
        pa.field("locale", pa.string(), nullable=False),
        pa.field("condition", pa.string(), nullable=False),
        pa.field("format", pa.string(), nullable=False),
        pa.field("file", pa.string(), nullable=False),
        pa.field("currency", pa.string(), nullable=False),
    ]
    tail = [
        pa.field("page_count", pa.int32()),
        pa.field("page_width", pa.float64()),
        pa.field("page_height", pa.float64()),
    ]
    return head, tail
