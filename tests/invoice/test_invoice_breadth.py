"""Breadth of the invoice pack without a browser: identifiers valid by their own rules,
national phone formats, legal-entity names, whole piece quantities, the ja-JP and ar-SA
conventions, credit notes and converted totals, a vocabulary diverse enough without an LLM,
and catalogue text (taglines, payment terms, notes) reaching the page."""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter
from decimal import Decimal
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from stdnum import iban, luhn
from stdnum.at import uid as at_uid
from stdnum.au import abn as au_abn
from stdnum.ch import uid as ch_uid
from stdnum.de import vat as de_vat
from stdnum.fr import siren as fr_siren
from stdnum.fr import siret as fr_siret
from stdnum.fr import tva as fr_tva
from stdnum.gb import vat as gb_vat
from stdnum.jp import cn as jp_cn
from stdnum.us import ein as us_ein

from docfleet.dataset.catalogue import Catalogue, CatalogueEntry
from docfleet.packs.invoice.archetypes import ARCHETYPE_SPECS
from docfleet.packs.invoice.options import ARCHETYPES, parse_options
from docfleet.packs.invoice.pack import InvoiceSession
from docfleet.packs.invoice.records import Invoice
from docfleet.packs.invoice.source import InvoiceSource
from docfleet.packs.sdk.identifiers import LEGAL_FORMS
from docfleet.packs.sdk.locales import JURISDICTIONS
from docfleet.packs.sdk.money import cents
from docfleet.packs.sdk.products import PRODUCT_LINES

RECORDS = 3000


@pytest.fixture(scope="module")
def invoices() -> list[Invoice]:
    source = InvoiceSource(parse_options({}))
    return [source.generate("breadth", i) for i in range(RECORDS)]


def test_ten_locales_and_eight_archetypes_are_drawn(invoices: list[Invoice]) -> None:
    assert len(JURISDICTIONS) >= 10 and {"ja-JP", "ar-SA"} <= set(JURISDICTIONS)
    assert len(ARCHETYPES) >= 8 and {"credit_note", "multi_currency"} <= set(ARCHETYPES)
    assert set(ARCHETYPE_SPECS) == set(ARCHETYPES)
    assert {(i.locale, i.archetype) for i in invoices} == {
        (loc, a) for loc in JURISDICTIONS for a in ARCHETYPES}


# -- independent implementations of the rules the issue names (not stdnum's code) ----------

def _mod_11_10(number: str) -> bool:
    product = 10
    for digit in number[:-1]:
        total = (int(digit) + product) % 10 or 10
        product = (2 * total) % 11
    return (11 - product) % 10 == int(number[-1])


def _gb_ok(digits: str) -> bool:
    total = sum(w * int(d) for w, d in zip((8, 7, 6, 5, 4, 3, 2), digits[:7], strict=True))
    total += int(digits[7:9])
    return total % 97 == 0 or (total + 55) % 97 == 0


def _luhn_ok(number: str) -> bool:
    total = 0
    for k, digit in enumerate(reversed(number)):
        d = int(digit) * (2 if k % 2 else 1)
        total += d - 9 if d > 9 else d
    return total % 10 == 0


def _tax_ids(invoice: Invoice) -> list[str]:
    return [t for t in (invoice.seller.tax_id, invoice.buyer.tax_id) if t]


