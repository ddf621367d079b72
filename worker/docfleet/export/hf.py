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
one page image in memory at a time: rows stream through ``datasets``' own Arrow writer
straight into the shards of the saved layout (``save_to_disk`` would re-read the whole
dataset). Idempotent: built in a temporary directory beside DIR and swapped in whole; a
failed export leaves DIR as it was. To publish it:
``datasets.load_from_disk(DIR).push_to_hub("org/name")``.
"""

from __future__ import annotations

import contextlib
import dataclasses
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

from docfleet.core.errors import ConfigError
from docfleet.export.interchange import PageImage, _check, funsd_form, units
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
                yield invoice.get("split") or "train", {
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


#: pages per Arrow shard file (a few tens of MB at 100-150 dpi)
SHARD_PAGES = 1000


class _SplitWriter:
    """Streams one split's rows into ``data-NNNNN-of-MMMMM.arrow`` shards with the
    ``datasets`` Arrow writer, then writes the ``state.json`` / ``dataset_info.json``
    that ``save_to_disk`` would, so the rows are written once and never re-read
    (``save_to_disk`` re-reads the whole dataset: memory grows with the run)."""

    def __init__(self, directory: Path, feats: Any) -> None:
        self.directory = directory
        self.features = feats
        self.files: list[Path] = []
        self.rows = 0
        self._writer: Any = None
        self._in_shard = 0
        directory.mkdir(parents=True)

    def _open(self) -> None:
        from datasets.arrow_writer import ArrowWriter

        path = self.directory / f"shard-{len(self.files):05d}.arrow"
        self.files.append(path)
        self._writer = ArrowWriter(features=self.features, path=str(path), writer_batch_size=32)
        self._in_shard = 0

    def _close(self) -> None:
        if self._writer is not None:
            try:
                self._writer.finalize()
            finally:
                self._writer.close()
            self._writer = None

    def write(self, row: dict[str, Any]) -> None:
        if self._writer is None or self._in_shard >= SHARD_PAGES:
            self._close()
            self._open()
        self._writer.write(self.features.encode_example(row))
        self._in_shard += 1
        self.rows += 1

    def finish(self, split: str) -> None:
        d = _datasets()
        if self._writer is None:
            self._open()  # an empty split is one empty shard
        self._close()
        n = len(self.files)
        names = [f"data-{k:05d}-of-{n:05d}.arrow" for k in range(n)]
        for path, name in zip(self.files, names, strict=True):
            os.replace(path, self.directory / name)
        probe = d.Dataset.from_file(str(self.directory / names[0]), split=d.NamedSplit(split))
        state = {key: probe.__dict__[key] for key in (
            "_fingerprint", "_format_columns", "_format_kwargs", "_format_type",
            "_output_all_columns")}
        state["_split"] = split
        state["_data_files"] = [{"filename": name} for name in names]
        info = dataclasses.asdict(probe.info)
        del probe
        (self.directory / "state.json").write_text(json.dumps(state, indent=2, sort_keys=True))
        (self.directory / "dataset_info.json").write_text(
            json.dumps({k: info[k] for k in sorted(info)}, indent=2))

    def abort(self) -> None:
        with contextlib.suppress(Exception):
            self._close()


def export_hf(reader: RunReader, directory: Path, dpi: int) -> ExportResult:
    """Save the run as a ``DatasetDict`` at ``DIR`` (the layout ``save_to_disk`` writes,
    read by ``datasets.load_from_disk``). Idempotent; replaces DIR whole; memory bounded
    by one unit's shards and one writer batch."""
    _check(reader)
    feats = features()
    result = ExportResult(target=f"hf://{directory}", partial=reader.partial,
                          units=len(reader.units))
    counts = {"pages": 0, "links": 0, "skipped_html": 0}
    directory.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{directory.name}.", dir=directory.parent))
    try:
        out = work / "dataset"
        writers = {s: _SplitWriter(out / s, feats) for s in SPLITS}
        try:
            for split, row in page_rows(reader, dpi, counts):
                writers[split].write(row)
            for split, writer in writers.items():
                writer.finish(split)
        except BaseException:
            for writer in writers.values():
                writer.abort()
            raise
        (out / "dataset_dict.json").write_text(json.dumps({"splits": list(SPLITS)}))
        old = work / "previous"
        if directory.exists():
            os.replace(directory, old)
        os.replace(out, directory)
        per_split = {s: w.rows for s, w in writers.items()}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    result.extra.update(counts, dpi=dpi, splits=per_split)
    return result
