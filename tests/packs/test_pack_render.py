"""The three new packs through the real Chromium: every pack x locale x condition renders
a valid PDF; on clean PDFs every field box and word box re-extracts its printed text;
receipts are one continuous narrow page exactly as tall as their rows; statements carry
their balance across pages; scans keep their boxes on the page; every template carries
the shared label markup.

The grid is split so that no one test renders much (issue 26 item 9: on a loaded
machine the whole grid in one fixture timed out): the clean documents are rendered per
pack x archetype (20 documents: 2 per locale), long receipts and multi-page statements
per archetype, scans per pack x locale. The module's tests together render what they
always did."""

from __future__ import annotations

import io
import re
from collections import Counter
from decimal import Decimal
from typing import Any

import pytest
from packlib import HEAD, PACKS, RTL, glyphs, head, pdf_of, squash
from pypdf import PdfReader

from docfleet.dataset.shards import shard_bytes
from docfleet.packs.base import RenderedDocument
from docfleet.packs.receipt.layouts import RECEIPT_LAYOUTS
from docfleet.packs.sdk.locales import JURISDICTIONS
from docfleet.render.browser import Chromium
from docfleet.render.layout import PX_TO_PT
from support.pdftext import page_texts, text_in_boxes

LOCALES = tuple(JURISDICTIONS)


def holds(word: str, text: str) -> bool:
    """Whether ``word`` is ``text`` with at most punctuation printed against it (a word
    joins touching elements: ``-50%`` is a word of the field ``50%``)."""
    return text in word and not any(c.isalnum() for c in word.replace(text, "", 1))


def render(chromium: Chromium, name: str, run_id: str, indexes: range, **options: Any
           ) -> list[RenderedDocument]:
    session = PACKS[name].session(options, chromium.executable, chromium.pages,
                                  chromium=chromium)
    try:
        return list(session.render(run_id, indexes))
    finally:
        session.close()


#: every pack x archetype: one ``clean`` fixture each, so a test renders one cell's share
PACK_ARCHETYPES = [(name, archetype) for name, pack in PACKS.items()
                   for archetype in pack.archetypes]


@pytest.fixture(scope="module", params=PACK_ARCHETYPES, ids="-".join)
def clean(request: pytest.FixtureRequest, chromium: Chromium
          ) -> dict[tuple[str, str, str], list[RenderedDocument]]:
    """Two clean documents per locale of one pack x archetype."""
    name, archetype = request.param
    return {(name, archetype, locale): render(
                chromium, name, f"r-{name}-{archetype}-{locale}", range(2),
                archetypes=archetype, locales=locale, conditions="clean")
            for locale in LOCALES}


def test_every_pack_archetype_and_locale_renders_valid_pdfs_with_valid_tables(
    clean: dict[tuple[str, str, str], list[RenderedDocument]],
) -> None:
    for (name, archetype, locale), docs in clean.items():
        tables = PACKS[name].tables({})
        for doc in docs:
            row = head(name, doc)
            assert (row["archetype"], row["locale"], row["condition"]) == \
                (archetype, locale, "clean")
            reader = PdfReader(io.BytesIO(pdf_of(doc)))
            assert len(reader.pages) == row["page_count"] >= 1
            assert float(reader.pages[0].mediabox.width) == pytest.approx(row["page_width"],
                                                                          abs=0.5)
            assert set(doc.rows) == set(tables)
            for table, schema in tables.items():
                shard_bytes(schema, doc.rows[table])  # the rows fit the declared schema
            text = squash(" ".join(page_texts(pdf_of(doc))))
            have = Counter(glyphs(text, locale))
            for field in doc.rows["fields"]:
                if locale in RTL:  # visual order: every golden character is on the page
                    assert not Counter(glyphs(field["text"], locale)) - have, \
                        (name, archetype, locale, field)
                else:
                    assert squash(field["text"]) in text, (name, archetype, locale, field)


def test_every_field_box_holds_exactly_its_printed_text(
    clean: dict[tuple[str, str, str], list[RenderedDocument]],
) -> None:
    checked = 0
    for (name, _, locale), docs in clean.items():
        for doc in docs:
            rows = doc.rows["fields"]
            for row, got in zip(rows, text_in_boxes(pdf_of(doc), rows), strict=True):
                assert glyphs(got, locale) == glyphs(row["text"], locale), \
                    (name, locale, doc.index, row, got)
                checked += 1
    assert checked > 10 * sum(len(docs) for docs in clean.values()), checked


def test_words_have_boxes_on_their_text_and_carry_their_fields(
    clean: dict[tuple[str, str, str], list[RenderedDocument]],
) -> None:
    """Latin (de-DE), CJK (ja-JP) and right-to-left Arabic (ar-SA) words sit on their
    glyphs; words follow the tokenisation rule (docs/schema.md)."""
    for (name, archetype, locale), docs in clean.items():
        if locale not in ("de-DE", "ja-JP", "ar-SA"):
            continue
        doc = docs[0]
        words = doc.rows["words"]
        got = text_in_boxes(pdf_of(doc), words)
        misses = [(w["text"], g) for w, g in zip(words, got, strict=True)
                  if glyphs(g, locale) != glyphs(w["text"], locale)]
        assert not misses, (name, archetype, locale, misses[:5])
        assert all(w["text"] and w["text"].split() == [w["text"]] for w in words)
        by_field: dict[tuple, list[str]] = {}
        for w in words:
            if w["field"] is not None:
                by_field.setdefault((w["field"], w["line"], w["occurrence"]), []).append(
                    w["text"])
        for row in doc.rows["fields"]:
            key = (row["field"], row["line"], row["occurrence"])
            if locale == "de-DE":
                # every Unicode space splits, no-break spaces included: "12,80\xa0€" is the
                # two words "12,80" and "€"
                pieces = row["text"].split()
                assert len(by_field[key]) == len(pieces), (name, key, by_field[key])
                assert all(holds(w, t) for w, t in zip(by_field[key], pieces, strict=True)), \
                    (name, key, by_field[key])
            else:  # a CJK or Arabic phrase may wrap: one word per printed line
                assert holds("".join(by_field[key]), squash(row["text"])), (name, locale, key)


