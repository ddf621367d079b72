"""The form pack (issue 30) through the real Chromium: one real ``docfleet run`` over every
layout x locale x capture condition (``cover=locales,archetypes,conditions``: document
*i* is cell *i*, so 300 documents are the 300 cells), then ``docfleet verify``. On that
run: every cell is in the golden tables once; every field (typed or handwritten), label
and word box of a clean PDF re-extracts its printed text; every question with a printed
answer is linked to it and every group question to its boxes; every checkbox's state
matches the pixels of its box (an independent raster of the clean PDF: the share of
dark and inked pixels inside the box's interior); every answer marked ``overflow`` is
wider than its box and no other is. Beside it, the records' own rules and the same
bytes for the same run and index."""

from __future__ import annotations

import dataclasses
import json
from collections import defaultdict
from itertools import product
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pypdfium2 as pdfium
import pytest
from packlib import by_document, docfleet, glyphs

from docfleet.core.settings import load_settings
from docfleet.packs.form import FormPack
from docfleet.packs.form.layouts import LAYOUTS
from docfleet.packs.form.records import Option
from docfleet.packs.form.source import FormSource
from docfleet.packs.sdk.locales import JURISDICTIONS
from docfleet.packs.sdk.money import ReconciliationError
from docfleet.packs.sdk.options import CONDITIONS
from support.needs import require
from support.pdftext import page_texts, text_in_boxes

CELLS = list(product(JURISDICTIONS, LAYOUTS, CONDITIONS))
#: the raster check: pixels per point, the interior (inset of each side, of the box's
#: size), a dark pixel (< 128 of 255) and an inked one (< 200: a faint pencil too)
SCALE, INSET, DARK, INK = 4, 0.22, 128, 200
#: a checked box's interior is at least this share dark, an ambiguous one has ink but less
#: dark than that, an unchecked one has (next to) no ink
CHECKED_DARK, BLANK_INK = 0.14, 0.02


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The grid's run, verified, and its golden tables by document."""
    chromium = load_settings().chromium_path
    require(Path(chromium).exists(), f"Chromium at {chromium}")
    tmp = tmp_path_factory.mktemp("forms")
    state, out = f"sqlite:///{tmp}/state.db", f"file://{tmp}/out"
    result = docfleet(tmp, "run", "--run-id", "grid-form", "--pack", "form",
                      "--total", str(len(CELLS)), "--tasks", "2", "--unit-size", "25",
                      "--state", state, "--out", out,
                      "--option", "cover=locales,archetypes,conditions",
                      "--option", "conditions=" + ",".join(CONDITIONS))
    assert result.returncode == 0, (result.stdout[-2000:], result.stderr[-4000:])
    verify = docfleet(tmp, "verify", "grid-form", "--out", out, timeout=600)
    assert verify.returncode == 0 and "ok" in verify.stdout + verify.stderr, verify
    root = tmp / "out" / "grid-form"
    tables = {t: by_document(root, t) for t in ("fields", "labels", "links", "words",
                                               "pages", "form_entries", "form_checkboxes")}
    heads = sorted(pq.read_table(root / "golden" / "forms").to_pylist(),
                   key=lambda r: r["document"])
    return {"root": root, "heads": heads, **tables}


def clean(run: dict[str, Any]) -> list[dict]:
    return [h for h in run["heads"] if h["condition"] == "clean"]


def pdf(run: dict[str, Any], head: dict) -> bytes:
    return (run["root"] / "documents" / head["file"]).read_bytes()


