"""The full grid through the real Chromium: every pack (invoice, receipt, purchase_order,
bank_statement, form) x every locale x every capture condition, one document per cell. One real
``docfleet run`` per pack (``--option cover=locales,conditions``: document *i* is cell
*i*, so 50 documents are the 50 cells), then ``docfleet verify``; every cell is in the
golden tables once, the run reconciles (totals from items, balances from transactions),
every field, label and word box of a clean PDF re-extracts its printed text, every captured page
records its condition, and the ja-JP and ar-SA documents print their own words, not the
English ones."""

from __future__ import annotations

import json
import re
from itertools import product
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from packlib import CHECKS, HEAD, PACKS, by_document, docfleet, glyphs

from docfleet.core.settings import load_settings
from docfleet.packs.bank_statement.context import LABELS as STATEMENT_LABELS
from docfleet.packs.form.vocabulary import QUESTIONS as FORM_QUESTIONS
from docfleet.packs.invoice.labels import LABELS as INVOICE_LABELS
from docfleet.packs.purchase_order.context import LABELS as ORDER_LABELS
from docfleet.packs.receipt.context import LABELS as RECEIPT_LABELS
from docfleet.packs.sdk.locales import JURISDICTIONS
from docfleet.packs.sdk.options import CONDITIONS
from support.needs import require
from support.pdftext import page_texts, text_in_boxes

NAMES = ("invoice", *PACKS, "form")
HEADS = {"invoice": "invoices", **HEAD}
CELLS = list(product(JURISDICTIONS, CONDITIONS))
#: the English words of each pack (what a locale without its own words would print)
ENGLISH = {"invoice": INVOICE_LABELS["en"], "receipt": RECEIPT_LABELS["en"],
           "purchase_order": ORDER_LABELS["en"], "bank_statement": STATEMENT_LABELS["en"],
           "form": {key: words[0] for key, words in FORM_QUESTIONS["en"].items()}}
#: the script a locale's own words are written in
SCRIPT = {"ja-JP": re.compile("[\u3040-\u30ff\u4e00-\u9fff]"),
          "ar-SA": re.compile("[\u0600-\u06ff]")}


@pytest.mark.fleet
@pytest.mark.parametrize("name", NAMES)
def test_every_locale_and_condition_renders_verifies_reconciles_and_boxes_its_text(
    tmp_path: Path, name: str,
) -> None:
    chromium = load_settings().chromium_path
    require(Path(chromium).exists(), f"Chromium at {chromium}")
    state, out = f"sqlite:///{tmp_path}/state.db", f"file://{tmp_path}/out"
    run_id = f"grid-{name}"
    total = len(CELLS)
    run = docfleet(tmp_path, "run", "--run-id", run_id, "--pack", name, "--total", str(total),
                   "--tasks", "1", "--unit-size", "10", "--state", state, "--out", out,
                   "--option", "cover=locales,conditions",
                   "--option", "conditions=" + ",".join(CONDITIONS),
                   "--option", "lines=2-6")
    assert run.returncode == 0, (run.stdout[-2000:], run.stderr[-4000:])
    verify = docfleet(tmp_path, "verify", run_id, "--out", out, timeout=300)
    assert verify.returncode == 0 and "ok" in verify.stdout + verify.stderr, verify

    root = tmp_path / "out" / run_id
    manifest = json.loads((root / "manifest.json").read_text())
    assert manifest["parameters"]["pack"] == name
    assert manifest["rows"][HEADS[name]] == total
    heads = sorted(pq.read_table(root / "golden" / HEADS[name]).to_pylist(),
                   key=lambda r: r["document"])
    assert [r["document"] for r in heads] == list(range(total))
    assert sorted((r["locale"], r["condition"]) for r in heads) == sorted(CELLS)
    CHECKS[name](root, heads)

    fields = by_document(root, "fields")
    labels = by_document(root, "labels")
    words = by_document(root, "words")
    pages = by_document(root, "pages")
    checked = 0
    for doc in heads:
        n, locale, condition = doc["document"], doc["locale"], doc["condition"]
        cell = (name, locale, condition, n)
        data = (root / "documents" / doc["file"]).read_bytes()
        assert data.startswith(b"%PDF-"), cell
        assert fields[n] and all(f["page"] is not None and f["x1"] > f["x0"]
                                 for f in fields[n]), cell
        assert sorted(p["page"] for p in pages[n]) == list(range(1, doc["page_count"] + 1))
        assert {p["condition"] for p in pages[n]} == {condition}, cell
        if condition != "clean":  # an image of the page: no text layer to read boxes from
            assert all(not t.strip() for t in page_texts(data)), cell
            continue
        assert words[n], cell
        boxed = fields[n] + labels[n] + words[n]
        for row, got in zip(boxed, text_in_boxes(data, boxed), strict=True):
            assert glyphs(got, locale) == glyphs(row["text"], locale), (cell, row, got)
            checked += 1
        if locale in SCRIPT:
            english = set(ENGLISH[name].values())
            titles = [r for r in labels[n] if r["kind"] == "header" and r["name"] == "title"]
            # a receipt names itself where real ones do (a Saudi one must); the rest always
            assert len(titles) == 1 or (name == "receipt" and locale != "ar-SA" and not titles)
            for title in titles:
                assert title["text"] not in english and SCRIPT[locale].search(title["text"]), \
                    (cell, title["text"])
            own = [r for r in labels[n] if SCRIPT[locale].search(r["text"])]
            assert len(own) >= 0.6 * len(labels[n]), (cell, [r["text"] for r in labels[n]])
    assert checked > 50 * len(JURISDICTIONS), checked
