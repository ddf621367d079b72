"""What the page-layout exports (``coco://``, ``funsd://``, ``docile://``, ``hf://``) read
of a run, found through what its pack declares (:class:`~docfleet.packs.base.GoldenTables`:
the document table, the table of each role, the split column), never by table name: so
every pack with boxes exports the same way.

A run qualifies when its pack declares ``fields`` and ``words`` tables and its documents
are PDFs; any other run (the bench and catalogue packs, an ``html`` run) is refused in one
line naming the format asked. Boxes are read from the columns named by ``box``:
``"box"`` (the default) is ``x0``/``y0``/``x1``/``y1``; ``"<name>_box"`` is the columns
``<name>_x0`` … ``<name>_y1`` beside them (the ink boxes: ``ink_box`` reads ``ink_x0`` …
``ink_y1``), or else one column ``<name>_box`` holding ``{x0, y0, x1, y1}`` or
``[x0, y0, x1, y1]``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from docfleet.export.reader import ExportError, PartInfo, RunReader

Rows = dict[str, list[dict[str, Any]]]
Box = tuple[float, float, float, float]

#: the roles a layout export reads (a role the pack does not declare reads as no rows)
LAYOUT_ROLES = ("fields", "words", "labels", "links", "cells", "lines", "pages")
#: the box column every boxed table has
DEFAULT_BOX = "box"


@dataclass(frozen=True)
class LayoutView:
    """One run as the layout exports see it: its pack, its document table and split
    column, the table holding each role, and the box column to read."""

    run_id: str
    pack: str
    document: str
    split: str | None
    roles: Mapping[str, str]
    box: str = DEFAULT_BOX
    #: the pack's own per-document tables (line items, transactions)
    records: tuple[str, ...] = ()
    #: record tables of selection marks (checkboxes, radio buttons): a row names the
    #: ``field`` whose box is the mark and its ``state`` (checked, unchecked, ambiguous)
    marks: tuple[str, ...] = ()

    def marks_of(self, rows: Rows) -> dict[str, dict[str, Any]]:
        """field name → its selection-mark row, for one document's rows."""
        return {row["field"]: row for table in self.marks for row in rows.get(table, ())}

    def box_of(self, row: Mapping[str, Any]) -> Box | None:
        """``row``'s box in PDF points (``None`` where it has none, as html fields)."""
        if self.box == DEFAULT_BOX:
            if row.get("x0") is None:
                return None
            return row["x0"], row["y0"], row["x1"], row["y1"]
        prefix = self.box.removesuffix("_box")
        if row.get(f"{prefix}_x0") is not None:
            return (row[f"{prefix}_x0"], row[f"{prefix}_y0"], row[f"{prefix}_x1"],
                    row[f"{prefix}_y1"])
        value = row.get(self.box)
        if value is None:
            return None
        if isinstance(value, Mapping):
            return value["x0"], value["y0"], value["x1"], value["y1"]
        x0, y0, x1, y1 = value
        return x0, y0, x1, y1

    def split_of(self, doc: Mapping[str, Any]) -> str:
        """The document's split (``train`` when the pack assigns none)."""
        return str(doc.get(self.split) or "train") if self.split else "train"

    def documents(self, reader: RunReader, roles: tuple[str, ...] | None = None
                  ) -> Iterator[tuple[PartInfo, dict[str, Any], Rows]]:
        """(part, document row, {role: the document's rows}) for every document, unit by
        unit (one unit's shards in memory at a time). A record table is read as its own
        name; ``roles`` defaults to every layout role and record table."""
        roles = roles or LAYOUT_ROLES + self.records
        for part in reader.parts():
            docs = reader.shard(part, self.document).to_pylist()
            by_doc: dict[int, Rows] = defaultdict(lambda: {r: [] for r in roles})
            for role in roles:
                table = self.roles.get(role, role if role in self.records else None)
                if table is None or table not in part.shards:
                    continue
                for row in reader.shard(part, table).to_pylist():
                    by_doc[row["document"]][role].append(row)
            for doc in docs:
                yield part, doc, by_doc[doc["document"]]


def layout_view(reader: RunReader, scheme: str, box: str = DEFAULT_BOX) -> LayoutView:
    """The :class:`LayoutView` of ``reader``'s run for an export to ``scheme://``; raises
    :class:`ExportError` (one line naming ``scheme``) for a run without page layout."""
    from docfleet.packs import load_pack  # lazy: the pack registry

    params = reader.parameters
    pack_name = str(params.get("pack") or "")
    options = params.get("options") or {}
    fix = "export it to parquet:// or duckdb://, which take every pack"
    if not pack_name:
        raise ExportError(f"run {reader.run_id} records no pack: {scheme}:// needs to know "
                          "its page layout", fix)
    try:
        tables = load_pack(pack_name).tables(options)
    except Exception as exc:  # a pack this installation lacks or cannot read
        raise ExportError(f"run {reader.run_id}: pack {pack_name!r} cannot be loaded "
                          f"({str(exc).splitlines()[0] if str(exc) else type(exc).__name__}): "
                          f"{scheme}:// needs its page layout",
                          "install the pack, or " + fix) from None
    present = set(reader.tables())
    roles = {role: t for role in LAYOUT_ROLES if (t := tables.table(role)) in present}
    html = str(options.get("format") or "pdf") == "html"
    if "fields" not in roles or "words" not in roles or html:
        what = "html documents" if html else "no page layout (no boxed fields and words)"
        raise ExportError(
            f"run {reader.run_id} (pack {pack_name}) has {what}: {scheme}:// needs PDF "
            "pages with boxes (a pdf run of invoice, receipt, purchase_order or "
            "bank_statement)", fix)
    names = tables[roles["words"]].names
    if box != DEFAULT_BOX and box not in names and f"{box.removesuffix('_box')}_x0" not in names:
        raise ExportError(f"run {reader.run_id} has no {box!r} box column in its "
                          f"{roles['words']} table",
                          f"use --box {DEFAULT_BOX} (the boxes every run has)")
    records = tuple(t for t in tables if tables.role(t) == "records" and t in present)
    marks = tuple(t for t in records if {"field", "state"} <= set(tables[t].names))
    return LayoutView(reader.run_id, pack_name, tables.document, tables.split, roles, box,
                      records, marks)
