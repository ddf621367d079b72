"""This round's content versions (issue 25: receipt, invoice and purchase order 3, bank
statement 4): every pack meets the diversity targets on a small real run, the new printed
values are golden fields whose golden rows agree with what is printed, money is exact.
(The byte pins of older versions are ``test_content_versions.py``.)
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from decimal import Decimal
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from docfleet.core.settings import load_settings
from docfleet.export import diversity
from docfleet.export.reader import RunReader
from docfleet.packs import load_pack
from docfleet.packs.purchase_order.extras import SHOW
from docfleet.packs.sdk.money import round_money
from support.needs import require


def run(tmp: Path, pack: str, total: int, *options: str) -> Path:
    opts = [x for o in options for x in ("--option", o)]
    done = subprocess.run(
        [sys.executable, "-m", "docfleet", "run", "--run-id", "r", "--pack", pack,
         "--total", str(total), "--tasks", "2", "--state", f"sqlite:///{tmp}/state.db",
         "--out", f"file://{tmp}/out", "--log-dir", str(tmp / "logs"), *opts],
        capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return tmp / "out" / "r"


def test_every_language_has_the_label_variants_the_target_needs() -> None:
    """The pools the keys of total, date and number are drawn from hold at least the
    target's count of case-folded variants in every language (so a 1,000-document run can
    print them; ``bench/diversity.py`` measures that it does)."""
    from docfleet.packs.bank_statement.vocabulary import VARIANTS as statement
    from docfleet.packs.invoice.vocabulary import VARIANTS as invoice
    from docfleet.packs.purchase_order.vocabulary import VARIANTS_V3 as order

    def distinct(words: tuple[str, ...]) -> int:
        return len({" ".join(w.casefold().split()) for w in words})

    for pools, keys in ((statement, ("statement_number", "issue_date", "closing_balance")),
                        (invoice, ("invoice_number", "issue_date", "total")),
                        (order, ("po_number", "issue_date", "total"))):
        for lang, words in pools.items():
            for key in keys:
                assert distinct(words[key]) >= diversity.TARGET_LABELS_PER_LANGUAGE, (lang, key)


def newest(pack: str) -> list:
    p = load_pack(pack)
    source = p.source(p.validate_options({"format": "html"}))
    return [source.generate("realism", i) for i in range(400)]


def test_orders_print_optional_parts_on_some_orders_and_look_alikes_above_the_total() -> None:
    orders = newest("purchase_order")
    assert {po.content for po in orders} == {6}  # the newest (5 with Japanese embedded)
    for part in SHOW:
        share = sum(part in po.extras.shown for po in orders) / len(orders)
        assert 0.1 < share < 0.3, (part, share)
    above = 0
    for po in orders:
        x = po.extras
        amounts = [a for a in x.amounts().values() if a is not None]
        assert all(a == round_money(a, po.currency) for a in amounts)
        if x.budget_amount is not None:
            assert x.budget_amount > po.total
        if x.blanket_value is not None:
            assert po.total <= x.released_to_date <= x.blanket_value
        above += any(a > po.total for a in amounts)
    assert 0.4 < above / len(orders) < 0.7, above


@pytest.mark.fleet
def test_order_golden_rows_are_null_exactly_where_nothing_is_printed(tmp_path: Path) -> None:
    chromium = load_settings().chromium_path
    require(Path(chromium).exists(), f"Chromium at {chromium}")
    root = run(tmp_path, "purchase_order", 60, "format=pdf", "conditions=clean")
    heads = pq.read_table(root / "golden" / "purchase_orders").to_pylist()
    lines = pq.read_table(root / "golden" / "order_lines").to_pylist()
    fields = pq.read_table(root / "golden" / "fields").to_pylist()
    names = Counter(f["field"] for f in fields)
    printed = {(f["document"], f["field"]) for f in fields}
    for name in ("incoterm", "delivery_place", "supplier_number", "buyer_tax_id",
                 "supplier_tax_id", "budget_amount", "blanket_value", "released_to_date",
                 "credit_limit"):
        for head in heads:
            assert (head[name] is not None) == ((head["document"], name) in printed), \
                (name, head["document"])
    assert names["requested_date"] == sum(r["requested_date"] is not None for r in lines)
    for f in fields:
        if f["field"] in ("budget_amount", "blanket_value", "credit_limit"):
            head = heads[[h["document"] for h in heads].index(f["document"])]
            assert Decimal(f["value"]) == head[f["field"]]
    links = pq.read_table(root / "golden" / "links").to_pylist()  # every key is linked
    linked = {(x["document"], x["field"]) for x in links}
    for f in fields:
        if f["field"] in ("budget_amount", "blanket_value", "credit_limit", "incoterm"):
            assert (f["document"], f["field"]) in linked, f


#: every figure but the label counts holds on a 400-document run (labels per language need
#: the issue's 1,000 documents: ja and ar get ~40 documents each here; their pools are
#: held by ``test_every_language_has_the_label_variants_the_target_needs``); a free line
#: flagged in a language with fewer than 100 documents here is not judged
#: (``bench/diversity.py`` judges it on 1,000)
@pytest.mark.fleet
@pytest.mark.parametrize("pack", ["purchase_order", "bank_statement", "invoice"])
def test_a_small_run_meets_the_diversity_targets(tmp_path: Path, pack: str) -> None:
    chromium = load_settings().chromium_path
    require(Path(chromium).exists(), f"Chromium at {chromium}")
    run(tmp_path, pack, 400, "format=pdf", "conditions=clean")
    report = diversity.measure_run(RunReader(f"file://{tmp_path}/out", "r"))
    # a free line's share is per language: over the ~40 ja or ar documents of this run it
    # is noise (one document moves it 2.5 points), so those are judged on 100 or more
    sure = [e for e in report["flagged"]
            if e.get("language") is None or report["languages"][e["language"]] >= 100]
    missed = [f"{f.name}: {f.shown}" for f in diversity.figures(report)
              if f.passed is False and "distinct labels" not in f.name
              and not (f.key == "optional" and not sure)]
    assert not missed, (missed, report["flagged"])


def test_statements_print_references_and_value_dates_for_some_banks_only() -> None:
    """Statement content 4: a reference (column or under the description) and a value
    date are each on fewer than 30 % of statements (most banks print neither)."""
    statements = newest("bank_statement")
    assert {s.content for s in statements} == {6}  # the newest (5 with Japanese embedded)
    refs = sum(any(t.reference for t in s.transactions) for s in statements) / 400
    values = sum(any(t.value_date for t in s.transactions) for s in statements) / 400
    assert 0.15 < refs < 0.3, refs
    assert 0.12 < values < 0.3, values


def test_receipts_print_a_subtotal_equal_to_the_total_on_about_a_fifth() -> None:
    """Receipt content 3: of the receipts printing a subtotal and a total, about a fifth
    print equal amounts (real receipts); a long date never shares a row with its time
    past the paper's width."""
    from docfleet.packs.receipt.context import blocks
    from docfleet.packs.receipt.layouts import RECEIPT_LAYOUTS
    from docfleet.packs.receipt.pieces import width

    receipts = newest("receipt")
    both = [r for r in receipts if not r.tax_inclusive or "subtotal" in r.style.show]
    equal = sum(r.subtotal == r.total for r in both) / len(both)
    assert 0.1 < equal < 0.3, equal
    for r in receipts:
        cols = RECEIPT_LAYOUTS[r.archetype].columns
        for row in (x for block in blocks(r) for x in block):
            names = {p["f"].name for p in row["left"] + row["right"] if p["f"] is not None}
            if "issue_time" in names:
                assert width(row["left"]) + width(row["right"]) <= cols, (r.document, row)


