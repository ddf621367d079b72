"""``hf://DIR``: a Hugging Face ``datasets.DatasetDict`` saved to disk
(``datasets.load_from_disk(DIR)``), splits ``train`` / ``validation`` / ``test`` from the
run's split parameters, **one row per page**:

==================  ============================================================
column              meaning
==================  ============================================================
id                  ``<run_id>/<stem>/p<N>``
document, page      document index, 1-based page number
file                the PDF's name under ``documents/``
archetype, locale,  as in ``invoices``
condition
image               the page rendered from the PDF at ``dpi`` (PNG)
width, height       image size in pixels
words               the page's words in reading order (the ``words`` table)
bboxes              word boxes ``[x0, y0, x1, y1]`` in image pixels
bboxes_1000         the same, normalised to 0…1000 of the page (LayoutLM)
word_entities       per word, the index of its entity in ``entities``
entities            FUNSD-style: ``{id, label (question|answer|header|other), name,
                    text, box}`` (``name`` = the field or header name, "" for other)
links               ``[question entity, answer entity]`` pairs (from ``links``)
fields              the page's printed fields ``{field, line, occurrence, text, value,
                    box}`` (box in image pixels)
golden              JSON of the document's ``invoices`` row and its ``line_items``
                    (money as decimal strings: exact)
==================  ============================================================

``datasets`` is the optional extra ``hf``. One pass over the run, one unit's shards and
one page image in memory at a time: rows stream into one Arrow file per split
(``datasets``' own writer), which ``save_to_disk`` then shards. Idempotent: built in a
temporary directory beside DIR and swapped in whole; a failed export leaves DIR as it
was. To publish it, ``datasets.load_from_disk(DIR).push_to_hub("org/name")``.
"""

from __future__ import annotations

import datetime as dt
import decimal
import io
import json
import math
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from docfleet.errors import ConfigError
from docfleet.export.interchange import _check, funsd_form, units
from docfleet.export.reader import RunReader
from docfleet.export.tabular import ExportResult

SPLITS = ("train", "validation", "test")
TABLES = ("fields", "words", "labels", "links", "line_items")


def _datasets() -> Any:
    try:
        import datasets
    except ImportError:
        raise ConfigError("hf:// export needs the optional extra 'hf' (the datasets library)",
                          "pip install 'docfleet[hf]'") from None
    return datasets


def features() -> Any:
    """The ``datasets.Features`` of one page row (see the module docstring)."""
    d = _datasets()
    box = d.Sequence(d.Value("float32"), length=4)
    return d.Features({
        "id": d.Value("string"),
        "document": d.Value("int64"),
        "page": d.Value("int32"),
        "file": d.Value("string"),
        "archetype": d.Value("string"),
        "locale": d.Value("string"),
        "condition": d.Value("string"),
        "image": d.Image(),
        "width": d.Value("int32"),
        "height": d.Value("int32"),
        "words": d.Sequence(d.Value("string")),
        "bboxes": d.Sequence(box),
        "bboxes_1000": d.Sequence(d.Sequence(d.Value("int32"), length=4)),
        "word_entities": d.Sequence(d.Value("int32")),
        # a list of structs ([{…}]; d.Sequence({…}) would mean a struct of lists)
        "entities": [{
            "id": d.Value("int32"), "label": d.Value("string"), "name": d.Value("string"),
            "text": d.Value("string"), "box": box,
        }],
        "links": d.Sequence(d.Sequence(d.Value("int32"), length=2)),
        "fields": [{
            "field": d.Value("string"), "line": d.Value("int32"),
            "occurrence": d.Value("int32"), "text": d.Value("string"),
            "value": d.Value("string"), "box": box,
        }],
        "golden": d.Value("string"),
    })


def _json_default(value: Any) -> Any:
    if isinstance(value, decimal.Decimal):
        return format(value, "f")
    if isinstance(value, dt.date):
        return value.isoformat()
    raise TypeError(f"cannot serialise {type(value).__name__}")


def _page_images(data: bytes, dpi: int) -> Any:
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(data)
    try:
        for number in range(1, len(pdf) + 1):
            page = pdf[number - 1]
            image = page.render(scale=dpi / 72).to_pil().convert("RGB")
            page.close()
            buf = io.BytesIO()
            image.save(buf, format="PNG", compress_level=1)
            yield number, image.width, image.height, buf.getvalue()
    finally:
        pdf.close()


