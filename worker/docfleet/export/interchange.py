"""Interchange sinks for layout / key-information models: ``coco://DIR``,
``funsd://DIR`` and ``docile://DIR``.

Each PDF page is rendered with pypdfium2 at ``dpi`` into ``DIR/images/<stem>_p<N>.png``
and every box of the ``words`` and ``fields`` tables is converted from PDF points
(top-left origin, see :mod:`docfleet.packs.invoice.schema`) to pixels of that image:
``px = pt * dpi / 72``, the factor the page was rendered with (the image is the PDF page's
own size at that scale, rounded up to whole pixels).

- COCO: ``DIR/annotations.json`` with ``images``, ``annotations`` (``bbox`` =
  ``[x, y, width, height]`` in pixels) and ``categories``: ``word`` (id 1) and one
  category per field name (ids 2… in name order). Word annotations carry ``text``; field
  annotations carry ``text``, ``value``, ``line`` and ``occurrence``.
- FUNSD: ``DIR/annotations/<stem>_p<N>.json`` per page with the FUNSD ``form`` list:
  one ``question`` entity per printed label (``labels`` rows of kind ``label``), one
  ``header`` per printed heading, one ``answer`` per printed field occurrence (plus the
  non-standard keys ``field``, ``line``, ``value``; questions and headers carry ``name``),
  each holding its words, and one ``other`` entity per remaining word; ``box`` =
  ``[x0, y0, x1, y1]`` in whole pixels. ``linking`` holds ``[question id, answer id]``
  for every ``links`` row, on both entities, as FUNSD does.
- DocILE: see :mod:`docfleet.export.docile`.

Documents in the ``html`` format have no pages and are skipped (counted). Streaming: one
unit's shards and one PDF in memory at a time; the COCO lists are spooled to temporary
files. Idempotent: images and annotation files are written to temporary names and renamed.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import tempfile
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from docfleet.export.reader import ExportError, PartInfo, RunReader
from docfleet.export.tabular import ExportResult

REQUIRED = ("invoices", "fields", "words")
#: structure tables read when the run has them (older runs do not)
STRUCTURE = ("labels", "links", "cells", "lines")


@dataclass
class PageImage:
    """One rendered page and the factors that take its boxes from points to pixels."""

    document: int
    page: int
    file_name: str
    width: int
    height: int
    sx: float
    sy: float

    def box(self, x0: float, y0: float, x1: float, y1: float) -> tuple[float, ...]:
        return (round(x0 * self.sx, 2), round(y0 * self.sy, 2),
                round(x1 * self.sx, 2), round(y1 * self.sy, 2))


def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def _check(reader: RunReader) -> None:
    missing = [t for t in REQUIRED if t not in reader.tables()]
    if missing:
        raise ExportError(
            f"run {reader.run_id} has no {', '.join(missing)} table: COCO and FUNSD need "
            "a pack with page layout (the invoice pack)")


def _pages(reader: RunReader, part: PartInfo, invoice: dict[str, Any], dpi: int,
           images: Path) -> Iterator[PageImage]:
    """Render every page of one document's PDF into ``images``."""
    import io

    import pypdfium2 as pdfium

    data = reader.document(part, invoice["file"])
    pdf = pdfium.PdfDocument(data)
    stem = Path(invoice["file"]).stem
    try:
        for number in range(1, len(pdf) + 1):
            page = pdf[number - 1]
            bitmap = page.render(scale=dpi / 72)
            image = bitmap.to_pil().convert("RGB")
            name = f"{stem}_p{number}.png"
            buf = io.BytesIO()
            image.save(buf, format="PNG", compress_level=3)
            _atomic_write(images / name, buf.getvalue())
            scale = dpi / 72  # exactly the factor pdfium rendered with
            yield PageImage(invoice["document"], number, name, image.width, image.height,
                            scale, scale)
            page.close()
    finally:
        pdf.close()


Rows = dict[str, list[dict[str, Any]]]


def units(reader: RunReader, tables: tuple[str, ...] = ("fields", "words")
          ) -> Iterator[tuple[PartInfo, list[dict], dict[int, Rows]]]:
    """(part, invoices, {document: {table: rows}}) per unit, for ``tables`` (a table the
    run lacks reads as no rows)."""
    present = set(reader.tables())
    for part in reader.parts():
        invoices = reader.shard(part, "invoices").to_pylist()
        docs: dict[int, Rows] = defaultdict(lambda: {t: [] for t in tables})
        for table in tables:
            if table not in present:
                continue
            for row in reader.shard(part, table).to_pylist():
                docs[row["document"]][table].append(row)
        yield part, invoices, docs