@pytest.mark.fleet
@pytest.mark.timeout(1800)  # the first to ask builds the 300-document run
def test_every_layout_locale_and_condition_renders_and_verifies(run: dict[str, Any]) -> None:
    root, heads = run["root"], run["heads"]
    manifest = json.loads((root / "manifest.json").read_text())
    assert manifest["parameters"]["pack"] == "form"
    assert manifest["rows"]["forms"] == len(CELLS)
    assert [h["document"] for h in heads] == list(range(len(CELLS)))
    assert sorted((h["locale"], h["archetype"], h["condition"]) for h in heads) \
        == sorted(CELLS)
    kinds, fills, pages = set(), set(), set()
    for h in heads:
        n = h["document"]
        data = pdf(run, h)
        assert data.startswith(b"%PDF-")
        assert sorted(p["page"] for p in run["pages"][n]) == list(range(1, h["page_count"] + 1))
        assert {p["condition"] for p in run["pages"][n]} == {h["condition"]}
        if h["condition"] != "clean":  # an image of the page: no text layer
            assert all(not t.strip() for t in page_texts(data)), n
        entries, boxes = run["form_entries"][n], run["form_checkboxes"][n]
        assert h["entries"] == len(entries) and h["checkboxes"] == len(boxes)
        assert h["filled"] == sum(e["filled"] for e in entries)
        assert h["checked"] == sum(b["state"] == "checked" for b in boxes)
        fields = {(f["field"], f["occurrence"]): f for f in run["fields"][n]}
        for e in entries:  # an entry is printed exactly when it is filled
            names = [e["key"]] if e["kind"] != "date" else [
                f"{e['key']}_{p}" for p in ("day", "month", "year")]
            assert all(((name, 0) in fields) == e["filled"] for name in names), (n, e)
            assert e["handwritten"] == (e["filled"] and e["writer"] > 0), (n, e)
            assert not (e["struck_text"] and not e["filled"])
        for b in boxes:  # every box is printed, its state its field's value
            assert fields[(b["field"], 0)]["value"] == b["state"], (n, b)
            assert fields[(b["field"], 0)]["text"] == ""
        for group in {b["group"] for b in boxes if b["kind"] == "radio"}:
            assert sum(b["selected"] for b in boxes if b["group"] == group) <= 1
        kinds.add(h["form_kind"])
        fills.add(h["fill"])
        pages.add(h["page_count"])
    assert kinds == {"account", "registration", "claim", "onboarding", "customs", "medical"}
    assert fills == {"typed", "handwritten", "mixed"} and max(pages) > 1
    every = [r for n in run["form_entries"] for r in run["form_entries"][n]]
    assert {True, False} <= {r["handwritten"] for r in every}
    assert any(r["overflow"] for r in every) and any(not r["filled"] for r in every)
    assert any(r["struck_text"] for r in every)
    states = {b["state"] for n in run["form_checkboxes"] for b in run["form_checkboxes"][n]}
    assert states == {"checked", "unchecked", "ambiguous"}


@pytest.mark.fleet
@pytest.mark.timeout(1800)  # the first to ask builds the 300-document run
def test_every_box_of_a_clean_pdf_re_extracts_its_printed_text(run: dict[str, Any]) -> None:
    """Typed and handwritten answers alike (the handwriting is a font with a text
    layer), the questions, headings and every word."""
    checked = handwritten = 0
    for h in clean(run):
        n, locale = h["document"], h["locale"]
        hands = {e["key"] for e in run["form_entries"][n] if e["handwritten"]}
        boxed = run["fields"][n] + run["labels"][n] + run["words"][n]
        for row, got in zip(boxed, text_in_boxes(pdf(run, h), boxed), strict=True):
            assert glyphs(got, locale) == glyphs(row["text"], locale), (n, locale, row, got)
            checked += 1
            handwritten += row.get("field") in hands and "word" not in row
    assert checked > 60 * 100 and handwritten > 60 * 3, (checked, handwritten)


@pytest.mark.fleet
@pytest.mark.timeout(1800)  # the first to ask builds the 300-document run
def test_every_question_with_a_printed_answer_is_linked_to_it(run: dict[str, Any]) -> None:
    for h in run["heads"]:
        n = h["document"]
        labels = {lab["label_id"]: lab for lab in run["labels"][n]}
        linked: dict[str, set[str]] = defaultdict(set)  # field → the label names linking it
        for link in run["links"][n]:
            linked[link["field"]].add(labels[link["label_id"]]["name"])
        for e in run["form_entries"][n]:
            if not e["filled"]:
                continue
            names = [e["key"]] if e["kind"] != "date" else [
                f"{e['key']}_{p}" for p in ("day", "month", "year")]
            for name in names:
                assert any(name in label.split() for label in linked[name]), (n, e, name)
            question = [lab for lab in labels.values() if lab["kind"] == "label"
                        and names[0] in lab["name"].split()]
            assert question and question[0]["text"] == e["question"].strip(), (n, e)
        groups: dict[str, list[dict]] = defaultdict(list)
        for b in run["form_checkboxes"][n]:
            groups[b["group"]].append(b)
        for group, boxes in groups.items():
            whole = " ".join(b["field"] for b in boxes)  # the group's question
            for b in boxes:
                assert whole in linked[b["field"]], (n, group, linked[b["field"]])
                if b["grid"] is None:  # an option's own words name its box
                    assert b["field"] in linked[b["field"]], (n, b)


def interior(image: Any, row: dict) -> list[int]:
    w, h = row["x1"] - row["x0"], row["y1"] - row["y0"]
    box = (row["x0"] + INSET * w, row["y0"] + INSET * h, row["x1"] - INSET * w,
           row["y1"] - INSET * h)
    return list(image.crop(tuple(round(v * SCALE) for v in box)).get_flattened_data())


