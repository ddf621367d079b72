"""The three new packs' records without a browser: they reconcile or refuse to exist,
identifiers pass their check rules, options fail with one clear line, every locale the
invoice pack knows is accepted, and the packs are registered entry points."""

from __future__ import annotations

import dataclasses
from decimal import Decimal

import pytest
from packlib import HEAD, PACKS
from stdnum import iban as stdnum_iban

from docfleet.core.errors import ConfigError
from docfleet.packs import available_packs, load_pack
from docfleet.packs.bank_statement.records import DOMESTIC
from docfleet.packs.receipt.layouts import RECEIPT_LAYOUTS
from docfleet.packs.sdk.banking import (
    aba_valid,
    account_for,
    domestic_valid,
    iban_valid,
    random_aba,
    random_iban,
    rib_key,
)
from docfleet.packs.sdk.locales import JURISDICTIONS
from docfleet.packs.sdk.money import ReconciliationError
from docfleet.packs.sdk.schema import INK_TABLES
from docfleet.packs.sdk.text import columns

N = 60
#: the page-layout tables every pack writes, the SDK's
LAYOUT = INK_TABLES  # the newest content versions write ink truth


def records(name: str, n: int = N, **options: str) -> list:
    source = PACKS[name].source(options)
    return [source.generate(f"rec-{name}", i) for i in range(n)]


def test_the_packs_are_entry_points_with_their_tables() -> None:
    assert {"receipt", "purchase_order", "bank_statement"} <= set(available_packs())
    for name, pack in PACKS.items():
        loaded = load_pack(name)
        assert type(loaded) is type(pack)
        tables = loaded.tables(loaded.validate_options({}))
        # its own document table and item table, then the shared layout tables
        assert {t: tables.get(t) for t in LAYOUT} == LAYOUT
        own = set(tables) - set(LAYOUT)
        assert HEAD[name] in own and len(own) == 2, own
        assert len(pack.archetypes) >= 3


def test_records_are_deterministic_and_cover_every_locale() -> None:
    for name, pack in PACKS.items():
        first, again = records(name), records(name)
        assert first == again
        assert {r.locale for r in first} == set(JURISDICTIONS), name
        assert {r.archetype for r in first} == set(pack.archetypes), name


def test_a_receipt_that_does_not_add_up_is_refused() -> None:
    r = records("receipt", 1)[0]
    with pytest.raises(ReconciliationError, match="does not reconcile"):
        dataclasses.replace(r, total=r.total + Decimal("0.01"))
    with pytest.raises(ReconciliationError, match="change"):
        dataclasses.replace(r, change=r.change + 1, tendered=r.tendered)
    item = dataclasses.replace(r.items[0], amount=r.items[0].amount + 1)
    with pytest.raises(ReconciliationError, match="item 1"):
        dataclasses.replace(r, items=(item, *r.items[1:]))


def test_receipts_hold_items_modifiers_discounts_taxes_and_payment() -> None:
    rs = records("receipt", 200)
    assert any(i.modifiers for r in rs for i in r.items)
    assert any(i.discount for r in rs for i in r.items)
    assert {r.payment_method for r in rs} == {"cash", "card", "contactless", "mobile"}
    for r in rs:
        budget = RECEIPT_LAYOUTS[r.archetype].columns
        assert columns(r.store.name) <= budget and all(columns(a) <= budget
                                                       for a in r.store.address)
        if r.payment_method == "cash":
            assert r.change == r.tendered - r.total >= 0
        else:
            assert r.tendered == r.total and r.change == 0
        gross = sum((i.total for i in r.items), Decimal(0))
        assert r.total == (gross if r.tax_inclusive else gross + r.tax_total)


def test_receipt_tax_numbers_are_printed_whole_on_every_layout() -> None:
    """An identifier is printed whole or not at all: a Saudi VAT number keeps its 15
    digits on every layout, the narrowest included."""
    rs = records("receipt", 120, locales="ar-SA")
    printed = [r for r in rs if r.store.tax_id]
    assert {r.archetype for r in printed} == set(RECEIPT_LAYOUTS)
    for r in printed:
        digits_ = "".join(str(int(ch)) for ch in r.store.tax_id if ch.isdecimal())
        assert len(digits_) == 15 and digits_[0] == digits_[-1] == "3", r.store.tax_id


def test_a_purchase_order_that_does_not_add_up_is_refused() -> None:
    po = records("purchase_order", 1)[0]
    with pytest.raises(ReconciliationError, match="subtotal"):
        dataclasses.replace(po, subtotal=po.subtotal - 1)
    early = dataclasses.replace(po.lines[0], requested_date=po.issue_date.replace(year=2000))
    with pytest.raises(ReconciliationError, match="requested before"):
        dataclasses.replace(po, lines=(early, *po.lines[1:]))


