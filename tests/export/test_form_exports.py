"""The form pack (issue 30) through the layout exports, read back with each consumer's
library: COCO with its checkbox classes (pycocotools), FUNSD questions, answers and links
(the FUNSD reader), ``hf://`` with BIO ``ner_tags`` (``datasets``), and ``docfleet preview``
of a form page with its golden boxes and with its ink boxes. A small real run: 4 forms, 2
tasks, Chromium."""

from __future__ import annotations

import importlib.util
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from exportlib import Run, invoke, pack_run, read_funsd

from docfleet.export.hf import NER_TAGS
from docfleet.export.interchange import MARK_STATES
from support.needs import require


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Run, Path]:
    run = pack_run(tmp_path_factory, "form")
    out = tmp_path_factory.mktemp("export-form")
    done = invoke("export", run.run_id, "--out", run.out, "--state", run.state,
                  "--to", f"coco://{out / 'coco'}", "--to", f"funsd://{out / 'funsd'}",
                  "--to", f"hf://{out / 'hf'}", "--dpi", "50", "--workers", "2")
    assert done.returncode == 0, done.stderr
    return run, out


def golden(run: Run, table: str) -> list[dict[str, Any]]:
    return run.shards(table).to_pylist()


def boxed_marks(run: Run) -> list[dict[str, Any]]:
    """The selection marks printed with a box: a checkbox row whose field has a box."""
    boxed = {(f["document"], f["field"]) for f in golden(run, "fields") if f["x0"] is not None}
    return [m for m in golden(run, "form_checkboxes") if (m["document"], m["field"]) in boxed]


def test_coco_has_a_class_per_checkbox_state(exported: tuple[Run, Path]) -> None:
    require(importlib.util.find_spec("pycocotools") is not None, "pycocotools (extra test)")
    from pycocotools.coco import COCO

    run, out = exported
    coco = COCO(str(out / "coco" / "annotations.json"))
    marks = boxed_marks(run)
    assert marks, "the run prints checkboxes"
    for state in MARK_STATES:
        ids = coco.getCatIds(catNms=[f"checkbox.{state}"])
        assert len(ids) == 1
        anns = coco.loadAnns(coco.getAnnIds(catIds=ids))
        assert len(anns) == sum(1 for m in marks if m["state"] == state), state
        assert all(a["selected"] == (state == "checked") for a in anns)
        assert all(a["kind"] in ("checkbox", "radio") and a["option"] for a in anns)
    words = coco.getCatIds(catNms=["word"])
    assert len(coco.getAnnIds(catIds=words)) == len(golden(run, "words"))


def test_funsd_has_questions_answers_and_their_links(exported: tuple[Run, Path]) -> None:
    run, out = exported
    pages = [read_funsd(p) for p in sorted((out / "funsd" / "annotations").glob("*.json"))]
    assert len(pages) == sum(d["page_count"] for d in golden(run, "forms"))
    labels = Counter(e["label"] for p in pages for e in p["page"]["form"])
    assert labels["question"] and labels["answer"] and labels["header"], labels
    assert sum(len(p["links"]) for p in pages) == len(golden(run, "links"))
    assert sum(len(p["tokens"]) for p in pages) == len(golden(run, "words"))


def test_hf_rows_carry_bio_tags(exported: tuple[Run, Path]) -> None:
    require(importlib.util.find_spec("datasets") is not None, "the datasets library (extra hf)")
    import datasets

    run, out = exported
    ds = datasets.load_from_disk(str(out / "hf"))
    assert sum(p.num_rows for p in ds.values()) == sum(d["page_count"]
                                                       for d in golden(run, "forms"))
    rows = [row for split in ds.values() for row in split]
    assert all(row["pack"] == "form" and len(row["words"]) == len(row["ner_tags"]) > 0
               for row in rows)
    names = ds[next(iter(ds))].features["ner_tags"].feature.names
    assert tuple(names) == NER_TAGS
    seen = {names[t].split("-")[-1] for row in rows for t in row["ner_tags"]}
    assert {"QUESTION", "ANSWER"} <= seen, seen


def test_preview_draws_a_form_page(exported: tuple[Run, Path], tmp_path: Path) -> None:
    from PIL import Image

    run, _ = exported
    png = tmp_path / "form.png"
    done = invoke("preview", run.run_id, "0", "--out", run.out, "--state", run.state,
                  "--output", str(png))
    assert done.returncode == 0, done.stderr
    with Image.open(png) as image:
        assert image.width > 100 and image.height > 100
    inked = invoke("preview", run.run_id, "0", "--out", run.out, "--state", run.state,
                   "--boxes", "ink_box", "--output", str(tmp_path / "ink.png"))
    assert inked.returncode == 0, inked.stderr
    with Image.open(tmp_path / "ink.png") as image:
        assert image.width > 100 and image.height > 100
