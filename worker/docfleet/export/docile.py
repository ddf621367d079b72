"""``docile://DIR``: a DocILE-style dataset (Šimsa et al., ICDAR 2023) of a run.

Layout, as the DocILE tools read it::

    DIR/train.json, val.json, test.json    document ids of each split (the run's splits;
                                           ``validation`` is DocILE's ``val``)
    DIR/pdfs/<docid>.pdf                   the verified PDF
    DIR/annotations/<docid>.json           {field_extractions, line_item_extractions,
                                            line_item_headers, metadata}

Every extraction is ``{"bbox": [left, top, right, bottom], "page", "fieldtype", "text"}``
with the box **normalised** to the page (0…1, by ``invoices.page_width/page_height``,
which equal the PDF MediaBox) and ``page`` 0-based; line-item extractions add
``line_item_id`` (the printed row number). KILE fields are the document-level printed
fields (tax rows included, one per printed row), LIR fields the per-line ones; field
types are docfleet's field names (``docs/schema.md``), not DocILE's taxonomy. Headers are
the column-header labels. ``metadata`` has ``page_count``, ``document_type``,
``currency``, ``language``, ``cluster_id`` (a number derived from the archetype: one
layout, one cluster) and ``archetype``, ``split``, ``source``,
``original_filename``, ``page_sizes_at_200dpi`` and ``page_to_table_grid`` (table, row
and column boxes from the ``cells`` table).

HTML documents are skipped (counted). Idempotent: files are written to temporary names
and renamed; the split lists are written last.
"""

from __future__ import annotations

import json
import math
import zlib
from pathlib import Path
from typing import Any

from docfleet.export.interchange import _atomic_write, _check, units
from docfleet.export.reader import RunReader
from docfleet.export.tabular import ExportResult

#: fields printed once per line item (LIR); every other field is document-level (KILE)
LINE_FIELDS = frozenset({"line_number", "sku", "description", "quantity", "unit",
                         "unit_price", "discount_percent", "line_tax_rate", "net_amount"})
DOCILE_SPLITS = {"train": "train", "validation": "val", "test": "test"}


def _norm(row: dict[str, Any], width: float, height: float) -> list[float]:
    return [round(row["x0"] / width, 6), round(row["y0"] / height, 6),
            round(row["x1"] / width, 6), round(row["y1"] / height, 6)]


def _table_grid(cells: list[dict[str, Any]], width: float, height: float
                ) -> dict[str, Any]:
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
        if not c["header"] and c["field"] in LINE_FIELDS and not col["type"]:
            col["type"] = c["field"]
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


def docile_annotation(invoice: dict[str, Any], rows: dict[str, list[dict[str, Any]]]
                      ) -> dict[str, Any]:
    """The DocILE annotation of one document (see the module docstring)."""
    width, height = invoice["page_width"], invoice["page_height"]
    kile, lir = [], []
    for f in rows["fields"]:
        if f["x0"] is None:
            continue
        entry = {"bbox": _norm(f, width, height), "page": f["page"] - 1,
                 "fieldtype": f["field"], "text": f["text"]}
        if f["field"] in LINE_FIELDS:
            lir.append({**entry, "line_item_id": f["line"]})
        else:
            kile.append(entry)
    headers = [{"bbox": _norm(lab, width, height), "page": lab["page"] - 1,
                "fieldtype": lab["name"].split()[0], "text": lab["text"]}
               for lab in rows["labels"] if lab["scope"] == "column"]
    grids: dict[str, Any] = {}
    by_page: dict[int, list[dict[str, Any]]] = {}
    for c in rows["cells"]:
        if c["table"] == "line_items" and c["table_index"] == 0:
            by_page.setdefault(c["page"], []).append(c)
    for page, cells in sorted(by_page.items()):
        grids[str(page - 1)] = _table_grid(cells, width, height)
    size = (math.ceil(width * 200 / 72), math.ceil(height * 200 / 72))
    return {
        "field_extractions": kile,
        "line_item_extractions": lir,
        "line_item_headers": headers,
        "metadata": {
            "page_count": invoice["page_count"],
            "document_type": "tax_invoice",
            "currency": invoice["currency"].lower(),
            "language": invoice["locale"].split("-")[0],
            "cluster_id": zlib.crc32(invoice["archetype"].encode()) & 0x7FFFFFFF,
            "archetype": invoice["archetype"],
            "source": "docfleet",
            "original_filename": invoice["file"],
            "page_sizes_at_200dpi": [list(size)] * invoice["page_count"],
            "page_to_table_grid": grids,
            "split": invoice["split"],
        },
    }


def export_docile(reader: RunReader, directory: Path) -> ExportResult:
    """Write ``DIR/{pdfs,annotations}/<docid>.*`` and ``DIR/{train,val,test}.json``.
    Idempotent; a tampered document or shard raises before the split lists change."""
    _check(reader)
    result = ExportResult(target=f"docile://{directory}", partial=reader.partial,
                          units=len(reader.units))
    counts = {"documents": 0, "kile_fields": 0, "lir_fields": 0, "skipped_html": 0}
    splits: dict[str, list[str]] = {name: [] for name in DOCILE_SPLITS.values()}
    for part, invoices, docs in units(reader, ("fields", "labels", "cells")):
        for invoice in invoices:
            if invoice["format"] != "pdf":
                counts["skipped_html"] += 1
                continue
            docid = Path(invoice["file"]).stem
            annotation = docile_annotation(invoice, docs[invoice["document"]])
            _atomic_write(directory / "pdfs" / f"{docid}.pdf",
                          reader.document(part, invoice["file"]))
            _atomic_write(directory / "annotations" / f"{docid}.json",
                          json.dumps(annotation, ensure_ascii=False, indent=1).encode())
            splits[DOCILE_SPLITS[invoice.get("split") or "train"]].append(docid)
            counts["documents"] += 1
            counts["kile_fields"] += len(annotation["field_extractions"])
            counts["lir_fields"] += len(annotation["line_item_extractions"])
    for name, ids in splits.items():
        _atomic_write(directory / f"{name}.json", json.dumps(ids).encode())
    result.extra.update(counts, splits={k: len(v) for k, v in splits.items()})
    return result