def page_rows(reader: RunReader, dpi: int, counts: dict[str, int]) -> Any:
    """(split, row) for every page of every PDF document of the run, unit by unit."""
    from docfleet.export.interchange import PageImage

    scale = dpi / 72
    for part, invoices, docs in units(reader, TABLES):
        for invoice in invoices:
            if invoice["format"] != "pdf":
                counts["skipped_html"] += 1
                continue
            rows = docs[invoice["document"]]
            golden = json.dumps({"invoice": invoice, "line_items": rows["line_items"]},
                                default=_json_default, ensure_ascii=False, sort_keys=True)
            stem = Path(invoice["file"]).stem
            pw, ph = invoice["page_width"], invoice["page_height"]
            for number, width, height, png in _page_images(
                    reader.document(part, invoice["file"]), dpi):
                img = PageImage(invoice["document"], number, f"{stem}_p{number}.png",
                                width, height, scale, scale)
                owner: dict[int, int] = {}
                form = funsd_form(img, rows, owner)
                page_words = [w for w in rows["words"] if w["page"] == number]
                words, boxes, boxes_1000, entity_of = [], [], [], []
                for w in page_words:
                    words.append(w["text"])
                    boxes.append(list(img.box(w["x0"], w["y0"], w["x1"], w["y1"])))
                    boxes_1000.append([_n1000(w["x0"], pw), _n1000(w["y0"], ph),
                                       _n1000(w["x1"], pw), _n1000(w["y1"], ph)])
                    entity_of.append(owner[w["word"]])
                links = sorted({tuple(p) for e in form for p in e["linking"]})
                counts["pages"] += 1
                counts["links"] += len(links)
                yield invoice["split"], {
                    "id": f"{reader.run_id}/{stem}/p{number}",
                    "document": invoice["document"], "page": number, "file": invoice["file"],
                    "archetype": invoice["archetype"], "locale": invoice["locale"],
                    "condition": invoice["condition"],
                    "image": {"bytes": png, "path": None}, "width": width, "height": height,
                    "words": words, "bboxes": boxes, "bboxes_1000": boxes_1000,
                    "word_entities": entity_of,
                    "entities": [{"id": e["id"], "label": e["label"],
                                  "name": e.get("name") or e.get("field") or "",
                                  "text": e["text"], "box": [float(v) for v in e["box"]]}
                                 for e in form],
                    "links": [list(p) for p in links],
                    "fields": [{"field": f["field"], "line": f["line"],
                                "occurrence": f["occurrence"], "text": f["text"],
                                "value": f["value"],
                                "box": list(img.box(f["x0"], f["y0"], f["x1"], f["y1"]))}
                               for f in rows["fields"]
                               if f["page"] == number and f["x0"] is not None],
                    "golden": golden,
                }


def _n1000(v: float, size: float) -> int:
    return max(0, min(1000, math.floor(v / size * 1000 + 0.5)))


def export_hf(reader: RunReader, directory: Path, dpi: int) -> ExportResult:
    """Save the run as a ``DatasetDict`` at ``DIR``. Idempotent; replaces DIR whole."""
    _check(reader)
    d = _datasets()
    feats = features()
    result = ExportResult(target=f"hf://{directory}", partial=reader.partial,
                          units=len(reader.units))
    counts = {"pages": 0, "links": 0, "skipped_html": 0}
    directory.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{directory.name}.", dir=directory.parent))
    try:
        from datasets.arrow_writer import ArrowWriter

        paths = {s: work / f"{s}.arrow" for s in SPLITS}
        writers = {s: ArrowWriter(features=feats, path=str(p), writer_batch_size=32)
                   for s, p in paths.items()}
        per_split = dict.fromkeys(SPLITS, 0)
        try:
            for split, row in page_rows(reader, dpi, counts):
                writers[split].write(feats.encode_example(row))
                per_split[split] += 1
            for w in writers.values():
                w.finalize()
        finally:
            for w in writers.values():
                w.close()
        dataset = d.DatasetDict({
            s: d.Dataset.from_file(str(p), split=d.NamedSplit(s)) for s, p in paths.items()
        })
        out = work / "dataset"
        dataset.save_to_disk(str(out))
        del dataset
        old = work / "previous"
        if directory.exists():
            os.replace(directory, old)
        os.replace(out, directory)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    result.extra.update(counts, dpi=dpi, splits=per_split)
    return result
