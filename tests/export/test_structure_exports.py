"""Research exports of a real 2-task invoice run: FUNSD with question/answer/header
entities and links (read back by a FUNSD reader of our own), a DocILE-style dataset that
validates against DocILE's documented structure, a Hugging Face DatasetDict read back by
the real ``datasets`` library, and the dataset card with the generator environment."""

from __future__ import annotations

import importlib.util
import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest
from exportlib import Run, invoice_run, invoke, read_funsd

from support.needs import require


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    return invoice_run(tmp_path_factory)


def export(run: Run, to: str, *extra: str) -> Any:
    done = invoke("export", run.run_id, "--out", run.out, "--state", run.state, "--to", to,
                  *extra)
    assert done.returncode == 0, done.stderr
    return done


def test_funsd_has_questions_linked_to_every_labelled_answer(run: Run, tmp_path: Path) -> None:
    export(run, f"funsd://{tmp_path}", "--dpi", "72")
    links = run.shards("links").to_pylist()
    labels = run.shards("labels").to_pylist()
    pages = [read_funsd(p) for p in sorted((tmp_path / "annotations").glob("*.json"))]
    assert pages
    tags = Counter(t.split("-")[-1] for p in pages for t in p["tags"])
    assert tags["QUESTION"] and tags["ANSWER"] and tags["HEADER"] and tags["O"]
    assert sum(len(p["links"]) for p in pages) == len(links) > 0
    questions = sum(1 for p in pages for e in p["page"]["form"] if e["label"] == "question")
    assert questions == sum(1 for lab in labels if lab["kind"] == "label")
    # every labelled answer is linked, and its question's text is the printed label
    label_text = {(lab["document"], lab["label_id"]): lab["text"] for lab in labels}
    for p in pages:
        form = {e["id"]: e for e in p["page"]["form"]}
        doc = p["page"]["document"]
        texts = {label_text[(doc, k["label_id"])] for k in links if k["document"] == doc}
        for a, b in p["links"]:
            assert form[a]["text"] in texts and form[b]["field"] in form[a]["name"].split()
    assert (tmp_path / "README.md").exists()


DOCILE_FIELD_KEYS = {"bbox", "page", "score", "text", "fieldtype", "line_item_id",
                     "use_only_for_ap"}


def check_docile_field(f: dict[str, Any], pages: int, line_item: bool) -> None:
    assert set(f) <= DOCILE_FIELD_KEYS and {"bbox", "page", "fieldtype", "text"} <= set(f)
    left, top, right, bottom = f["bbox"]
    assert 0 <= left <= right <= 1 and 0 <= top <= bottom <= 1, f
    assert 0 <= f["page"] < pages
    assert isinstance(f["line_item_id"], int) if line_item else "line_item_id" not in f


def test_docile_export_validates_against_its_structure(run: Run, tmp_path: Path) -> None:
    export(run, f"docile://{tmp_path}")
    invoices = {r["document"]: r for r in run.shards("invoices").to_pylist()}
    fields = run.shards("fields").to_pylist()
    splits = {name: json.loads((tmp_path / f"{name}.json").read_text())
              for name in ("train", "val", "test")}
    ids = [d for ids in splits.values() for d in ids]
    assert len(ids) == len(set(ids)) == len(invoices)
    assert all(splits.values())
    by_doc: dict[int, list[dict]] = defaultdict(list)
    for f in fields:
        by_doc[f["document"]].append(f)
    for name, docids in splits.items():
        for docid in docids:
            inv = invoices[int(docid)]
            assert {"train": "train", "val": "validation", "test": "test"}[name] == inv["split"]
            assert (tmp_path / "pdfs" / f"{docid}.pdf").read_bytes().startswith(b"%PDF-")
            ann = json.loads((tmp_path / "annotations" / f"{docid}.json").read_text())
            meta = ann["metadata"]
            assert meta["page_count"] == inv["page_count"]
            assert isinstance(meta["cluster_id"], int) and meta["document_type"]
            assert len(meta["page_sizes_at_200dpi"]) == inv["page_count"]
            for f in ann["field_extractions"]:
                check_docile_field(f, inv["page_count"], False)
            for f in ann["line_item_extractions"]:
                check_docile_field(f, inv["page_count"], True)
            for f in ann["line_item_headers"]:
                check_docile_field(f, inv["page_count"], False)
            assert len(ann["field_extractions"]) + len(ann["line_item_extractions"]) + \
                len(ann["docfleet_extractions"]) == len(by_doc[inv["document"]])
            assert {f["line_item_id"] for f in ann["line_item_extractions"]} == \
                set(range(1, inv["line_count"] + 1))
            total = next(f for f in ann["field_extractions"]
                         if f["fieldtype"] == "amount_total_gross")
            golden = next(f for f in by_doc[inv["document"]] if f["field"] == "total")
            assert total["bbox"][0] * inv["page_width"] == pytest.approx(golden["x0"], abs=1e-3)
            if inv["archetype"] != "receipt":
                grid = meta["page_to_table_grid"]["0"]
                assert {"bbox", "rows", "columns", "missing_columns",
                        "missing_second_table_on_page", "table_border_type",
                        "table_structure"} <= set(grid)
                assert grid["rows"][0]["row_type"] == "header"
                assert all(r["top"] <= r["bottom"] for r in grid["rows"])
                assert {c["column_type"] for c in grid["columns"]} >= {"line_item_amount_net"}


