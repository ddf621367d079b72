"""Shared helpers for the receipt / purchase_order / bank_statement tests."""

from __future__ import annotations

from typing import Any

from docfleet.packs.bank_statement import BankStatementPack
from docfleet.packs.base import RenderedDocument
from docfleet.packs.purchase_order import PurchaseOrderPack
from docfleet.packs.receipt import ReceiptPack
from docfleet.packs.templated import StepsPack

PACKS: dict[str, StepsPack] = {
    "receipt": ReceiptPack(),
    "purchase_order": PurchaseOrderPack(),
    "bank_statement": BankStatementPack(),
}
#: each pack's document table (one row per document)
HEAD = {"receipt": "receipts", "purchase_order": "purchase_orders",
        "bank_statement": "statements"}


def pdf_of(doc: RenderedDocument) -> bytes:
    (data,) = doc.files.values()
    return data


def head(name: str, doc: RenderedDocument) -> dict[str, Any]:
    (row,) = doc.rows[HEAD[name]]
    return row