def test_identifiers_pass_their_checksums(invoices: list[Invoice]) -> None:
    checked: Counter[str] = Counter()
    for inv in invoices:
        for tax_id in _tax_ids(inv):
            compact = re.sub(r"[\s.\-]", "", tax_id)
            loc = inv.locale
            if loc == "de-DE":
                assert re.fullmatch(r"DE\d{9}", tax_id) and _mod_11_10(compact[2:]), tax_id
                assert de_vat.is_valid(tax_id)
            elif loc == "en-GB":
                assert re.fullmatch(r"GB \d{3} \d{4} \d{2}", tax_id), tax_id
                assert _gb_ok(compact[2:]) and gb_vat.is_valid(tax_id), tax_id
            elif loc == "fr-FR":
                key, siren = int(compact[2:4]), compact[4:]
                assert _luhn_ok(siren) and key == (12 + 3 * (int(siren) % 97)) % 97, tax_id
                assert fr_tva.is_valid(tax_id) and fr_siren.is_valid(siren)
            elif loc == "en-US":
                assert re.fullmatch(r"\d{2}-\d{7}", tax_id) and us_ein.is_valid(tax_id)
            elif loc == "de-AT":
                assert re.fullmatch(r"ATU\d{8}", tax_id) and at_uid.is_valid(tax_id), tax_id
            elif loc == "fr-CH":
                assert re.fullmatch(r"CHE-\d{3}\.\d{3}\.\d{3} TVA", tax_id), tax_id
                assert ch_uid.is_valid(tax_id.removesuffix(" TVA"))
            elif loc == "en-AU":
                assert re.fullmatch(r"\d{2} \d{3} \d{3} \d{3}", tax_id) and \
                    au_abn.is_valid(tax_id), tax_id
            elif loc == "en-CA":
                assert re.fullmatch(r"\d{9} RT0001", tax_id) and _luhn_ok(tax_id[:9])
            elif loc == "ja-JP":
                assert re.fullmatch(r"T\d{13}", tax_id) and jp_cn.is_valid(tax_id[1:]), tax_id
            elif loc == "ar-SA":
                assert re.fullmatch(r"3\d{13}3", tax_id), tax_id
            checked[loc] += 1
        if inv.locale == "fr-FR":  # the SIRET French invoices print: SIREN + NIC, Luhn
            siret = re.sub(r"\s", "", inv.seller_registration or "")
            assert fr_siret.is_valid(siret) and siret[:9] == re.sub(
                r"\s", "", inv.seller.tax_id or "")[4:]
        if inv.locale == "ar-SA":
            assert inv.seller.iban and iban.is_valid(inv.seller.iban)
            assert inv.seller.iban.startswith("SA")
        elif inv.seller.iban:
            assert iban.is_valid(inv.seller.iban), (inv.locale, inv.seller.iban)
    assert set(checked) == set(JURISDICTIONS) and min(checked.values()) > 100
    assert luhn.is_valid("79927398713")  # the oracle itself works


PHONES = {
    "en-US": r"\(\d{3}\) \d{3}-\d{4}",
    "en-CA": r"\(\d{3}\) \d{3}-\d{4}",
    "en-GB": r"0\d{2,3} \d{3,4} \d{4}|07\d{3} \d{6}",
    "en-AU": r"\(0[2378]\) \d{4} \d{4}",
    "fr-FR": r"0[1-5]( \d{2}){4}",
    "fr-CH": r"0\d{2} \d{3} \d{2} \d{2}",
    "de-DE": r"0\d{2,3} [1-9]\d{6,8}",
    "de-AT": r"\+43 \d{1,3} [1-9]\d{5,7}",
    "ja-JP": r"0\d{1,2}-\d{3,4}-\d{4}",
    "ar-SA": r"01[1-7] \d{3} \d{4}",
}


def test_phones_are_national_and_companies_are_legal_entities(invoices: list[Invoice]) -> None:
    for inv in invoices:
        assert re.fullmatch(PHONES[inv.locale], inv.seller.phone), (inv.locale, inv.seller.phone)
        forms = LEGAL_FORMS[inv.locale]
        name = inv.seller.name
        if inv.locale == "ar-SA":
            assert name.startswith("شركة ") or name.endswith(forms), name
        else:
            assert any(f in name for f in forms), (inv.locale, name)


def test_countable_quantities_are_whole(invoices: list[Invoice]) -> None:
    countable = {"pcs", "pce", "Stk.", "box", "boîte", "Karton", "seat", "licence", "Lizenz",
                 "個", "箱", "名", "قطعة", "صندوق", "ترخيص"}
    seen = 0
    for inv in invoices:
        for item in inv.lines:
            if item.unit in countable:
                seen += 1
                assert item.quantity == item.quantity.to_integral_value(), item
                assert item.quantity_places == 0
    assert seen > 5000


def test_ja_jp_prints_yen_consumption_tax_and_japanese_dates() -> None:
    jur = JURISDICTIONS["ja-JP"]
    assert jur.money(Decimal("1234567")) == "¥1,234,567"
    import datetime as dt

    assert jur.date(dt.date(2024, 3, 5), long=True) == "2024年3月5日"
    assert jur.date(dt.date(2024, 3, 5)) == "2024/03/05"
    source = InvoiceSource(parse_options({"locales": "ja-JP"}))
    rates: set[Decimal] = set()
    for i in range(200):
        inv = source.generate("ja", i)
        assert inv.currency == "JPY" and inv.total == inv.total.to_integral_value()
        assert all(t.amount == cents(t.base * t.rate / 100, 0) for t in inv.taxes)
        rates |= {t.rate for t in inv.taxes}
    assert {Decimal(10), Decimal(8)} <= rates <= {Decimal(10), Decimal(8), Decimal(0)}


def _html(options: dict, run: str, count: int) -> list[tuple[str, list[dict]]]:
    session = InvoiceSession(parse_options({"format": "html", **options}), "/nonexistent", 1)
    out = []
    for doc in session.render(run, range(count)):
        (data,) = doc.files.values()
        out.append((data.decode(), doc.rows["fields"]))
    return out


