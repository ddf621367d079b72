"""Interchange sinks for layout / key-information models: ``coco://DIR`` and
``funsd://DIR`` (``docile://DIR``: :mod:`docfleet.export.docile`), for every pack whose
documents carry boxes (:mod:`docfleet.export.layout` finds its tables).

Each PDF page is rendered once (:mod:`docfleet.export.raster`) at ``dpi`` into
``DIR/images/<stem>_p<N>.png`` and every box of the ``words`` and ``fields`` tables is
converted from PDF points (top-left origin) to pixels of that image:
``px = pt * dpi / 72``, the factor the page was rendered with (the image is the PDF page's
own size at that scale, rounded up to whole pixels).

- COCO: ``DIR/annotations.json`` with ``images``, ``annotations`` (``bbox`` =
  ``[x, y, width, height]`` in pixels) and ``categories``: ``word`` (id 1) and one
  category per field name (ids 2… in name order). Word annotations carry ``text``; field
  annotations carry ``text``, ``value``, ``line`` and ``occurrence``. A pack with selection
  marks (the form pack's checkboxes and radio buttons, :attr:`LayoutView.marks`) adds the
  categories ``checkbox.checked``, ``checkbox.unchecked`` and ``checkbox.ambiguous``
  (supercategory ``checkbox``, after the fields): one more annotation per mark, on its
  field's box, with ``kind`` (checkbox or radio), ``group``, ``option`` and ``selected``.
- FUNSD: ``DIR/annotations/<stem>_p<N>.json`` per page with the FUNSD ``form`` list:
  one ``question`` entity per printed label (``labels`` rows of kind ``label``), one
  ``header`` per printed heading, one ``answer`` per printed field occurrence (plus the
  non-standard keys ``field``, ``line``, ``value``; questions and headers carry ``name``),
  each holding its words, and one ``other`` entity per remaining word; ``box`` =
  ``[x0, y0, x1, y1]`` in whole pixels. ``linking`` holds ``[question id, answer id]``
  for every ``links`` row, on both entities, as FUNSD does.

Documents in the ``html`` format have no pages and are skipped (counted). Streaming: one
unit's shards and a few PDFs in memory at a time; the COCO lists are spooled to temporary
files. Idempotent: images and annotation files are written to temporary names and renamed.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import IO, Any

from docfleet.export.layout import LayoutView, Rows
from docfleet.export.pipeline import page_stem
from docfleet.export.raster import PageImage
from docfleet.export.reader import RunReader
from docfleet.export.tabular import ExportResult

#: the states of a selection mark, each a COCO category of its own
MARK_STATES = ("checked", "unchecked", "ambiguous")


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``path`` through a temporary name in its folder, then rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def page_name(doc: dict[str, Any], img: PageImage) -> str:
    """The image file name of one page: ``<stem>_p<N>.png``."""
    return f"{page_stem(doc)}_p{img.number}.png"


class CocoSink:
    """``coco://DIR``: page images and one ``annotations.json`` (see the module
    docstring); ``fields``: every field name of the run (the categories)."""

    images = True

    def __init__(self, reader: RunReader, view: LayoutView, directory: Path, dpi: int,
                 fields: list[str]) -> None:
        self.view, self.directory, self.dpi = view, directory, dpi
        self.result = ExportResult(target=f"coco://{directory}", partial=reader.partial,
                                   units=len(reader.units))
        self.categories = [{"id": 1, "name": "word", "supercategory": "text"}]
        self.categories += [{"id": i, "name": name, "supercategory": "field"}
                            for i, name in enumerate(fields, start=2)]
        if view.marks:
            self.categories += [{"id": len(self.categories) + 1 + i, "name": f"checkbox.{s}",
                                 "supercategory": "checkbox"}
                                for i, s in enumerate(MARK_STATES)]
        self.category = {c["name"]: c["id"] for c in self.categories}
        self.counts = {"images": 0, "annotations": 0}
        self.info = {"description": f"docfleet run {reader.run_id}", "version": "1.0",
                     "dpi": dpi, "partial": reader.partial, "pack": view.pack}
        directory.mkdir(parents=True, exist_ok=True)
        # spools closed by finish() / abort()
        self._images: IO[bytes] = tempfile.TemporaryFile(dir=directory)  # noqa: SIM115
        self._annotations: IO[bytes] = tempfile.TemporaryFile(dir=directory)  # noqa: SIM115

    @staticmethod
    def _spool(fh: IO[bytes], obj: dict[str, Any], first: bool) -> None:
        fh.write((b"" if first else b",\n") + json.dumps(obj, ensure_ascii=False).encode())

    def document(self, doc: dict[str, Any], rows: Rows, pdf: bytes) -> None:
        pass

    def page(self, doc: dict[str, Any], rows: Rows, img: PageImage) -> None:
        name = page_name(doc, img)
        atomic_write(self.directory / "images" / name, img.png)
        self.counts["images"] += 1
        image_id = self.counts["images"]
        self._spool(self._images, {
            "id": image_id, "file_name": name, "width": img.width, "height": img.height,
            "document": doc["document"], "page": img.number, "source": doc["file"],
        }, image_id == 1)

        def add(cat: str, box: tuple[float, ...], extra: dict[str, Any]) -> None:
            x0, y0, x1, y1 = box
            w, h = round(x1 - x0, 2), round(y1 - y0, 2)
            self.counts["annotations"] += 1
            self._spool(self._annotations, {
                "id": self.counts["annotations"], "image_id": image_id,
                "category_id": self.category[cat], "bbox": [x0, y0, w, h],
                "area": round(w * h, 2), "iscrowd": 0,
                "segmentation": [[x0, y0, x1, y0, x1, y1, x0, y1]], **extra,
            }, self.counts["annotations"] == 1)

        box_of = self.view.box_of
        for w in rows["words"]:
            box = box_of(w)
            if w["page"] == img.number and box is not None:
                add("word", img.box(box), {"text": w["text"], "word": w["word"]})
        marks = self.view.marks_of(rows)
        for f in rows["fields"]:
            box = box_of(f)
            if f["page"] == img.number and box is not None:
                add(f["field"], img.box(box), {"text": f["text"], "value": f["value"],
                                               "line": f["line"],
                                               "occurrence": f["occurrence"]})
                mark = marks.get(f["field"])
                if mark is not None and mark["state"] in MARK_STATES:
                    add(f"checkbox.{mark['state']}", img.box(box),
                        {"kind": mark.get("kind"), "group": mark.get("group"),
                         "option": mark.get("option"), "selected": mark.get("selected")})

    def finish(self) -> ExportResult:
        tmp = self.directory / f".annotations.json.{os.getpid()}.tmp"
        with tmp.open("wb") as out:
            out.write(json.dumps({"info": self.info, "licenses": [],
                                  "categories": self.categories},
                                 ensure_ascii=False)[:-1].encode())
            for key, fh in (("images", self._images), ("annotations", self._annotations)):
                out.write(f', "{key}": ['.encode())
                fh.seek(0)
                while chunk := fh.read(1 << 20):
                    out.write(chunk)
                out.write(b"]")
            out.write(b"}\n")
        os.replace(tmp, self.directory / "annotations.json")
        self.abort()
        self.result.extra.update(self.counts, dpi=self.dpi)
        return self.result

    def abort(self) -> None:
        self._images.close()
        self._annotations.close()


def funsd_form(img: PageImage, rows: Rows, view: LayoutView,
               owner: dict[int, int] | None = None) -> list[dict[str, Any]]:
    """The FUNSD ``form`` list of one page: label (``question``) and heading (``header``)
    entities, field (``answer``) entities, then one ``other`` entity per remaining word;
    ``linking`` from the run's ``links``. ``owner``, if given, receives word number →
    entity id for every word of the page."""
    owner = {} if owner is None else owner

    def ibox(row: dict[str, Any]) -> list[int]:
        b = img.box(view.box_of(row) or (0.0, 0.0, 0.0, 0.0))
        return [int(b[0]), int(b[1]), math.ceil(b[2]), math.ceil(b[3])]

    def word(w: dict[str, Any]) -> dict[str, Any]:
        return {"text": w["text"], "box": ibox(w)}

    page_words = [w for w in rows["words"] if w["page"] == img.number]
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
        if lab["page"] != img.number:
            continue
        members = by_label.get(lab["label_id"], [])
        used.update(w["word"] for w in members)
        owner.update((w["word"], len(form)) for w in members)
        entity = {
            "id": len(form), "text": lab["text"], "box": ibox(lab),
            "label": "header" if lab["kind"] == "header" else "question", "name": lab["name"],
            "words": [word(w) for w in members], "linking": [],
        }
        label_entity[lab["label_id"]] = entity
        form.append(entity)
    field_entity: dict[tuple, dict[str, Any]] = {}
    for f in rows["fields"]:
        if f["page"] != img.number or view.box_of(f) is None:
            continue
        key = (f["field"], f["line"], f["occurrence"])
        members = by_key.get(key, [])
        used.update(w["word"] for w in members)
        owner.update((w["word"], len(form)) for w in members)
        entity = {
            "id": len(form), "text": f["text"], "box": ibox(f),
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
        box = ibox(w)
        owner[w["word"]] = len(form)
        form.append({"id": len(form), "text": w["text"], "box": box, "label": "other",
                     "words": [{"text": w["text"], "box": box}], "linking": []})
    return form


class FunsdSink:
    """``funsd://DIR``: ``DIR/images/<page>.png`` and ``DIR/annotations/<page>.json``."""

    images = True

    def __init__(self, reader: RunReader, view: LayoutView, directory: Path, dpi: int
                 ) -> None:
        self.view, self.directory, self.dpi = view, directory, dpi
        self.result = ExportResult(target=f"funsd://{directory}", partial=reader.partial,
                                   units=len(reader.units))
        self.counts = {"images": 0, "entities": 0, "links": 0}

    def document(self, doc: dict[str, Any], rows: Rows, pdf: bytes) -> None:
        pass

    def page(self, doc: dict[str, Any], rows: Rows, img: PageImage) -> None:
        name = page_name(doc, img)
        atomic_write(self.directory / "images" / name, img.png)
        form = funsd_form(img, rows, self.view)
        self.counts["images"] += 1
        self.counts["entities"] += len(form)
        self.counts["links"] += sum(len(e["linking"]) for e in form
                                    if e["label"] == "question")
        body = {"form": form, "image": name, "width": img.width, "height": img.height,
                "document": doc["document"], "page": img.number}
        atomic_write(self.directory / "annotations" / f"{Path(name).stem}.json",
                     json.dumps(body, ensure_ascii=False, indent=1).encode())

    def finish(self) -> ExportResult:
        self.result.extra.update(self.counts, dpi=self.dpi)
        return self.result

    def abort(self) -> None:
        pass