def pdf_pages(
    reader: RunReader, dpi: int, images_dir: Path, counts: dict[str, int],
    tables: tuple[str, ...] = ("fields", "words"),
) -> Iterator[tuple[dict[str, Any], PageImage, Rows]]:
    """Every rendered page of every PDF invoice, unit by unit: (invoice, page image, its
    document's rows of ``tables``). HTML documents have no pages; they are counted in
    ``counts["skipped_html"]``."""
    for part, invoices, docs in units(reader, tables):
        for invoice in invoices:
            if invoice["format"] != "pdf":
                counts["skipped_html"] += 1
                continue
            rows = docs[invoice["document"]]
            for img in _pages(reader, part, invoice, dpi, images_dir):
                yield invoice, img, rows


def _field_names(reader: RunReader) -> list[str]:
    names: set[str] = set()
    for _part, shard in reader.iter_table("fields"):
        names.update(shard.column("field").to_pylist())
    return sorted(names)


def export_coco(reader: RunReader, directory: Path, dpi: int) -> ExportResult:
    """Write ``DIR/images/*.png`` and ``DIR/annotations.json`` (COCO detection layout)."""
    _check(reader)
    images_dir = directory / "images"
    categories = [{"id": 1, "name": "word", "supercategory": "text"}]
    for i, name in enumerate(_field_names(reader), start=2):
        categories.append({"id": i, "name": name, "supercategory": "field"})
    category = {c["name"]: c["id"] for c in categories}
    result = ExportResult(target=f"coco://{directory}", partial=reader.partial,
                          units=len(reader.units))
    counts = {"images": 0, "annotations": 0, "skipped_html": 0}
    directory.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryFile(dir=directory) as img_spool, \
            tempfile.TemporaryFile(dir=directory) as ann_spool:

        def spool(fh: BinaryIO, obj: dict[str, Any], first: bool) -> None:
            fh.write((b"" if first else b",\n") + json.dumps(obj, ensure_ascii=False).encode())

        for invoice, img, rows in pdf_pages(reader, dpi, images_dir, counts):
            doc_fields, doc_words = rows["fields"], rows["words"]
            counts["images"] += 1
            image_id = counts["images"]
            spool(img_spool, {
                "id": image_id, "file_name": img.file_name, "width": img.width,
                "height": img.height, "document": invoice["document"],
                "page": img.page,
                "source": invoice["file"],
            }, image_id == 1)

            def add(cat: str, box: tuple[float, ...], extra: dict[str, Any],
                    image_id: int = image_id) -> None:
                x0, y0, x1, y1 = box
                w, h = round(x1 - x0, 2), round(y1 - y0, 2)
                counts["annotations"] += 1
                spool(ann_spool, {
                    "id": counts["annotations"], "image_id": image_id,
                    "category_id": category[cat], "bbox": [x0, y0, w, h],
                    "area": round(w * h, 2), "iscrowd": 0,
                    "segmentation": [[x0, y0, x1, y0, x1, y1, x0, y1]], **extra,
                }, counts["annotations"] == 1)

            for w in doc_words:
                if w["page"] == img.page:
                    add("word", img.box(w["x0"], w["y0"], w["x1"], w["y1"]),
                        {"text": w["text"], "word": w["word"]})
            for f in doc_fields:
                if f["page"] == img.page and f["x0"] is not None:
                    add(f["field"], img.box(f["x0"], f["y0"], f["x1"], f["y1"]),
                        {"text": f["text"], "value": f["value"], "line": f["line"],
                         "occurrence": f["occurrence"]})
        info = {"description": f"docfleet run {reader.run_id}", "version": "1.0",
                "dpi": dpi, "partial": reader.partial}
        tmp = directory / f".annotations.json.{os.getpid()}.tmp"
        with tmp.open("wb") as out:
            out.write(json.dumps({"info": info, "licenses": [],
                                  "categories": categories}, ensure_ascii=False)[:-1].encode())
            for key, fh in (("images", img_spool), ("annotations", ann_spool)):
                out.write(f', "{key}": ['.encode())
                fh.seek(0)
                shutil.copyfileobj(fh, out)
                out.write(b"]")
            out.write(b"}\n")
        os.replace(tmp, directory / "annotations.json")
    result.extra.update(counts, dpi=dpi)
    return result


