"""Every pack with boxes through every layout format (issue 28): a small real run of each
pack (Chromium, 2 tasks, 2 locales) exported once to COCO, FUNSD, DocILE and ``hf://`` in
one pass, each read back with its consumer's own library (pycocotools, a FUNSD reader,
a DocILE-format reader, ``datasets``) and counted against the golden tables.

Also: each pack's document table has its ``split`` column, the purchase order's and the
statement's tables have ``cells`` rows, and ``hf://`` loads streaming and without
images."""

from __future__ import annotations

import importlib.util
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from exportlib import Run, invoke, pack_run, read_funsd

from docfleet.export.docile_classes import KILE_CLASSES, LIR_CLASSES
from docfleet.export.hf import NER_TAGS
from support.needs import require

#: pack → (its document table, the table its cells belong to, or None)
PACKS = {
    "invoice": ("invoices", "line_items"),
    "receipt": ("receipts", None),
    "purchase_order": ("purchase_orders", "order_lines"),
    "bank_statement": ("statements", "transactions"),
}


@pytest.fixture(scope="module", params=list(PACKS))
def exported(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
             ) -> tuple[str, Run, Path]:
    """(pack, its run, a folder holding coco/, funsd/, docile/ and hf/ of it)."""
    pack = request.param
    run = pack_run(tmp_path_factory, pack)
    out = tmp_path_factory.mktemp(f"export-{pack}")
    done = invoke("export", run.run_id, "--out", run.out, "--state", run.state,
                  "--to", f"coco://{out / 'coco'}", "--to", f"funsd://{out / 'funsd'}",
                  "--to", f"docile://{out / 'docile'}", "--to", f"hf://{out / 'hf'}",
                  "--dpi", "50", "--workers", "2")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count(f"exported run {run.run_id}") == 4
    return pack, run, out


def golden(run: Run, table: str) -> list[dict[str, Any]]:
    return run.shards(table).to_pylist()


def test_document_table_has_its_split_and_tables_have_cells(exported: tuple[str, Run, Path]
                                                            ) -> None:
    pack, run, _ = exported
    document, cells_table = PACKS[pack]
    docs = golden(run, document)
    assert docs and {d["split"] for d in docs} <= {"train", "validation", "test"}
    tables = Counter(c["table"] for c in golden(run, "cells"))
    if cells_table is None:
        assert not tables
        return
    assert tables[cells_table] > 0
    cells = [c for c in golden(run, "cells") if c["table"] == cells_table]
    assert any(c["header"] and c["row"] == 0 for c in cells)
    lines = {c["line"] for c in cells if not c["header"] and c["line"] is not None}
    assert lines, "body cells name the line they hold"


def test_coco_loads_in_pycocotools_with_every_word_and_field(exported: tuple[str, Run, Path]
                                                             ) -> None:
    require(importlib.util.find_spec("pycocotools") is not None, "pycocotools (extra test)")
    from pycocotools.coco import COCO

    pack, run, out = exported
    coco = COCO(str(out / "coco" / "annotations.json"))
    docs = golden(run, PACKS[pack][0])
    assert len(coco.getImgIds()) == sum(d["page_count"] for d in docs)
    for img in coco.loadImgs(coco.getImgIds()):
        assert (out / "coco" / "images" / img["file_name"]).stat().st_size > 0
    word_cat = coco.getCatIds(catNms=["word"])
    assert len(coco.getAnnIds(catIds=word_cat)) == len(golden(run, "words"))
    fields = [f for f in golden(run, "fields") if f["x0"] is not None]
    assert len(coco.getAnnIds()) - len(coco.getAnnIds(catIds=word_cat)) == len(fields)
    names = {c["name"] for c in coco.loadCats(coco.getCatIds())} - {"word"}
    assert names == {f["field"] for f in fields}
    for ann in coco.loadAnns(coco.getAnnIds()[:50]):
        x, y, w, h = ann["bbox"]
        image = coco.imgs[ann["image_id"]]
        assert x >= 0 and y >= 0
        assert x + w <= image["width"] + 1 and y + h <= image["height"] + 1


