"""Dataset structure through the real Chromium: printed labels linked to their values,
table cells, the tokenisation rule, line boxes, reading order, ligatures off, page sizes
equal to the PDF MediaBox; and deterministic splits held out by seller and template."""

from __future__ import annotations

import io
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pypdf import PdfReader

from docfleet.core.settings import load_settings
from docfleet.packs.base import RenderedDocument
from docfleet.packs.invoice.options import ARCHETYPES, parse_options
from docfleet.packs.invoice.pack import InvoiceSession
from docfleet.packs.invoice.source import InvoiceSource
from docfleet.packs.sdk.locales import JURISDICTIONS
from docfleet.render.browser import Chromium
from support.needs import require
from support.pdftext import page_texts

#: every label the templates print for a value, by the field it labels
LABELLED = {"invoice_number", "issue_date", "due_date", "po_number", "buyer_name",
            "subtotal", "tax_amount", "total"}
LIGATURES = {chr(c) for c in range(0xFB00, 0xFB07)}


@pytest.fixture(scope="module")
def docs() -> Iterator[list[RenderedDocument]]:
    path = load_settings().chromium_path
    require(Path(path).exists(), f"Chromium at {path}")
    chromium = Chromium(path, pages=2)
    out: list[RenderedDocument] = []
    try:
        for archetype in ARCHETYPES:
            for locale in JURISDICTIONS:
                options = parse_options({"archetypes": archetype, "locales": locale,
                                         "conditions": "clean", "lines": "2-14"})
                session = InvoiceSession(options, path, 2, chromium=chromium)
                out.extend(session.render(f"struct-{archetype}-{locale}", range(2)))
                session.close()
        session = InvoiceSession(parse_options({"conditions": "scan", "lines": "30-40"}),
                                 path, 2, chromium=chromium)
        out.extend(session.render("struct-scan", range(2)))
        session.close()
        yield out
    finally:
        chromium.close()


def pdf_of(doc: RenderedDocument) -> bytes:
    (data,) = doc.files.values()
    return data


def inside(inner: dict[str, Any], outer: dict[str, Any], slack: float = 0.6) -> bool:
    return (inner["x0"] >= outer["x0"] - slack and inner["y0"] >= outer["y0"] - slack
            and inner["x1"] <= outer["x1"] + slack and inner["y1"] <= outer["y1"] + slack)


def on_line(word: dict[str, Any], box: dict[str, Any], slack: float = 0.6) -> bool:
    """The word lies on the line box's line and overlaps it."""
    return (word["y0"] >= box["y0"] - slack and word["y1"] <= box["y1"] + slack
            and word["x0"] < box["x1"] and word["x1"] > box["x0"])


def test_page_size_is_the_pdf_mediabox(docs: list[RenderedDocument]) -> None:
    for doc in docs:
        inv = doc.rows["invoices"][0]
        for page in PdfReader(io.BytesIO(pdf_of(doc))).pages:
            box = page.mediabox
            assert float(box.width) == pytest.approx(inv["page_width"], abs=1e-3)
            assert float(box.height) == pytest.approx(inv["page_height"], abs=1e-3)


def test_no_ligature_in_any_text_layer(docs: list[RenderedDocument]) -> None:
    text = "".join(t for doc in docs for t in page_texts(pdf_of(doc)))
    assert len(text) > 20_000
    assert not LIGATURES & set(text)
    assert "ff" in text or "fi" in text  # the letters ligatures would have replaced


def test_every_label_links_to_printed_values(docs: list[RenderedDocument]) -> None:
    for doc in docs:
        rows = doc.rows
        labels = {r["label_id"]: r for r in rows["labels"]}
        fields = {(f["field"], f["line"], f["occurrence"]): f for f in rows["fields"]}
        assert {r["kind"] for r in labels.values()} == {"label", "header"}
        linked: dict[str, set[int]] = defaultdict(set)
        for link in rows["links"]:
            label = labels[link["label_id"]]
            value = fields[(link["field"], link["line"], link["occurrence"])]
            assert link["field"] in label["name"].split()
            assert value["page"] == label["page"] == link["page"]
            linked[link["field"]].add(link["label_id"])
        printed = {f["field"] for f in rows["fields"]}
        for name in LABELLED & printed:
            assert linked[name], (doc.rows["invoices"][0]["archetype"], name)
        # a column header links every cell of its column on its page
        for label in labels.values():
            if label["scope"] == "column":
                want = {(f["field"], f["line"], f["occurrence"]) for f in rows["fields"]
                        if f["field"] in label["name"].split() and f["line"] is not None
                        and f["page"] == label["page"]
                        and f["field"] not in ("tax_rate", "tax_base", "tax_amount")}
                got = {(k["field"], k["line"], k["occurrence"]) for k in rows["links"]
                       if k["label_id"] == label["label_id"]}
                assert got == want and got, label
        # label words carry their label id and spell its text
        by_label: dict[int, list[str]] = defaultdict(list)
        for w in rows["words"]:
            if w["label_id"] is not None:
                by_label[w["label_id"]].append(w["text"])
        for lid, label in labels.items():
            assert "".join(label["text"].split()) in "".join(by_label[lid]), label


