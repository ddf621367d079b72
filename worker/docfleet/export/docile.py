"""``docile://DIR``: a DocILE-style dataset (Šimsa et al., ICDAR 2023) of a run of any
pack with boxes.

Layout, as the DocILE tools read it::

    DIR/train.json, val.json, test.json    document ids of each split (the run's splits;
                                           ``validation`` is DocILE's ``val``)
    DIR/pdfs/<docid>.pdf                   the verified PDF
    DIR/annotations/<docid>.json           {field_extractions, line_item_extractions,
                                            line_item_headers, metadata,
                                            docfleet_extractions}

Every extraction is ``{"bbox": [left, top, right, bottom], "page", "fieldtype", "text"}``
with the box **normalised** to the page (0…1, by the document's ``page_width`` /
``page_height``, which equal the PDF MediaBox) and ``page`` 0-based; line-item
extractions add ``line_item_id`` (the printed row number). ``fieldtype`` is DocILE's
class (:mod:`docfleet.export.docile_classes`): KILE fields in ``field_extractions``, LIR
fields in ``line_item_extractions``. A printed field without a DocILE class is kept in
``docfleet_extractions`` under its docfleet name (``docs/schema.md``), with its ``line``
as ``line_item_id`` when it has one, so DocILE's evaluator sees only its taxonomy.
Headers are the column-header labels. ``metadata`` has ``page_count``,
``document_type``, ``currency``, ``language``, ``cluster_id`` (a number derived from the
archetype: one layout, one cluster) and ``archetype``, ``split``, ``source``,
``original_filename``, ``page_sizes_at_200dpi`` and ``page_to_table_grid`` (table, row
and column boxes from the ``cells`` of the page's first table; column types are DocILE
classes).

HTML documents are skipped (counted). Idempotent: files are written to temporary names
and renamed; the split lists are written last.
"""

from __future__ import annotations

import json
import math
import zlib
from pathlib import Path
from typing import Any

from docfleet.export.docile_classes import docile_class, document_type, is_line_item
from docfleet.export.interchange import atomic_write
from docfleet.export.layout import Box, LayoutView, Rows
from docfleet.export.raster import PageImage
from docfleet.export.reader import RunReader
from docfleet.export.tabular import ExportResult

DOCILE_SPLITS = {"train": "train", "validation": "val", "test": "test"}


def _norm(box: Box, width: float, height: float) -> list[float]:
    return [round(box[0] / width, 6), round(box[1] / height, 6),
            round(box[2] / width, 6), round(box[3] / height, 6)]


def _table_grid(cells: list[dict[str, Any]], pack: str, doc: dict[str, Any],
                width: float, height: float) -> dict[str, Any]:
    x0 = min(c["x0"] for c in cells) / width
    y0 = min(c["y0"] for c in cells) / height
    x1 = max(c["x1"] for c in cells) / width
    y1 = max(c["y1"] for c in cells) / height
    rows: dict[int, dict[str, Any]] = {}
    for c in cells:
        r = rows.setdefault(c["row"], {"top": c["y0"], "bottom": c["y1"], "header": c["header"]})
        r["top"], r["bottom"] = min(r["top"], c["y0"]), max(r["bottom"], c["y1"])
    columns: dict[int, dict[str, Any]] = {}
    for c in cells:
        if c["column_span"] != 1:
            continue
        col = columns.setdefault(c["column"], {"left": c["x0"], "right": c["x1"], "type": ""})
        cls = docile_class(pack, c["field"], doc) if c["field"] else None
        if not c["header"] and cls and is_line_item(cls) and not col["type"]:
            col["type"] = cls
    return {
        "bbox": [round(x0, 6), round(y0, 6), round(x1, 6), round(y1, 6)],
        "rows": [{"top": round(r["top"] / height, 6), "bottom": round(r["bottom"] / height, 6),
                  "row_type": "header" if r["header"] else "data"}
                 for _, r in sorted(rows.items())],
        "columns": [{"left": round(c["left"] / width, 6), "right": round(c["right"] / width, 6),
                     "column_type": c["type"]} for _, c in sorted(columns.items())],
        "missing_columns": False, "missing_second_table_on_page": False,
        "table_border_type": "unknown", "table_structure": "normal",
    }