def test_arabic_documents_read_right() -> None:
    """ar-SA at this round's versions: no English glued to Arabic place or company names,
    no line ending on a bound word ("آل", "بن", a title), no street cut from its
    district (issue 25 item 5)."""
    from docfleet.packs.sdk.text import BOUND_WORDS

    def latin(text: str) -> bool:
        return any(ch.isascii() and ch.isalpha() for ch in text)

    def bound_end(text: str) -> bool:
        return text.split()[-1].rstrip("،,") in BOUND_WORDS

    for pack in ("purchase_order", "bank_statement", "receipt"):
        p = load_pack(pack)
        source = p.source(p.validate_options({"format": "html", "locales": "ar-SA"}))
        for record in (source.generate("arabic", i) for i in range(120)):
            if pack == "purchase_order":
                assert not latin(record.delivery_place), record.delivery_place
                lines = record.ship_to
            elif pack == "bank_statement":
                lines = (*record.holder_address, *record.bank_address)
                for t in record.transactions:
                    assert not latin(t.description) and not bound_end(t.description), \
                        t.description
            else:
                lines = record.store.address
            for line in lines:
                assert not bound_end(line), (pack, line)


def test_merchants_buyers_and_suppliers_repeat_with_a_long_tail() -> None:
    """Receipt and order content 3 draw merchants, buyers and suppliers from per-run
    long-tail pools (sdk.parties.pooled_party, as invoices' sellers): some issue many
    documents, most few, and a party is the same company wherever it appears."""
    from collections import defaultdict

    for pack, role in (("receipt", lambda r: r.store.address),
                       ("purchase_order", lambda r: r.buyer),
                       ("purchase_order", lambda r: r.supplier)):
        records = newest(pack)
        counts = Counter(role(r) for r in records)
        assert max(counts.values()) >= 3, pack
        assert 0.5 * len(records) < len(counts) < 0.95 * len(records), (pack, len(counts))
    names = defaultdict(set)
    for po in newest("purchase_order"):
        names[po.buyer.address].add((po.buyer.name, po.buyer.tax_id))
    assert all(len(ids) == 1 for ids in names.values())