def test_hf_dataset_loads_from_disk_with_three_splits(run: Run, tmp_path: Path) -> None:
    require(importlib.util.find_spec("datasets") is not None, "the datasets library (extra hf)")
    import datasets

    target = tmp_path / "ds"
    export(run, f"hf://{target}", "--dpi", "60")
    export(run, f"hf://{target}", "--dpi", "60")  # twice = once (replaced whole)
    ds = datasets.load_from_disk(str(target))
    assert isinstance(ds, datasets.DatasetDict)
    assert set(ds) == {"train", "validation", "test"}
    invoices = {r["document"]: r for r in run.shards("invoices").to_pylist()}
    for split, part in ds.items():
        expected = sum(r["page_count"] for r in invoices.values() if r["split"] == split)
        assert part.num_rows == expected > 0, split
        assert isinstance(part.features["image"], datasets.Image)
        for row in part:
            inv = invoices[row["document"]]
            assert inv["split"] == split
            assert row["image"].size == (row["width"], row["height"])
            assert len(row["words"]) == len(row["bboxes"]) == len(row["bboxes_px"]) \
                == len(row["word_entities"]) == len(row["ner_tags"]) > 0
            entities = {e["id"]: e for e in row["entities"]}
            assert all(k in entities for k in row["word_entities"])
            for q, a in row["links"]:
                assert entities[q]["label"] == "question" and entities[a]["label"] == "answer"
            assert all(0 <= v <= 1000 for b in row["bboxes"] for v in b)
            golden = json.loads(row["golden"])
            assert golden["invoices"]["total"] == format(inv["total"], "f")
            assert len(golden["line_items"]) == inv["line_count"]
        labels = Counter(e["label"] for row in part for e in row["entities"])
        assert labels["question"] and labels["answer"]
    assert sum(len(r["links"]) for p in ds.values() for r in p) == \
        run.shards("links").num_rows
    assert "## Generator environment" in (target / "README.md").read_text()


def test_card_lists_counts_schema_splits_and_environment(run: Run, tmp_path: Path) -> None:
    env = run.manifest["environment"]
    assert env["chromium"] and "Chromium" in env["chromium"]
    assert env["packages"]["faker"] and env["packages"]["playwright"]
    assert any(v for v in env["fonts"].values())
    done = invoke("card", run.run_id, "--out", run.out, "--state", run.state)
    assert done.returncode == 0, done.stderr
    card = done.stdout
    assert card.startswith("---\n") and "license: cc-by-4.0" in card
    for needle in ("## What was generated", "### By archetype", "### By locale",
                   "### By condition", "## Splits", "## Tokenisation", "## Tables",
                   "## Generator environment", "## Licence", env["chromium"],
                   env["packages"]["faker"], "documents: 24"):
        assert needle in card, needle
    for table in run.manifest["rows"]:
        assert f"### `{table}`" in card
    assert "| `discount_total` | decimal128(18, 2) | no | sum of line discount" in card
    out = tmp_path / "card.md"
    done = invoke("card", run.run_id, "--out", run.out, "--state", run.state,
                  "--output", str(out))
    assert done.returncode == 0 and out.read_text() == card


def test_hf_writer_saves_an_empty_split_that_loads(tmp_path: Path) -> None:
    require(importlib.util.find_spec("datasets") is not None, "the datasets library (extra hf)")
    import datasets

    from docfleet.export.hf import _SplitWriter, features

    out = tmp_path / "ds"
    writer = _SplitWriter(out / "test", features(["total"]))
    writer.finish("test")
    (out / "dataset_dict.json").write_text(json.dumps({"splits": ["test"]}))
    ds = datasets.load_from_disk(str(out))
    assert ds["test"].num_rows == 0 and "image" in ds["test"].features