def docile_annotation(view: LayoutView, doc: dict[str, Any], rows: Rows) -> dict[str, Any]:
    """The DocILE annotation of one document (see the module docstring)."""
    width, height = doc["page_width"], doc["page_height"]
    kile, lir, extra = [], [], []
    for f in rows["fields"]:
        box = view.box_of(f)
        if box is None:
            continue
        cls = docile_class(view.pack, f["field"], doc)
        entry = {"bbox": _norm(box, width, height), "page": f["page"] - 1,
                 "fieldtype": cls or f["field"], "text": f["text"]}
        if cls is None:
            extra.append({**entry, "line_item_id": f["line"]} if f["line"] is not None
                         else entry)
        elif is_line_item(cls):
            lir.append({**entry, "line_item_id": f["line"]})
        else:
            kile.append(entry)
    headers = []
    for lab in rows["labels"]:
        box = view.box_of(lab)
        if lab["scope"] != "column" or box is None:
            continue
        name = lab["name"].split()[0]
        headers.append({"bbox": _norm(box, width, height), "page": lab["page"] - 1,
                        "fieldtype": docile_class(view.pack, name, doc) or name,
                        "text": lab["text"]})
    grids: dict[str, Any] = {}
    by_page: dict[int, list[dict[str, Any]]] = {}
    for c in rows["cells"]:
        if c["table_index"] == 0:
            by_page.setdefault(c["page"], []).append(c)
    for page, cells in sorted(by_page.items()):
        grids[str(page - 1)] = _table_grid(cells, view.pack, doc, width, height)
    size = (math.ceil(width * 200 / 72), math.ceil(height * 200 / 72))
    return {
        "field_extractions": kile,
        "line_item_extractions": lir,
        "line_item_headers": headers,
        "docfleet_extractions": extra,
        "metadata": {
            "page_count": doc["page_count"],
            "document_type": document_type(view.pack, doc),
            "currency": str(doc.get("currency") or "").lower(),
            "language": doc["locale"].split("-")[0],
            "cluster_id": zlib.crc32(f"{view.pack}/{doc['archetype']}".encode())
            & 0x7FFFFFFF,
            "archetype": doc["archetype"],
            "source": "docfleet",
            "original_filename": doc["file"],
            "page_sizes_at_200dpi": [list(size)] * doc["page_count"],
            "page_to_table_grid": grids,
            "split": view.split_of(doc),
        },
    }


class DocileSink:
    """``docile://DIR`` (see the module docstring); takes no page images."""

    images = False

    def __init__(self, reader: RunReader, view: LayoutView, directory: Path) -> None:
        self.view, self.directory = view, directory
        self.result = ExportResult(target=f"docile://{directory}", partial=reader.partial,
                                   units=len(reader.units))
        self.counts = {"documents": 0, "kile_fields": 0, "lir_fields": 0,
                       "extra_fields": 0}
        self.splits: dict[str, list[str]] = {name: [] for name in DOCILE_SPLITS.values()}

    def document(self, doc: dict[str, Any], rows: Rows, pdf: bytes) -> None:
        docid = Path(doc["file"]).stem
        annotation = docile_annotation(self.view, doc, rows)
        atomic_write(self.directory / "pdfs" / f"{docid}.pdf", pdf)
        atomic_write(self.directory / "annotations" / f"{docid}.json",
                     json.dumps(annotation, ensure_ascii=False, indent=1).encode())
        self.splits[DOCILE_SPLITS[self.view.split_of(doc)]].append(docid)
        self.counts["documents"] += 1
        self.counts["kile_fields"] += len(annotation["field_extractions"])
        self.counts["lir_fields"] += len(annotation["line_item_extractions"])
        self.counts["extra_fields"] += len(annotation["docfleet_extractions"])

    def page(self, doc: dict[str, Any], rows: Rows, img: PageImage) -> None:
        pass

    def finish(self) -> ExportResult:
        for name, ids in self.splits.items():
            atomic_write(self.directory / f"{name}.json", json.dumps(ids).encode())
        self.result.extra.update(self.counts,
                                 splits={k: len(v) for k, v in self.splits.items()})
        return self.result

    def abort(self) -> None:
        pass