def test_funsd_reads_back_with_questions_answers_and_links(exported: tuple[str, Run, Path]
                                                           ) -> None:
    pack, run, out = exported
    pages = [read_funsd(p) for p in sorted((out / "funsd" / "annotations").glob("*.json"))]
    docs = golden(run, PACKS[pack][0])
    assert len(pages) == sum(d["page_count"] for d in docs)
    assert sum(len(p["tokens"]) for p in pages) == len(golden(run, "words"))
    assert sum(len(p["links"]) for p in pages) == len(golden(run, "links"))
    answers = sum(1 for p in pages for e in p["page"]["form"] if e["label"] == "answer")
    assert answers == sum(1 for f in golden(run, "fields") if f["x0"] is not None)
    tags = Counter(t.split("-")[-1] for p in pages for t in p["tags"])
    assert tags["ANSWER"] and tags["QUESTION"], tags


def read_docile(directory: Path) -> dict[str, dict[str, Any]]:
    """A DocILE-format reader (as ``docile.dataset.Dataset`` loads a split): docid →
    annotation, over the train/val/test index files; asserts DocILE's structure."""
    docs: dict[str, dict[str, Any]] = {}
    for split in ("train", "val", "test"):
        for docid in json.loads((directory / f"{split}.json").read_text()):
            assert (directory / "pdfs" / f"{docid}.pdf").read_bytes()[:5] == b"%PDF-"
            ann = json.loads((directory / "annotations" / f"{docid}.json").read_text())
            pages = ann["metadata"]["page_count"]
            for key, classes in (("field_extractions", KILE_CLASSES),
                                 ("line_item_extractions", LIR_CLASSES)):
                for f in ann[key]:
                    assert f["fieldtype"] in classes, f
                    left, top, right, bottom = f["bbox"]
                    assert 0 <= left <= right <= 1 and 0 <= top <= bottom <= 1
                    assert 0 <= f["page"] < pages
                    assert (key == "line_item_extractions") == ("line_item_id" in f)
            for f in ann["docfleet_extractions"]:
                assert f["fieldtype"] not in KILE_CLASSES + LIR_CLASSES
            docs[docid] = {**ann, "split": split}
    return docs


def test_docile_maps_fields_to_docile_classes(exported: tuple[str, Run, Path]) -> None:
    pack, run, out = exported
    docs = read_docile(out / "docile")
    rows = golden(run, PACKS[pack][0])
    assert len(docs) == len(rows)
    fields = [f for f in golden(run, "fields") if f["x0"] is not None]
    extractions = sum(len(a["field_extractions"]) + len(a["line_item_extractions"])
                      + len(a["docfleet_extractions"]) for a in docs.values())
    assert extractions == len(fields)
    for ann in docs.values():  # every pack prints its number and its issuer
        kile = {f["fieldtype"] for f in ann["field_extractions"]}
        assert {"document_id", "vendor_name", "date_issue"} <= kile, kile
    lir = Counter(f["fieldtype"] for a in docs.values() for f in a["line_item_extractions"])
    assert lir["line_item_description"] > 0
    kind = {"invoice": "tax_invoice"}.get(pack, pack)
    for r in rows:
        ann = docs[Path(r["file"]).stem]
        assert ann["metadata"]["document_type"] == (
            "credit_note" if r.get("document_type") == "credit_note" else kind)
    split = {int(d): a["split"] for d, a in docs.items()}
    assert all({"val": "validation"}.get(split[r["document"]], split[r["document"]])
               == r["split"] for r in rows)


def test_hf_dataset_is_model_ready(exported: tuple[str, Run, Path]) -> None:
    require(importlib.util.find_spec("datasets") is not None, "the datasets library (extra hf)")
    import datasets

    from docfleet.export.hf import load

    pack, run, out = exported
    ds = datasets.load_from_disk(str(out / "hf"))
    docs = {d["document"]: d for d in golden(run, PACKS[pack][0])}
    assert sum(p.num_rows for p in ds.values()) == sum(d["page_count"] for d in docs.values())
    train = ds["train"]
    ner = train.features["ner_tags"].feature
    assert isinstance(ner, datasets.ClassLabel) and tuple(ner.names) == NER_TAGS
    tags = train.features["field_tags"].feature
    fields = {f["field"] for f in golden(run, "fields")}
    assert set(tags.names) == {"O"} | {f"{p}-{f}" for f in fields for p in "BI"}
    words = begins = 0
    for row in train:
        doc = docs[row["document"]]
        assert doc["split"] == "train" and row["pack"] == pack
        n = len(row["words"])
        assert n == len(row["bboxes"]) == len(row["ner_tags"]) == len(row["field_tags"]) > 0
        assert all(0 <= v <= 1000 for b in row["bboxes"] for v in b)
        assert row["image"].size == (row["width"], row["height"])
        words += n
        begins += sum(1 for t in row["field_tags"] if tags.int2str(t).startswith("B-"))
        truth = json.loads(row["golden"])
        assert truth[PACKS[pack][0]]["document"] == row["document"]
        assert any(truth[t] for t in truth if t != PACKS[pack][0]), "its record rows"
    on_train = {d for d, r in docs.items() if r["split"] == "train"}
    train_words = [w for w in golden(run, "words") if w["document"] in on_train]
    assert words == len(train_words)
    assert begins == len({(w["document"], w["page"], w["field"], w["line"], w["occurrence"])
                          for w in train_words if w["field"] is not None})
    streamed = load(out / "hf", streaming=True)
    assert sum(1 for _ in streamed["train"]) == train.num_rows
    assert tuple(streamed["train"].features["ner_tags"].feature.names) == NER_TAGS


