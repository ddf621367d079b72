"""``hf://DIR``: a Hugging Face ``datasets.DatasetDict`` saved to disk
(``datasets.load_from_disk(DIR)``, or :func:`load` with ``streaming=True``), splits
``train`` / ``validation`` / ``test`` from the run's split column, **one row per page**,
for every pack with boxes, in the form LayoutLM-style models take:

==================  ============================================================
column              meaning
==================  ============================================================
id                  ``<run_id>/<stem>/p<N>``
document, page      document index, 1-based page number
file                the PDF's name under ``documents/``
pack, archetype,    the run's pack; as in its document table
locale, condition
image               the page rendered from the PDF at ``dpi`` (PNG); absent with
                    ``images=False`` (``--no-images``)
width, height       image size in pixels (``dpi / 72`` per point)
words               the page's words in reading order (the ``words`` table)
bboxes              word boxes ``[x0, y0, x1, y1]`` normalised to 0…1000 of the page
                    (integers: what LayoutLM's ``bbox`` input takes)
bboxes_px           the same boxes in image pixels
ner_tags            per word, a BIO tag of its FUNSD entity: ``ClassLabel`` with names
                    O, B-HEADER, I-HEADER, B-QUESTION, I-QUESTION, B-ANSWER, I-ANSWER
field_tags          per word, a BIO tag of the printed field it belongs to:
                    ``ClassLabel`` with names O, B-<field>, I-<field> for every field
                    name the run prints (sorted)
word_entities       per word, the index of its entity in ``entities``
entities            FUNSD-style: ``{id, label (question|answer|header|other), name,
                    text, box}`` (``name`` = the field or header name, "" for other)
links               ``[question entity, answer entity]`` pairs (from ``links``)
fields              the page's printed fields ``{field, line, occurrence, text, value,
                    box}`` (box in image pixels)
golden              JSON of the document's row (key: the document table's name) and
                    its record rows (key: each record table's name); money as exact
                    decimal strings
==================  ============================================================

``datasets`` is the optional extra ``hf``. One pass over the run (:mod:`.pipeline`), one
unit's shards and a few page images in memory at a time: rows stream through
``datasets``' own Arrow writer straight into the shards of the saved layout
(``save_to_disk`` would re-read the whole dataset). Idempotent: built in a temporary
directory beside DIR and swapped in whole; a failed export leaves DIR as it was.
:func:`push` publishes it to a Hub (``huggingface_hub``; ``HF_ENDPOINT`` and
``HF_TOKEN`` as the Hub's own tools read them).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import decimal
import json
import math
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from docfleet.core.errors import ConfigError
from docfleet.export.interchange import funsd_form
from docfleet.export.layout import Box, LayoutView, Rows
from docfleet.export.pipeline import page_stem
from docfleet.export.raster import PageImage
from docfleet.export.reader import RunReader
from docfleet.export.tabular import ExportResult

SPLITS = ("train", "validation", "test")
#: the FUNSD entity tags of ``ner_tags``, in LayoutLM's FUNSD order
NER_TAGS = ("O", "B-HEADER", "I-HEADER", "B-QUESTION", "I-QUESTION", "B-ANSWER", "I-ANSWER")


def _datasets() -> Any:
    try:
        import datasets
    except ImportError:
        raise ConfigError("hf:// export needs the optional extra 'hf' (the datasets library)",
                          "pip install 'docfleet[hf]'") from None
    return datasets


def field_tag_names(fields: list[str]) -> list[str]:
    """The names of ``field_tags``: O, then B-/I- of every field name."""
    return ["O", *(f"{p}-{f}" for f in fields for p in ("B", "I"))]


def features(fields: list[str] | None = None, images: bool = True) -> Any:
    """The ``datasets.Features`` of one page row (see the module docstring)."""
    d = _datasets()
    box = d.Sequence(d.Value("float32"), length=4)
    image = {"image": d.Image()} if images else {}
    return d.Features({
        "id": d.Value("string"),
        "document": d.Value("int64"),
        "page": d.Value("int32"),
        "file": d.Value("string"),
        "pack": d.Value("string"),
        "archetype": d.Value("string"),
        "locale": d.Value("string"),
        "condition": d.Value("string"),
        **image,
        "width": d.Value("int32"),
        "height": d.Value("int32"),
        "words": d.Sequence(d.Value("string")),
        "bboxes": d.Sequence(d.Sequence(d.Value("int32"), length=4)),
        "bboxes_px": d.Sequence(box),
        "ner_tags": d.Sequence(d.ClassLabel(names=list(NER_TAGS))),
        "field_tags": d.Sequence(d.ClassLabel(names=field_tag_names(fields or []))),
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
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    raise TypeError(f"cannot serialise {type(value).__name__}")


def _n1000(v: float, size: float) -> int:
    return max(0, min(1000, math.floor(v / size * 1000 + 0.5)))


def _page_size(doc: dict[str, Any], rows: Rows, number: int) -> tuple[float, float]:
    """Page ``number``'s size in points (the ``pages`` row, else the document's)."""
    for p in rows.get("pages", ()):
        if p["page"] == number:
            return p["width"], p["height"]
    return doc["page_width"], doc["page_height"]


def page_row(view: LayoutView, doc: dict[str, Any], rows: Rows, img: PageImage,
             golden: str, field_index: dict[str, int], images: bool) -> dict[str, Any]:
    """The dataset row of one page (see the module docstring)."""
    number = img.number
    pw, ph = _page_size(doc, rows, number)
    owner: dict[int, int] = {}
    form = funsd_form(img, rows, view, owner)
    words, boxes, boxes_px, entity_of, ner, tags = [], [], [], [], [], []
    seen_entities: set[int] = set()
    seen_fields: set[tuple] = set()
    for w in rows["words"]:
        box: Box | None = view.box_of(w)
        if w["page"] != number or box is None:
            continue
        words.append(w["text"])
        boxes.append([_n1000(box[0], pw), _n1000(box[1], ph), _n1000(box[2], pw),
                      _n1000(box[3], ph)])
        boxes_px.append(list(img.box(box)))
        entity = owner[w["word"]]
        entity_of.append(entity)
        label = form[entity]["label"]
        if label == "other":
            ner.append(0)
        else:
            first = entity not in seen_entities
            seen_entities.add(entity)
            ner.append(NER_TAGS.index(f"{'B' if first else 'I'}-{label.upper()}"))
        if w["field"] is None:
            tags.append(0)
        else:
            key = (w["field"], w["line"], w["occurrence"])
            first = key not in seen_fields
            seen_fields.add(key)
            tags.append(1 + 2 * field_index[w["field"]] + (0 if first else 1))
    links = sorted({tuple(p) for e in form for p in e["linking"]})
    row = {
        "id": f"{view.run_id}/{page_stem(doc)}/p{number}",
        "document": doc["document"], "page": number, "file": doc["file"],
        "pack": view.pack, "archetype": doc["archetype"], "locale": doc["locale"],
        "condition": doc["condition"], "width": img.width, "height": img.height,
        "words": words, "bboxes": boxes, "bboxes_px": boxes_px, "ner_tags": ner,
        "field_tags": tags, "word_entities": entity_of,
        "entities": [{"id": e["id"], "label": e["label"],
                      "name": e.get("name") or e.get("field") or "",
                      "text": e["text"], "box": [float(v) for v in e["box"]]} for e in form],
        "links": [list(p) for p in links],
        "fields": [{"field": f["field"], "line": f["line"], "occurrence": f["occurrence"],
                    "text": f["text"], "value": f["value"], "box": list(img.box(fb))}
                   for f in rows["fields"]
                   if f["page"] == number and (fb := view.box_of(f)) is not None],
        "golden": golden,
    }
    if images:
        row["image"] = {"bytes": img.png, "path": None}
    return row


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
        probe.info.write_to_directory(str(self.directory), pretty_print=True)
        del probe
        (self.directory / "state.json").write_text(json.dumps(state, indent=2, sort_keys=True))

    def abort(self) -> None:
        with contextlib.suppress(Exception):
            self._close()


class HfSink:
    """``hf://DIR`` (see the module docstring): a ``DatasetDict`` built beside DIR and
    swapped in whole by :meth:`finish`. ``images=False``: no image column, and no page is
    rasterised for it (sizes from the ``pages`` table)."""

    def __init__(self, reader: RunReader, view: LayoutView, directory: Path, dpi: int,
                 fields: list[str], images: bool = True) -> None:
        self.view, self.directory, self.dpi, self.images = view, directory, dpi, images
        self.features = features(fields, images)
        self.field_index = {f: i for i, f in enumerate(fields)}
        self.result = ExportResult(target=f"hf://{directory}", partial=reader.partial,
                                   units=len(reader.units))
        self.counts = {"pages": 0, "links": 0}
        directory.parent.mkdir(parents=True, exist_ok=True)
        self.work = Path(tempfile.mkdtemp(prefix=f".{directory.name}.", dir=directory.parent))
        self.out = self.work / "dataset"
        self.writers = {s: _SplitWriter(self.out / s, self.features) for s in SPLITS}
        self._golden: tuple[int, str] | None = None

    def _golden_of(self, doc: dict[str, Any], rows: Rows) -> str:
        if self._golden is None or self._golden[0] != doc["document"]:
            body = {self.view.document: doc,
                    **{t: rows.get(t, []) for t in self.view.records}}
            self._golden = (doc["document"], json.dumps(
                body, default=_json_default, ensure_ascii=False, sort_keys=True))
        return self._golden[1]

    def _write(self, doc: dict[str, Any], rows: Rows, img: PageImage) -> None:
        row = page_row(self.view, doc, rows, img, self._golden_of(doc, rows),
                       self.field_index, self.images)
        self.counts["pages"] += 1
        self.counts["links"] += len(row["links"])
        self.writers[self.view.split_of(doc)].write(row)

    def document(self, doc: dict[str, Any], rows: Rows, pdf: bytes) -> None:
        if self.images:
            return
        scale = self.dpi / 72
        for number in range(1, (doc["page_count"] or 0) + 1):
            pw, ph = _page_size(doc, rows, number)
            img = PageImage(number, math.ceil(pw * scale), math.ceil(ph * scale), scale, b"")
            self._write(doc, rows, img)

    def page(self, doc: dict[str, Any], rows: Rows, img: PageImage) -> None:
        self._write(doc, rows, img)

    def finish(self) -> ExportResult:
        try:
            for split, writer in self.writers.items():
                writer.finish(split)
            (self.out / "dataset_dict.json").write_text(json.dumps({"splits": list(SPLITS)}))
            old = self.work / "previous"
            if self.directory.exists():
                os.replace(self.directory, old)
            os.replace(self.out, self.directory)
        except BaseException:
            self.abort()
            raise
        shutil.rmtree(self.work, ignore_errors=True)
        self.result.extra.update(self.counts, dpi=self.dpi,
                                 splits={s: w.rows for s, w in self.writers.items()})
        return self.result

    def abort(self) -> None:
        for writer in self.writers.values():
            writer.abort()
        shutil.rmtree(self.work, ignore_errors=True)


def data_files(directory: Path) -> dict[str, list[str]]:
    """Each split's Arrow shards of a saved ``hf://`` export."""
    return {s: sorted(str(f) for f in (directory / s).glob("data-*.arrow"))
            for s in SPLITS if (directory / s).is_dir()}