@pytest.mark.fleet
@pytest.mark.timeout(1800)  # the first to ask builds the 300-document run
def test_checkbox_states_match_the_pixels_of_their_boxes(run: dict[str, Any]) -> None:
    seen: dict[str, int] = defaultdict(int)
    for h in clean(run):
        n = h["document"]
        fields = {f["field"]: f for f in run["fields"][n]}
        doc = pdfium.PdfDocument(pdf(run, h))
        try:
            images: dict[int, Any] = {}
            for b in run["form_checkboxes"][n]:
                row = fields[b["field"]]
                page = row["page"]
                if page not in images:
                    images[page] = doc[page - 1].render(scale=SCALE, grayscale=True) \
                        .to_pil().convert("L")
                pixels = interior(images[page], row)
                dark = sum(v < DARK for v in pixels) / len(pixels)
                ink = sum(v < INK for v in pixels) / len(pixels)
                where = (n, b["field"], b["state"], b["mark"], round(dark, 3), round(ink, 3))
                if b["state"] == "checked":
                    assert dark >= CHECKED_DARK, where
                elif b["state"] == "unchecked":
                    assert ink < BLANK_INK, where
                else:
                    assert ink >= BLANK_INK and dark < CHECKED_DARK, where
                seen[b["state"]] += 1
        finally:
            doc.close()
    assert seen["checked"] > 100 and seen["unchecked"] > 300 and seen["ambiguous"] > 0, seen


@pytest.mark.fleet
@pytest.mark.timeout(1800)  # the first to ask builds the 300-document run
def test_an_answer_overflows_its_box_exactly_when_the_golden_truth_says(
        run: dict[str, Any]) -> None:
    overflowing = 0
    for h in clean(run):
        n = h["document"]
        fields = {f["field"]: f for f in run["fields"][n] if f["occurrence"] == 0}
        for e in run["form_entries"][n]:
            if not e["filled"] or e["kind"] != "text":
                continue
            width = fields[e["key"]]["x1"] - fields[e["key"]]["x0"]
            if e["struck_text"]:
                struck = fields[f"{e['key']}_struck"]
                width = max(fields[e["key"]]["x1"], struck["x1"]) - min(
                    fields[e["key"]]["x0"], struck["x0"])
            if e["overflow"]:
                overflowing += 1
                assert width > e["box_width"] + 4, (n, e, width)
            else:
                assert width <= e["box_width"] + 1, (n, e, width)
    assert overflowing > 0


def test_the_same_run_and_index_make_the_same_bytes() -> None:
    chromium = load_settings().chromium_path
    require(Path(chromium).exists(), f"Chromium at {chromium}")
    pack = FormPack()
    options = pack.validate_options({"cover": "locales"})
    assert pack.parse(options).content == 3  # a new run: the newest (Japanese embedded)
    made = []
    for _ in range(2):
        session = pack.session(options, chromium, 1)
        try:
            made.append([(d.files, d.rows) for d in session.render("same", [8, 9], 10)])
        finally:
            session.close()
    assert made[0] == made[1]


def test_a_form_that_does_not_add_up_refuses_to_exist() -> None:
    pack = FormPack()
    source = FormSource(pack.parse(pack.validate_options({"format": "html"})))
    form = next(f for f in (source.generate("rules", i) for i in range(40))
                if any(c.radio and len(c.options) > 1 for c in f.choices))
    radio = next(c for c in form.choices if c.radio and len(c.options) > 1)
    ticked = tuple(Option(o.key, o.text, "checked", "tick", 0, 0, 1, 0)
                   for o in radio.options)
    sections = tuple(dataclasses.replace(s, blocks=tuple(
        dataclasses.replace(b, choices=tuple(
            dataclasses.replace(c, options=ticked) if c is radio else c for c in b.choices))
        for b in s.blocks)) for s in form.sections)
    with pytest.raises(ReconciliationError, match="more than one checked"):
        dataclasses.replace(form, sections=sections)
    with pytest.raises(ReconciliationError, match="every block"):
        dataclasses.replace(form, pages=(*form.pages[:-1], ()))


def test_a_tilted_hand_may_cross_its_box_from_content_2_on() -> None:
    """Content 1 refused about 1 form in 200: a long handwritten answer, tilted and shifted
    by its jitter, reached past its answer box's top or bottom edge by under a pixel.
    Content 2 lets such a hand cross its box (``data-spill``, as real hands do): the
    same documents render, and content 1 keeps refusing them (its bytes unchanged)."""
    from docfleet.render.browser import RenderError

    chromium = load_settings().chromium_path
    require(Path(chromium).exists(), f"Chromium at {chromium}")
    pack = FormPack()
    cases = (("inkcap", 23, "street"), ("r3", 103, "employer"))
    for content in ("1", "2"):
        options = pack.validate_options({"content": content, "conditions": "clean"})
        session = pack.session(options, chromium, 1)
        try:
            for run_id, index, field in cases:
                html = session.prepare(run_id, index)[1]
                crossing = 'data-spill style="width: '  # the drifting answer's box
                assert (crossing in html.split(f'data-field="{field}"')[0].rsplit(
                    "<span class=\"ab", 1)[1]) == (content == "2"), (content, field)
                if content == "1":
                    with pytest.raises(RenderError, match=f"field {field} .* spills out"):
                        list(session.render(run_id, [index], index + 1))
                else:
                    (doc,) = session.render(run_id, [index], index + 1)
                    assert any(f["field"] == field for f in doc.rows["fields"])
        finally:
            session.close()