def test_hf_without_images_has_no_image_column(tmp_path_factory: pytest.TempPathFactory,
                                               tmp_path: Path) -> None:
    require(importlib.util.find_spec("datasets") is not None, "the datasets library (extra hf)")
    import datasets

    run = pack_run(tmp_path_factory, "receipt")
    done = invoke("export", run.run_id, "--out", run.out, "--state", run.state,
                  "--to", f"hf://{tmp_path / 'hf'}", "--no-images", "--workers", "1")
    assert done.returncode == 0, done.stderr
    ds = datasets.load_from_disk(str(tmp_path / "hf"))
    assert "image" not in ds["train"].features
    assert sum(p.num_rows for p in ds.values()) == sum(
        d["page_count"] for d in golden(run, "receipts"))


def test_progress_follows_every_document_and_box_names_its_column(
        tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> None:
    from docfleet.export import RunReader, export_targets

    run = pack_run(tmp_path_factory, "receipt")
    calls: list[tuple[int, int]] = []
    reader = RunReader(run.out, run.run_id)
    export_targets(reader, [f"docile://{tmp_path / 'd'}"],
                   progress=lambda d, t: calls.append((d, t)))
    documents = len(golden(run, "receipts"))
    assert calls == [(k, documents) for k in range(1, documents + 1)]
    done = invoke("export", run.run_id, "--out", run.out, "--state", run.state,
                  "--to", f"coco://{tmp_path / 'c'}", "--box", "ink_nope")
    assert done.returncode == 2 and "no 'ink_nope' box column" in done.stderr, done.stderr
    assert not (tmp_path / "c").exists()


def test_the_card_counts_every_pack_s_documents_and_splits(exported: tuple[str, Run, Path]
                                                           ) -> None:
    pack, run, out = exported
    card = (out / "coco" / "README.md").read_text()
    documents = len(golden(run, PACKS[pack][0]))
    assert f"documents: {documents}" in card and "This run records no splits." not in card


def test_a_partial_run_exports_through_the_state_store_s_parameters(
        tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> None:
    """Without a root manifest the pack and options come from the state store."""
    run = pack_run(tmp_path_factory, "purchase_order").copy(tmp_path / "copy")
    (run.root / "manifest.json").unlink()
    done = invoke("export", run.run_id, "--out", run.out, "--state", run.state, "--partial",
                  "--to", f"funsd://{tmp_path / 'f'}", "--workers", "1", "--dpi", "36")
    assert done.returncode == 0, done.stderr
    pages = sum(d["page_count"] for d in golden(run, "purchase_orders"))
    assert len(list((tmp_path / "f" / "annotations").glob("*.json"))) == pages


def test_the_box_column_is_a_parameter() -> None:
    """``ink_box`` reads the ink columns (``ink_x0`` … ``ink_y1``) or one box column."""
    from docfleet.export.layout import LayoutView

    view = LayoutView("r", "invoice", "invoices", "split", {}, "ink_box")
    row = {"x0": 1.0, "y0": 2.0, "x1": 9.0, "y1": 8.0,
           "ink_x0": 1.5, "ink_y0": 2.5, "ink_x1": 8.5, "ink_y1": 7.5}
    assert view.box_of(row) == (1.5, 2.5, 8.5, 7.5)
    assert view.box_of({"ink_box": {"x0": 1, "y0": 2, "x1": 3, "y1": 4}}) == (1, 2, 3, 4)
    assert view.box_of({"ink_box": None}) is None
    default = LayoutView("r", "invoice", "invoices", "split", {})
    assert default.box_of(row) == (1.0, 2.0, 9.0, 8.0)