def load(directory: str | Path, streaming: bool = False) -> Any:
    """The saved export at ``directory``: a ``DatasetDict`` (memory-mapped), or with
    ``streaming`` an ``IterableDatasetDict`` that reads the Arrow shards row by row
    (features, ``ClassLabel`` names and images included)."""
    d = _datasets()
    path = Path(directory)
    if not streaming:
        return d.load_from_disk(str(path))
    files = {s: f for s, f in data_files(path).items() if f}
    feats = d.Features.from_dict(json.loads(
        (path / SPLITS[0] / "dataset_info.json").read_text())["features"])
    return d.load_dataset("arrow", data_files=files, streaming=True, features=feats)


def push(directory: Path, repo: str, token: str | None = None, private: bool = False
         ) -> str:
    """Publish the saved export at ``directory`` to Hub dataset repo ``repo`` (created if
    absent) with ``datasets``' ``push_to_hub``: Parquet shards and a card the Hub reads.
    The Hub is ``HF_ENDPOINT`` (default huggingface.co); ``token`` defaults to
    ``HF_TOKEN`` — it is never printed. Returns the repo's URL."""
    ds = load(directory)
    token = token or os.environ.get("HF_TOKEN") or None
    try:
        info = ds.push_to_hub(repo, token=token, private=private)
    except Exception as exc:  # the Hub's errors: one line, never the token
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if token:
            message = message.replace(token, "***")
        raise ConfigError(f"cannot push the dataset to {repo}: {message}",
                          "check --push REPO, HF_TOKEN and HF_ENDPOINT") from None
    return str(getattr(info, "commit_url", "") or repo)