def funsd_form(img: PageImage, rows: Rows, owner: dict[int, int] | None = None
               ) -> list[dict[str, Any]]:
    """The FUNSD ``form`` list of one page: label (``question``) and heading (``header``)
    entities, field (``answer``) entities, then one ``other`` entity per remaining word;
    ``linking`` from the run's ``links``. ``owner``, if given, receives word number →
    entity id for every word of the page."""
    owner = {} if owner is None else owner

    def ibox(x0: float, y0: float, x1: float, y1: float) -> list[int]:
        b = img.box(x0, y0, x1, y1)
        return [int(b[0]), int(b[1]), math.ceil(b[2]), math.ceil(b[3])]

    def word(w: dict[str, Any]) -> dict[str, Any]:
        return {"text": w["text"], "box": ibox(w["x0"], w["y0"], w["x1"], w["y1"])}

    page_words = [w for w in rows["words"] if w["page"] == img.page]
    by_key: dict[tuple, list[dict]] = defaultdict(list)
    by_label: dict[int, list[dict]] = defaultdict(list)
    for w in page_words:
        if w["field"] is not None:
            by_key[(w["field"], w["line"], w["occurrence"])].append(w)
        elif w.get("label_id") is not None:
            by_label[w["label_id"]].append(w)
    form: list[dict[str, Any]] = []
    used: set[int] = set()
    label_entity: dict[int, dict[str, Any]] = {}
    for lab in rows.get("labels", ()):
        if lab["page"] != img.page:
            continue
        members = by_label.get(lab["label_id"], [])
        used.update(w["word"] for w in members)
        owner.update((w["word"], len(form)) for w in members)
        entity = {
            "id": len(form), "text": lab["text"],
            "box": ibox(lab["x0"], lab["y0"], lab["x1"], lab["y1"]),
            "label": "header" if lab["kind"] == "header" else "question", "name": lab["name"],
            "words": [word(w) for w in members], "linking": [],
        }
        label_entity[lab["label_id"]] = entity
        form.append(entity)
    field_entity: dict[tuple, dict[str, Any]] = {}
    for f in rows["fields"]:
        if f["page"] != img.page or f["x0"] is None:
            continue
        key = (f["field"], f["line"], f["occurrence"])
        members = by_key.get(key, [])
        used.update(w["word"] for w in members)
        owner.update((w["word"], len(form)) for w in members)
        entity = {
            "id": len(form), "text": f["text"], "box": ibox(f["x0"], f["y0"], f["x1"], f["y1"]),
            "label": "answer", "field": f["field"], "line": f["line"], "value": f["value"],
            "words": [word(w) for w in members], "linking": [],
        }
        field_entity[key] = entity
        form.append(entity)
    for link in rows.get("links", ()):
        question = label_entity.get(link["label_id"])
        answer = field_entity.get((link["field"], link["line"], link["occurrence"]))
        if question is None or answer is None:
            continue
        pair = [question["id"], answer["id"]]
        question["linking"].append(pair)
        answer["linking"].append(pair)
    for w in page_words:
        if w["word"] in used:
            continue
        box = ibox(w["x0"], w["y0"], w["x1"], w["y1"])
        owner[w["word"]] = len(form)
        form.append({"id": len(form), "text": w["text"], "box": box, "label": "other",
                     "words": [{"text": w["text"], "box": box}], "linking": []})
    return form


def export_funsd(reader: RunReader, directory: Path, dpi: int) -> ExportResult:
    """Write ``DIR/images/<page>.png`` and ``DIR/annotations/<page>.json`` (FUNSD)."""
    _check(reader)
    result = ExportResult(target=f"funsd://{directory}", partial=reader.partial,
                          units=len(reader.units))
    counts = {"images": 0, "entities": 0, "links": 0, "skipped_html": 0}
    for invoice, img, rows in pdf_pages(reader, dpi, directory / "images", counts,
                                        ("fields", "words", "labels", "links")):
        form = funsd_form(img, rows)
        counts["images"] += 1
        counts["entities"] += len(form)
        counts["links"] += sum(len(e["linking"]) for e in form if e["label"] == "question")
        body = {"form": form, "image": img.file_name, "width": img.width,
                "height": img.height, "document": invoice["document"], "page": img.page}
        _atomic_write(directory / "annotations" / f"{Path(img.file_name).stem}.json",
                      json.dumps(body, ensure_ascii=False, indent=1).encode())
    result.extra.update(counts, dpi=dpi)
    return result