def test_purchase_orders_carry_terms_dates_and_agreed_prices() -> None:
    for po in records("purchase_order"):
        assert po.incoterm and po.delivery_place and po.payment_days > 0
        assert po.delivery_date == max(i.requested_date for i in po.lines) >= po.issue_date
        assert po.total == po.subtotal + po.tax_total
        assert all(i.quantity == i.quantity.to_integral_value() or i.quantity_places
                   for i in po.lines)


def test_a_statement_whose_balance_does_not_run_is_refused() -> None:
    s = records("bank_statement", 1)[0]
    with pytest.raises(ReconciliationError, match="closing"):
        dataclasses.replace(s, closing_balance=s.closing_balance + Decimal("0.01"))
    t = dataclasses.replace(s.transactions[0], balance=s.transactions[0].balance + 1)
    with pytest.raises(ReconciliationError, match="transaction 1: balance"):
        dataclasses.replace(s, transactions=(t, *s.transactions[1:]))
    with pytest.raises(ReconciliationError, match="IBAN"):
        dataclasses.replace(s, iban="GB00 0000 0000 0000 0000 00", locale="en-GB")
    with pytest.raises(ReconciliationError, match="fails its AU rules"):
        dataclasses.replace(s, iban=None, locale="en-AU", routing_number="992-000",
                            account_number="12345678")


def test_statements_run_from_opening_to_closing_with_valid_accounts() -> None:
    for s in records("bank_statement", 120):
        balance = s.opening_balance
        for t in s.transactions:
            balance += t.amount
            assert t.balance == balance
        assert s.closing_balance == balance
        country = s.locale[-2:]
        if country in DOMESTIC:  # no IBANs: ABA, BSB, transit + institution, bank + branch
            assert s.iban is None and s.routing_number
            assert domestic_valid(country, s.routing_number, s.account_number), s
            if country == "US":
                assert aba_valid(s.routing_number)
        else:
            assert s.iban is not None and s.iban.startswith(country) and iban_valid(s.iban)
            assert stdnum_iban.is_valid(s.iban)  # the country's registered BBAN structure
            assert s.account_number == s.iban.replace(" ", "")[4:]
            if country == "FR":  # the RIB key inside the French BBAN
                bban = s.iban.replace(" ", "")[4:]
                assert rib_key(bban[:5], bban[5:10], bban[10:21]) == bban[21:]


def test_check_digit_rules_match_published_examples() -> None:
    assert iban_valid("GB82 WEST 1234 5698 7654 32")
    assert iban_valid("DE89 3704 0044 0532 0130 00")
    assert iban_valid("FR14 2004 1010 0505 0001 3M02 606")
    assert not iban_valid("GB82 WEST 1234 5698 7654 33")
    assert aba_valid("011000015") and not aba_valid("011000016")
    import random

    rng = random.Random(7)
    assert all(iban_valid(random_iban(rng, c)) for c in ("GB", "DE", "FR", "SA") * 50)
    assert all(aba_valid(random_aba(rng)) for _ in range(200))
    # every locale's account passes its rules; a wrong digit or a changed length fails
    for locale in JURISDICTIONS:
        country = locale[-2:]
        for _ in range(50):
            a = account_for(rng, locale)
            if country in DOMESTIC:
                assert a.iban is None and a.routing
                assert domestic_valid(country, a.routing, a.number), (locale, a)
                assert not domestic_valid(country, a.routing, a.number + "0000000000")
            else:
                assert a.iban and iban_valid(a.iban) and stdnum_iban.is_valid(a.iban)
                flipped = a.iban[:-1] + str((int(a.iban[-1]) + 1) % 10)
                assert not iban_valid(flipped)
    assert domestic_valid("AU", "062-000", "12345678")
    assert not domestic_valid("AU", "992-000", "12345678")  # no such bank prefix
    assert domestic_valid("CA", "00011-001", "1234567")
    assert not domestic_valid("CA", "00011-999", "1234567")
    assert domestic_valid("JP", "0005-123", "1234567")
    assert not domestic_valid("JP", "0005-123", "123456")


@pytest.mark.parametrize("name", sorted(PACKS))
def test_bad_options_fail_with_one_clear_line(name: str) -> None:
    pack = PACKS[name]
    cases = [({"colour": "red"}, "has no option colour"),
             ({"locales": "xx-XX"}, "unknown value 'xx-XX'"),
             ({"archetypes": "nope"}, "unknown value 'nope'"),
             ({"format": "html", "conditions": "scan"}, "scan needs format pdf"),
             ({"lines": "0-3"}, "out of range"),
             ({"lines": "1-100000"}, "out of range")]
    for options, message in cases:
        with pytest.raises(ConfigError, match=message) as info:
            pack.validate_options(options)
        assert "\n" not in str(info.value)
    assert pack.validate_options({"locales": ",".join(JURISDICTIONS)})["locales"]