def test_ar_sa_is_right_to_left_bilingual_with_arabic_and_latin_digits() -> None:
    for html, fields in _html({"locales": "ar-SA"}, "ar", 40):
        assert 'dir="rtl"' in html and 'lang="ar"' in html
        # bilingual headings: the Arabic title and its English one
        assert re.search(r"فاتورة ضريبية|إشعار دائن", html)
        assert re.search(r"Tax Invoice|TAX INVOICE|Credit Note|Customer", html)
        by = {f["field"]: f["text"] for f in fields}
        assert re.search("[\u0660-\u0669]", by["issue_date"]), by["issue_date"]  # Arabic-Indic
        assert re.fullmatch(r"[\d,]+\.\d{2}\u00a0ر\.س", by["total"]), by["total"]  # Latin
        assert re.fullmatch(r"3\d{13}3", by["seller_tax_id"])
        assert {f["text"] for f in fields if f["field"] == "tax_rate"} <= {"15%", "0%"}


def test_credit_notes_and_multi_currency_totals() -> None:
    source = InvoiceSource(parse_options({"archetypes": "credit_note"}))
    for i in range(100):
        inv = source.generate("cn", i)
        assert inv.document_type == "credit_note" and inv.original_invoice and inv.reason
    for _, fields in _html({"archetypes": "multi_currency"}, "fx", 60):
        by = {f["field"]: f for f in fields}
        rate, total = Decimal(by["fx_rate"]["value"]), Decimal(by["total"]["value"])
        assert Decimal(by["fx_total"]["value"]) == cents(total * rate)
        assert by["fx_rate"]["text"].startswith("1 ")
    for html, fields in _html({"archetypes": "credit_note"}, "cn", 20):
        names = {f["field"] for f in fields}
        assert {"original_invoice", "reason"} <= names and "due_date" not in names
        assert 'data-header="title"' in html and 'data-label="original_invoice"' in html


def test_new_templates_carry_the_shared_label_markup() -> None:
    for archetype in ("modern", "ledger", "credit_note", "multi_currency"):
        for html, _ in _html({"archetypes": archetype, "lines": "3-5"}, "lab", 3):
            assert 'data-header="title"' in html
            for name in ("invoice_number", "issue_date", "total", "subtotal"):
                assert f'data-label="{name}"' in html, (archetype, name)
            for column in ("description", "quantity", "unit_price", "net_amount"):
                assert f'data-label="{column}" data-label-scope="column"' in html


@pytest.mark.fleet
def test_a_300_invoice_html_run_has_40_percent_distinct_descriptions(tmp_path: Path) -> None:
    """A real ``docfleet run`` (no LLM catalogue): at least 40 % of its lines distinct."""
    state, out = f"sqlite:///{tmp_path}/state.db", f"file://{tmp_path}/out"
    run = subprocess.run([sys.executable, "-m", "docfleet", "run", "--run-id", "vocab",
                          "--total", "300", "--tasks", "2", "--state", state, "--out", out,
                          "--option", "format=html"], capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, (run.stdout[-2000:], run.stderr[-3000:])
    lines = pq.read_table(tmp_path / "out" / "vocab" / "golden" / "line_items")
    descriptions = lines.column("description").to_pylist()
    assert len(descriptions) > 1000
    share = len(set(descriptions)) / len(descriptions)
    assert share >= 0.40, share


def _catalogue() -> Catalogue:
    entries = []
    texts = {"tagline": "Precision parts since 1952", "payment_terms":
             "Net 30. Late payments accrue 1% interest per month.",
             "note": "Thank you for choosing us again this quarter."}
    for kind, text in texts.items():
        for line in PRODUCT_LINES:
            entries.append(CatalogueEntry(len(entries), kind, line.key, "en-GB", 0, text,
                                          "llm", "fake/model", "ok", 0))
    return Catalogue("file://./cat", "cat", "0" * 64, entries, {"kind": "catalogue"})


def test_catalogue_taglines_terms_and_notes_reach_the_page(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    catalogue = _catalogue()
    monkeypatch.setattr(Catalogue, "load", classmethod(lambda cls, uri: catalogue))
    options = {"catalogue": "file://./out/cat", "archetypes": "modern", "locales": "en-GB"}
    printed: Counter[str] = Counter()
    for html, fields in _html(options, "cat", 40):
        for f in fields:
            if f["field"] in ("tagline", "payment_terms", "note"):
                printed[f["field"]] += 1
                assert f["text"] in html
    assert set(printed) == {"tagline", "payment_terms", "note"}
