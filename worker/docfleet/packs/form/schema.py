"""The form pack's own golden tables (the shared page tables, ``fields``, ``words``,
``labels``, ``links``, …, are the SDK's: :mod:`docfleet.packs.sdk.schema`). In FUNSD/XFUND
terms a ``labels`` row of kind ``label`` is a question, of kind ``header`` a header, a
``fields`` row an answer (a checkbox's is its box, with an empty text and its state as
value), ``links`` are the question → answer links, and every other word is ``other``.

- ``forms``: one row per document: the kind of form, who filled it and how.
- ``form_entries``: one row per written question, printed or left empty: ``filled``,
  ``handwritten`` (and by which ``writer``), ``overflow`` (the answer runs past its box,
  ``box_width`` in points), ``struck_text`` (a first attempt struck through before it).
- ``form_checkboxes``: one row per box of a checkbox group, radio group or yes/no grid
  row: its ``state`` (checked, unchecked, ambiguous), ``selected`` (checked), the ``mark``
  and whether it reaches ``outside`` the box; ``field`` names its ``fields`` row.
"""

from __future__ import annotations

import pyarrow as pa

from docfleet.packs.sdk.schema import meta_fields

_head, _tail = meta_fields()

FORMS = pa.schema([
    *_head,
    pa.field("form_kind", pa.string(), nullable=False),  # account, claim, medical, …
    pa.field("title", pa.string(), nullable=False),
    pa.field("form_code", pa.string(), nullable=False),
    pa.field("issue_date", pa.date32(), nullable=False),  # the signing date
    pa.field("fill", pa.string(), nullable=False),  # typed | handwritten | mixed
    pa.field("writers", pa.int32(), nullable=False),  # handwriting writers drawn
    pa.field("entries", pa.int32(), nullable=False),
    pa.field("filled", pa.int32(), nullable=False),
    pa.field("handwritten", pa.int32(), nullable=False),
    pa.field("checkboxes", pa.int32(), nullable=False),
    pa.field("checked", pa.int32(), nullable=False),
    pa.field("stamp_date", pa.date32()),  # the office stamp's, if stamped
    *_tail,
])

FORM_ENTRIES = pa.schema([
    pa.field("document", pa.int64(), nullable=False),
    pa.field("entry", pa.int32(), nullable=False),  # reading order, shared with groups
    pa.field("page", pa.int32()),
    pa.field("section", pa.string(), nullable=False),
    pa.field("key", pa.string(), nullable=False),  # the answer's field name
    pa.field("question", pa.string(), nullable=False),  # as printed
    pa.field("kind", pa.string(), nullable=False),  # text | date | comment | signature
    pa.field("value", pa.string()),  # canonical; null when left empty
    pa.field("filled", pa.bool_(), nullable=False),
    pa.field("handwritten", pa.bool_(), nullable=False),
    pa.field("writer", pa.int32()),  # 0 typed, 1… a handwriting writer; null if empty
    pa.field("overflow", pa.bool_(), nullable=False),
    pa.field("box_width", pa.float64(), nullable=False),  # points
    pa.field("struck_text", pa.string()),
])

FORM_CHECKBOXES = pa.schema([
    pa.field("document", pa.int64(), nullable=False),
    pa.field("entry", pa.int32(), nullable=False),  # the group's place in reading order
    pa.field("page", pa.int32()),
    pa.field("section", pa.string(), nullable=False),
    pa.field("group", pa.string(), nullable=False),
    pa.field("question", pa.string(), nullable=False),
    pa.field("kind", pa.string(), nullable=False),  # checkbox | radio
    pa.field("grid", pa.string()),  # the yes/no grid the row belongs to
    pa.field("option", pa.string(), nullable=False),
    pa.field("option_text", pa.string(), nullable=False),
    pa.field("field", pa.string(), nullable=False),
    pa.field("state", pa.string(), nullable=False),  # checked | unchecked | ambiguous
    pa.field("selected", pa.bool_(), nullable=False),
    pa.field("mark", pa.string(), nullable=False),  # tick | cross | fill | stroke | dash | none
    pa.field("outside", pa.bool_(), nullable=False),
    pa.field("handwritten", pa.bool_(), nullable=False),
])

TABLES: dict[str, pa.Schema] = {"forms": FORMS, "form_entries": FORM_ENTRIES,
                                "form_checkboxes": FORM_CHECKBOXES}