@pytest.mark.parametrize("name", sorted(PACKS))
def test_the_html_format_needs_no_browser_and_fills_every_table(name: str) -> None:
    from docfleet.dataset.shards import shard_bytes

    pack = PACKS[name]
    options = pack.validate_options({"format": "html"})
    session = pack.session(options, "/nonexistent/chromium", 1)
    docs = list(session.render("html-run", range(6)))
    session.close()
    tables = pack.tables(options)
    for doc in docs:
        (data,) = doc.files.values()
        assert data.startswith(b"<!doctype html>")
        assert doc.rows["fields"] and doc.rows["words"] == []
        assert all(r["page"] is None for r in doc.rows["fields"])
        for table, schema in tables.items():
            shard_bytes(schema, doc.rows[table])


def test_a_locale_added_later_is_accepted_with_its_currency_rules(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A locale the packs have no words for (here a stand-in ja-JP unless the invoice pack
    has the real one) renders with English labels, whole-yen money and a domestic account."""
    from docfleet.packs.invoice.labels import LABELS
    from docfleet.packs.sdk import locales

    if "ja-JP" not in JURISDICTIONS:
        monkeypatch.setitem(LABELS, "ja", LABELS["en"])
        monkeypatch.setitem(locales.MONTHS, "ja", locales.MONTHS["en"])
        monkeypatch.setitem(JURISDICTIONS, "ja-JP", locales.Jurisdiction(
            "ja-JP", "ja_JP", "ja", "JPY", "¥", True, ",", ".", "消費税",
            {"standard": Decimal(10), "reduced": Decimal(8), "zero": Decimal(0)}, "ymd",
            locales.A4, "T"))
    for name, pack in PACKS.items():
        options = pack.validate_options({"locales": "ja-JP", "format": "html"})
        session = pack.session(options, "/nonexistent/chromium", 1)
        docs = list(session.render("later-locale", range(8)))
        assert all(next(iter(d.files.values())).startswith(b"<!doctype html>") for d in docs)
        for doc in docs:
            money = [r for r in doc.rows["fields"] if r["field"] in
                     ("total", "closing_balance", "subtotal")]
            assert money and all(Decimal(r["value"]) == Decimal(r["value"]).to_integral_value()
                                 for r in money), name
    statement = PACKS["bank_statement"].source({"locales": "ja-JP"}).generate("later", 0)
    assert statement.iban is None and statement.routing_number


def _yen_range(sku: str) -> tuple[Decimal, Decimal]:
    """The yen unit-price range of the product an order line's SKU names (its tiers
    included): the product's dollar range at the SDK's one scale (``PRICE_SCALE``)."""
    from docfleet.packs.purchase_order.source import ORDERABLE
    from docfleet.packs.sdk.products import PRICE_SCALE

    code = sku.rsplit("-", 1)[0]
    product = next(p for _, ps in ORDERABLE for p in ps if p.code == code)
    prices = [Decimal(x) for x in (*product.price, *(t for _, t in product.tiers))]
    return min(prices) * PRICE_SCALE["JPY"], max(prices) * PRICE_SCALE["JPY"]


def test_a_japanese_order_prices_in_yen_once_from_content_5() -> None:
    """Content 5: a ja-JP order's unit prices are the product's prices in yen (the SDK's
    draw, scaled once), so its totals sit where other locales' do; content 1-4 scaled the
    yen price by 150 again and keep printing that (their bytes are pinned in
    test_content_versions)."""
    def lines(content: str) -> list:
        rs = records("purchase_order", 80, locales="ja-JP", content=content,
                     format="html")
        assert {r.currency for r in rs} == {"JPY"}
        return [line for r in rs for line in r.lines]

    for line in lines("5"):
        lo, hi = _yen_range(line.sku)
        assert lo - 1 <= line.unit_price <= hi + 1, (line.sku, line.unit_price, lo, hi)
    for line in lines("4"):
        lo, hi = _yen_range(line.sku)
        assert lo < 1 or line.unit_price > hi * 10, (line.sku, line.unit_price, hi)
    ja = sorted(r.total for r in records("purchase_order", 200, locales="ja-JP",
                                         content="5", format="html"))
    us = sorted(r.total for r in records("purchase_order", 200, locales="en-US",
                                         content="5", format="html"))
    ratio = ja[100] / us[100]  # medians: yen at about 150 to the dollar
    assert 30 < ratio < 750, ratio
