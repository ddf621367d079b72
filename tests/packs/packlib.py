"""Shared helpers for the pack tests (receipt, purchase_order, bank_statement, form; the
run reconciliation checks also for the invoice)."""

from __future__ import annotations

import subprocess
import sys
from collections import defaultdict
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from docfleet.packs.bank_statement import BankStatementPack
from docfleet.packs.base import RenderedDocument
from docfleet.packs.form import FormPack
from docfleet.packs.purchase_order import PurchaseOrderPack
from docfleet.packs.receipt import ReceiptPack
from docfleet.packs.sdk.locales import JURISDICTIONS
from docfleet.packs.sdk.money import round_money
from docfleet.packs.sdk.pack import TemplatedPack
from support.pdftext import normalise

PACKS: dict[str, TemplatedPack] = {
    "receipt": ReceiptPack(),
    "purchase_order": PurchaseOrderPack(),
    "bank_statement": BankStatementPack(),
}
#: the form pack (its own tests: test_form_pack.py; the grid and cover tests include it)
FORM = FormPack()
#: each pack's document table (one row per document)
HEAD = {"receipt": "receipts", "purchase_order": "purchase_orders",
        "bank_statement": "statements", "form": "forms"}


def docfleet(cwd: Path, *args: str, timeout: float = 1800) -> subprocess.CompletedProcess:
    """The ``docfleet`` CLI in a process of its own, in ``cwd``."""
    return subprocess.run([sys.executable, "-m", "docfleet", *args], capture_output=True,
                          text=True, timeout=timeout, cwd=cwd)


def by_document(root: Path, table: str) -> dict[int, list[dict]]:
    """A run's golden ``table`` (all its shards under ``root``) by document."""
    out: dict[int, list[dict]] = defaultdict(list)
    for row in pq.read_table(root / "golden" / table).to_pylist():
        out[row["document"]].append(row)
    return out


def pdf_of(doc: RenderedDocument) -> bytes:
    (data,) = doc.files.values()
    return data


def head(name: str, doc: RenderedDocument) -> dict[str, Any]:
    (row,) = doc.rows[HEAD[name]]
    return row


#: right-to-left locales (ar-SA): pdfium returns their characters in visual order, so a
#: box is checked to hold exactly the golden characters (as a multiset), not their order
RTL = {loc for loc, jur in JURISDICTIONS.items() if jur.direction == "rtl"}


def squash(text: str) -> str:
    return "".join(normalise(text).split())


#: bidi mirrored pairs: right-to-left text prints "(" as the glyph ")"
_MIRRORED = str.maketrans(")]}>»", "([{<«")


def glyphs(text: str, locale: str) -> str:
    """What a box check compares: the squashed text, sorted (mirrored brackets as one)
    for right-to-left locales."""
    squashed = squash(text)
    return "".join(sorted(squashed.translate(_MIRRORED))) if locale in RTL else squashed


# -- reconciliation of a finished run's golden tables, per pack ----------------------------

def check_receipts(root: Path, heads: list[dict]) -> None:
    items = defaultdict(list)
    for row in pq.read_table(root / "golden" / "receipt_items").to_pylist():
        items[row["document"]].append(row)
    for r in heads:
        rows = items[r["document"]]
        assert [x["row"] for x in rows] == list(range(1, len(rows) + 1))
        net = sum((x["amount"] * (-1 if x["kind"] == "discount" else 1) for x in rows),
                  Decimal(0))
        assert net == r["subtotal"]
        assert r["total"] == r["subtotal"] + (0 if r["tax_inclusive"] else r["tax_total"])
        # content version 2: a cash rounding where the locale rounds cash to 0.05
        due = r.get("amount_due", r["total"])
        assert due == r["total"] + r.get("rounding", 0)
        assert r["change"] == r["tendered"] - due >= 0


def check_orders(root: Path, heads: list[dict]) -> None:
    lines = defaultdict(list)
    for row in pq.read_table(root / "golden" / "order_lines").to_pylist():
        lines[row["document"]].append(row)
    for po in heads:
        rows = lines[po["document"]]
        assert len(rows) == po["line_count"]
        assert sum((x["amount"] for x in rows), Decimal(0)) == po["subtotal"]
        assert po["total"] == po["subtotal"] + po["tax_total"]
        # content 3: a requested date is null where the order prints no such column
        assert all(x["requested_date"] is None or x["requested_date"] >= po["issue_date"]
                   for x in rows)
        if po.get("blanket_value") is not None:  # content 3's blanket order
            assert po["total"] <= po["released_to_date"] <= po["blanket_value"]


def check_statements(root: Path, heads: list[dict]) -> None:
    txs = defaultdict(list)
    for row in pq.read_table(root / "golden" / "transactions").to_pylist():
        txs[row["document"]].append(row)
    for s in heads:
        balance = s["opening_balance"]
        for t in sorted(txs[s["document"]], key=lambda t: t["line"]):
            balance += t["amount"]
            assert t["balance"] == balance
        assert balance == s["closing_balance"]


def check_invoices(root: Path, heads: list[dict]) -> None:
    """docs/schema.md's identities: subtotal from the lines, each rate's base and amount,
    total = subtotal + tax total (in the currency's minor unit)."""
    lines = defaultdict(list)
    for row in pq.read_table(root / "golden" / "line_items").to_pylist():
        lines[row["document"]].append(row)
    for inv in heads:
        rows = lines[inv["document"]]
        assert len(rows) == inv["line_count"]
        assert sum((x["net_amount"] for x in rows), Decimal(0)) == inv["subtotal"]
        assert sum((x["discount_amount"] for x in rows), Decimal(0)) == inv["discount_total"]
        for tax in inv["taxes"]:
            base = sum((x["net_amount"] for x in rows if x["tax_rate"] == tax["rate"]),
                       Decimal(0))
            assert tax["base"] == base
            assert tax["amount"] == round_money(base * tax["rate"] / 100, inv["currency"])
        assert inv["tax_total"] == sum((t["amount"] for t in inv["taxes"]), Decimal(0))
        assert inv["total"] == inv["subtotal"] + inv["tax_total"]


def check_forms(root: Path, heads: list[dict]) -> None:
    """A form's counts are its rows': entries, filled ones, boxes and checked ones."""
    entries, boxes = defaultdict(list), defaultdict(list)
    for row in pq.read_table(root / "golden" / "form_entries").to_pylist():
        entries[row["document"]].append(row)
    for row in pq.read_table(root / "golden" / "form_checkboxes").to_pylist():
        boxes[row["document"]].append(row)
    for f in heads:
        rows, ticks = entries[f["document"]], boxes[f["document"]]
        assert (f["entries"], f["filled"]) == (len(rows), sum(r["filled"] for r in rows))
        assert (f["checkboxes"], f["checked"]) == (
            len(ticks), sum(r["state"] == "checked" for r in ticks))


CHECKS = {"invoice": check_invoices, "receipt": check_receipts, "purchase_order": check_orders,
          "bank_statement": check_statements, "form": check_forms}
