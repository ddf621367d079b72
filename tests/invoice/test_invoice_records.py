"""Invoice records without a browser: reconciliation, determinism across processes,
formatting, option validation."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from decimal import Decimal

import pytest
from markupsafe import escape

from docfleet.core.errors import ConfigError
from docfleet.core.settings import load_settings
from docfleet.dataset.shards import shard_bytes
from docfleet.packs import load_pack
from docfleet.packs.base import DocumentSource, pack_context
from docfleet.packs.invoice.options import parse_options
from docfleet.packs.invoice.source import InvoiceSource
from docfleet.packs.sdk.locales import JURISDICTIONS
from docfleet.packs.sdk.money import ReconciliationError, cents
from docfleet.packs.sdk.pack import TemplatedPack

ALL = parse_options({})
MANY_LINES = parse_options({"lines": "1-60"})

#: prints a digest of the records and html-format golden rows (no browser) of 0..59
DIGEST_SCRIPT = """
import hashlib, sys
from docfleet.packs.invoice.options import parse_options
from docfleet.packs.invoice.pack import InvoicePack, InvoiceSession
from docfleet.dataset.shards import shard_bytes
pack = InvoicePack()
opts = parse_options({"format": "html"})
session = InvoiceSession(opts, "/nonexistent", 1)
h = hashlib.sha256()
rows = {t: [] for t in pack.tables({})}
for doc in session.render("det-run", range(60)):
    h.update(repr(session.source.generate("det-run", doc.index)).encode())
    for name, data in sorted(doc.files.items()):
        h.update(name.encode() + data)
    for t, r in doc.rows.items():
        rows[t].extend(r)
for t, schema in pack.tables({}).items():
    h.update(shard_bytes(schema, rows[t]))