@pytest.mark.parametrize("archetype", sorted(RECEIPT_LAYOUTS))
def test_receipts_are_one_continuous_narrow_page_as_tall_as_their_rows(
    chromium: Chromium, archetype: str,
) -> None:
    layout = RECEIPT_LAYOUTS[archetype]
    docs = render(chromium, "receipt", f"long-{archetype}", range(3),
                  archetypes=archetype, conditions="clean", lines="40-60")
    for doc in docs:
        row = head("receipt", doc)
        assert row["page_count"] == 1
        assert row["page_width"] == pytest.approx(layout.width * PX_TO_PT, abs=1)  # 80 or 58 mm
        height = row["page_height"]
        assert height > 1123 * PX_TO_PT  # taller than an A4 page, never split onto one
        bottom = max(w["y1"] for w in doc.rows["words"])
        tail = (layout.barcode + layout.pad_bottom + 2 * layout.line) * PX_TO_PT
        assert height - tail <= bottom < height, (archetype, height, bottom)
        items = doc.rows["receipt_items"]
        assert {i["page"] for i in items} == {1}
        assert [i["row"] for i in items] == list(range(1, len(items) + 1))
        for item in items:
            if item["kind"] == "item":
                parent = item
            else:
                assert item["item"] == parent["item"]


@pytest.mark.parametrize("archetype", PACKS["bank_statement"].archetypes)
def test_statements_carry_the_running_balance_across_pages(chromium: Chromium,
                                                          archetype: str) -> None:
    (doc,) = render(chromium, "bank_statement", f"multi-{archetype}", range(1),
                    archetypes=archetype, conditions="clean", lines="70-90")
    s = head("bank_statement", doc)
    pages = s["page_count"]
    assert pages >= 3, archetype
    txs = doc.rows["transactions"]
    balance = s["opening_balance"]
    for t in txs:
        balance += t["amount"]
        assert t["balance"] == balance
    assert balance == s["closing_balance"]
    assert sorted({t["page"] for t in txs}) == list(range(1, pages + 1))
    fields = doc.rows["fields"]
    last_on = {p: max(t["line"] for t in txs if t["page"] == p) for p in range(1, pages)}
    carried = {r["line"]: Decimal(r["value"]) for r in fields
               if r["field"] == "balance_carried_forward"}
    brought = {r["line"]: Decimal(r["value"]) for r in fields
               if r["field"] == "balance_brought_forward"}
    assert carried == {p: txs[last_on[p] - 1]["balance"] for p in range(1, pages)}
    assert brought == {p + 1: carried[p] for p in range(1, pages)}
    assert all(r["page"] == r["line"] for r in fields
               if r["field"].startswith("balance_") and r["field"] != "balance")


@pytest.mark.parametrize("locale", LOCALES)
@pytest.mark.parametrize("name", sorted(PACKS))
def test_scans_have_no_text_layer_and_keep_every_box_on_the_page(
    chromium: Chromium, name: str, locale: str,
) -> None:
    (scan,) = render(chromium, name, f"scan-{name}-{locale}", range(1), locales=locale,
                     conditions="scan")
    (clean,) = render(chromium, name, f"scan-{name}-{locale}", range(1), locales=locale,
                      conditions="clean")
    row = head(name, scan)
    assert row["condition"] == "scan"
    data = pdf_of(scan)
    assert data.startswith(b"%PDF-")
    assert all(not t.strip() for t in page_texts(data)), "scan kept a text layer"
    width, height = row["page_width"], row["page_height"]
    assert len(scan.rows["fields"]) == len(clean.rows["fields"])
    for s, c in zip(scan.rows["fields"], clean.rows["fields"], strict=True):
        assert (s["field"], s["line"], s["text"]) == (c["field"], c["line"], c["text"])
        assert 0 <= s["x0"] < s["x1"] <= width and 0 <= s["y0"] < s["y1"] <= height
        # the scan moves a box by its skew and shift only (a few points)
        assert abs(s["x0"] - c["x0"]) < 40 and abs(s["y0"] - c["y0"]) < 40
    assert scan.rows[HEAD[name]][0]["file"] == clean.rows[HEAD[name]][0]["file"]


@pytest.mark.parametrize("name", sorted(PACKS))
def test_every_template_marks_labels_and_headers_for_its_fields(name: str) -> None:
    pack = PACKS[name]
    for archetype in pack.archetypes:
        session = pack.session({"format": "html", "archetypes": archetype}, "/nonexistent", 1)
        for index in range(4):
            record, html, printed, _ = session.prepare(f"labels-{archetype}", index)
            assert record.archetype == archetype
            # column headers may name a field a document happens not to print
            labels = set(re.findall(r'data-label="([a-z_]+)"(?! data-label-scope)', html))
            assert 'data-header="title"' in html, archetype
            assert len(labels) >= 8, (archetype, labels)
            # a label names the field it labels
            assert labels <= {p.name for p in printed}, labels - {p.name for p in printed}
            if name != "receipt":
                assert 'data-label-scope="column"' in html