def test_line_item_tables_have_cells_rows_columns_and_a_header_row(
    docs: list[RenderedDocument],
) -> None:
    tabled = [d for d in docs if d.rows["invoices"][0]["archetype"] != "receipt"]
    assert tabled
    for doc in tabled:
        cells = doc.rows["cells"]
        assert cells and {c["table"] for c in cells} == {"line_items"}
        assert [c["cell"] for c in cells] == list(range(len(cells)))
        by_table = defaultdict(list)
        for c in cells:
            by_table[(c["page"], c["table_index"])].append(c)
        lines = {r["line"] for r in doc.rows["line_items"]}
        seen = set()
        for table in by_table.values():
            header = [c for c in table if c["row"] == 0]
            assert header and all(c["header"] for c in header)
            body = [c for c in table if c["row"] > 0]
            assert not any(c["header"] for c in body)
            columns = {c["column"] for c in header}
            for c in body:
                assert c["column"] in columns
                seen.add(c["line"])
        assert seen == lines


def test_words_follow_the_tokenisation_rule_and_lines_hold_them(
    docs: list[RenderedDocument],
) -> None:
    for doc in docs:
        words, lines = doc.rows["words"], doc.rows["lines"]
        by_line = {(t["page"], t["text_line"]): t for t in lines}
        per_page: dict[int, list[dict]] = defaultdict(list)
        for w in words:
            assert w["text"] and not any(c.isspace() for c in w["text"]), w
            per_page[w["page"]].append(w)
            assert inside(w, by_line[(w["page"], w["text_line"])]), w
        for page, page_words in per_page.items():
            assert [w["word"] for w in page_words] == list(range(len(page_words)))
            # reading order: line numbers never go back; each line's words are contiguous
            numbers = [w["text_line"] for w in page_words]
            assert numbers == sorted(numbers)
            page_lines = sorted((t for t in lines if t["page"] == page),
                                key=lambda t: t["text_line"])
            assert [t["text_line"] for t in page_lines] == list(range(len(page_lines)))
            for t in page_lines:
                members = page_words[t["first_word"]:t["first_word"] + t["words"]]
                assert t["text"] == " ".join(w["text"] for w in members)
        # a wrapped value has one box per printed line, each holding its own words only
        for f in doc.rows["fields"]:
            boxes = f["line_boxes"]
            assert boxes
            own = [w for w in words if (w["field"], w["line"], w["occurrence"])
                   == (f["field"], f["line"], f["occurrence"])]
            for w in own:  # (a word may add touching punctuation: "-5%" of field "5%")
                assert any(on_line(w, b) for b in boxes), (f, w)
            if len(boxes) > 1:
                ys = [b["y0"] for b in boxes]
                assert ys == sorted(ys)


def test_no_break_spaces_split_words() -> None:
    money = JURISDICTIONS["fr-FR"].money(__import__("decimal").Decimal("1234.50"))
    assert "\u00a0" in money or "\u202f" in money
    assert len(money.split()) >= 2  # the rule docs/schema.md states: any space splits


def _sources(**options: str) -> list[Any]:
    source = InvoiceSource(parse_options({"format": "html", **options}))
    return [source.generate("splits", i) for i in range(400)]


def test_splits_are_deterministic_and_follow_the_ratios() -> None:
    a = [i.split for i in _sources(splits="train:0.6,validation:0.2,test:0.2")]
    b = [i.split for i in _sources(splits="train:0.6,validation:0.2,test:0.2")]
    assert a == b
    counts = {s: a.count(s) for s in ("train", "validation", "test")}
    assert 0.5 < counts["train"] / len(a) < 0.7 and counts["test"] > 40, counts


def test_split_held_out_by_seller_shares_no_seller() -> None:
    docs = _sources(split_by="seller", locales="en-US")
    sellers: dict[str, set[str]] = defaultdict(set)
    for inv in docs:
        sellers[inv.seller.name.casefold()].add(inv.split)
    assert all(len(s) == 1 for s in sellers.values())
    assert any(len([d for d in docs if d.seller.name.casefold() == k]) > 1 for k in sellers)
    assert {d.split for d in docs} == {"train", "validation", "test"}


def test_split_held_out_by_template_shares_no_archetype() -> None:
    docs = _sources(split_by="template")
    splits: dict[str, set[str]] = defaultdict(set)
    for inv in docs:
        splits[inv.archetype].add(inv.split)
    assert all(len(s) == 1 for s in splits.values())
    assert {d.split for d in docs} == {"train", "validation", "test"}


def test_bad_split_options_are_clear_errors() -> None:
    from docfleet.core.errors import ConfigError

    for bad, needle in (({"splits": "train:1,dev:1"}, "unknown split"),
                        ({"splits": "train:x"}, "not a number"),
                        ({"splits": "train:0"}, "ratio of 0"),
                        ({"split_by": "buyer"}, "split_by")):
        with pytest.raises(ConfigError, match=needle):
            parse_options(bad)