print(h.hexdigest())
"""


def test_pack_is_registered_and_templated() -> None:
    pack = load_pack("invoice")
    assert isinstance(pack, TemplatedPack)
    assert isinstance(pack.source({}), DocumentSource)
    assert set(pack.tables({})) == {"invoices", "line_items", "fields", "words", "lines",
                                    "labels", "links", "cells", "pages"}
    assert set(pack.archetypes) == {"classic", "sidebar", "receipt", "boxed", "modern",
                                    "ledger", "credit_note", "multi_currency"}


@pytest.mark.parametrize("options", [ALL, MANY_LINES], ids=["default", "many-lines"])
def test_thousands_of_records_reconcile(options) -> None:
    source = InvoiceSource(options)
    seen = set()
    for index in range(2500):
        inv = source.generate("reconcile", index)
        seen.add((inv.locale, inv.archetype))
        places = 0 if inv.currency == "JPY" else 2  # yen has no minor unit
        for item in inv.lines:
            gross = cents(item.quantity * item.unit_price, places)
            assert item.net_amount == gross - cents(gross * item.discount_percent / 100, places)
        assert inv.subtotal == sum(i.net_amount for i in inv.lines)
        for tax in inv.taxes:
            base = sum(i.net_amount for i in inv.lines if i.tax_rate == tax.rate)
            assert tax.base == base and tax.amount == cents(base * tax.rate / 100, places)
        assert inv.total == inv.subtotal + sum(t.amount for t in inv.taxes) == \
            inv.subtotal + inv.tax_total
        for amount in (inv.subtotal, inv.tax_total, inv.total):
            assert amount.as_tuple().exponent == -places
    assert len(seen) == 80  # every archetype x locale drawn


def test_several_tax_rates_and_pricing_kinds_occur() -> None:
    source = InvoiceSource(ALL)
    rates, kinds = set(), set()
    for index in range(400):
        inv = source.generate("mix", index)
        rates |= {(inv.locale, t.rate) for t in inv.taxes}
        kinds |= {i.pricing for i in inv.lines}
    assert kinds == {"flat", "tiered", "metered"}
    for locale in JURISDICTIONS:
        assert len({r for loc, r in rates if loc == locale}) >= 2, locale


def test_a_record_that_does_not_reconcile_refuses_to_exist() -> None:
    inv = InvoiceSource(ALL).generate("refuse", 1)
    with pytest.raises(ReconciliationError, match="total"):
        dataclasses.replace(inv, total=inv.total + Decimal("0.01"))
    with pytest.raises(ReconciliationError):
        dataclasses.replace(inv, subtotal=inv.subtotal - Decimal("0.01"))
    line = dataclasses.replace(inv.lines[0], net_amount=inv.lines[0].net_amount + 1)
    with pytest.raises(ReconciliationError, match="line 1"):
        dataclasses.replace(inv, lines=(line, *inv.lines[1:]))


def test_same_index_same_record_and_rows_across_processes() -> None:
    digests = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run([sys.executable, "-c", DIGEST_SCRIPT], env=env, check=True,
                             capture_output=True, text=True, timeout=120)
        digests.append(out.stdout.strip())
    assert digests[0] == digests[1] and len(digests[0]) == 64


def test_html_format_golden_rows_fit_the_schemas() -> None:
    pack = load_pack("invoice")
    options = pack.validate_options({"format": "html"})
    session = pack.open(options, pack_context(pack, "html-run", load_settings()))
    try:
        docs = list(session.render("html-run", range(8)))
    finally:
        session.close()
    for doc in docs:
        (name, data), = doc.files.items()
        assert name == f"{doc.index:06d}.html" and data.startswith(b"<!doctype html>")
        assert doc.rows["words"] == []
        page = data.decode()
        for row in doc.rows["fields"]:
            assert row["page"] is None and row["x0"] is None
            assert str(escape(row["text"])) in page
    for table, schema in pack.tables(options).items():
        shard_bytes(schema, [r for d in docs for r in d.rows[table]])


@pytest.mark.parametrize(
    ("locale", "amount", "text"),
    [
        ("en-US", "1234567.5", "$1,234,567.50"),
        ("en-GB", "0.05", "£0.05"),
        ("fr-FR", "1234.5", "1\u00a0234,50\u00a0€"),
        ("de-DE", "1234567.891", "1.234.567,89\u00a0€"),
    ],
)
def test_money_is_printed_in_the_locale_format(locale: str, amount: str, text: str) -> None:
    assert JURISDICTIONS[locale].money(Decimal(amount)) == text


@pytest.mark.parametrize(
    ("options", "needle"),
    [
        ({"format": "docx"}, "format='docx' is not supported"),
        ({"archetypes": "classic,fancy"}, "unknown value 'fancy'"),
        ({"locales": "zh-CN"}, "unknown value 'zh-CN'"),
        ({"conditions": "clean:-1"}, "must be >= 0"),
        ({"conditions": "clean:0"}, "selects nothing"),
        ({"format": "html", "conditions": "scan"}, "scan needs format pdf"),
        ({"lines": "0-5"}, "out of range"),
        ({"lines": "many"}, "is not MIN-MAX"),
        ({"colour": "red"}, "has no option colour"),
    ],
)
def test_bad_options_are_clear_config_errors(options: dict, needle: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_pack("invoice").validate_options(options)
    assert needle in str(info.value)


def test_options_normalise_idempotently() -> None:
    pack = load_pack("invoice")
    once = pack.validate_options({"archetypes": "receipt:1,classic:3", "locales": ["fr-FR"],
                                  "conditions": '{"scan": 1}', "lines": "5"})
    assert once == pack.validate_options(once)
    assert once["archetypes"] == {"classic": 3.0, "receipt": 1.0}
    assert once["lines"] == "5-5"
    json.dumps(once)  # joins the run fingerprint



def test_a_bad_option_on_the_command_line_is_one_clear_line(tmp_path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "docfleet", "work", "--run-id", "r1", "--total", "10",
         "--state", f"sqlite:///{tmp_path}/s.db", "--out", f"file://{tmp_path}/out",
         "--option", "conditions=scan", "--option", "format=html"],
        capture_output=True, text=True, timeout=60)
    assert result.returncode == 2, result.stderr
    assert "scan needs format pdf" in result.stderr and "Traceback" not in result.stderr


def test_a_missing_chromium_is_a_config_error_naming_the_setting() -> None:
    from docfleet.render.browser import Chromium

    with pytest.raises(ConfigError) as info:
        Chromium("/nonexistent/chromium", 1)
    assert "DOCFLEET_CHROMIUM_PATH" in str(info.value)
