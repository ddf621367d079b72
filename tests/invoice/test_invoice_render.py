"""Invoices through the real Chromium: valid PDFs carrying the golden text, field and word
boxes that hold their text, multi-page, scan, and byte-determinism across processes."""

from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium
import pytest
from pypdf import PdfReader

from docfleet.core.seeding import document_seed
from docfleet.core.settings import load_settings
from docfleet.dataset.shards import shard_bytes
from docfleet.packs.base import RenderedDocument
from docfleet.packs.invoice.labels import LABELS
from docfleet.packs.invoice.options import ARCHETYPES, parse_options
from docfleet.packs.invoice.pack import InvoiceSession
from docfleet.packs.invoice.schema import TABLES
from docfleet.packs.sdk.locales import JURISDICTIONS
from docfleet.render.browser import Chromium
from docfleet.render.scan import ScanParams
from support.needs import require
from support.pdftext import normalise, page_texts, text_in_boxes

LOCALES = tuple(JURISDICTIONS)
PER_COMBO = 1
#: right-to-left locales: pdfium returns their characters in visual order, so a box is
#: checked to hold exactly the golden glyphs (as a multiset), not their order
RTL = {loc for loc, jur in JURISDICTIONS.items() if jur.direction == "rtl"}

#: renders a unit in a fresh process and prints the sha256 of every file and shard
UNIT_SCRIPT = """
import hashlib, json, sys
from docfleet.packs.invoice.options import parse_options
from docfleet.packs.invoice.pack import InvoiceSession
from docfleet.packs.invoice.schema import TABLES
from docfleet.dataset.shards import shard_bytes
session = InvoiceSession(parse_options({"conditions": "clean:1,scan:1"}), sys.argv[1], 2)
out, rows = {}, {t: [] for t in TABLES}
try:
    for doc in session.render("twice", range(40, 48)):
        for name, data in doc.files.items():
            out[name] = hashlib.sha256(data).hexdigest()
        for t, r in doc.rows.items():
            rows[t].extend(r)
finally:
    session.close()
for t, schema in TABLES.items():
    out[t] = hashlib.sha256(shard_bytes(schema, rows[t])).hexdigest()
print(json.dumps(out, sort_keys=True))
"""


def squash(text: str) -> str:
    """Text without any whitespace: pdfium synthesises spaces from glyph gaps, so the box
    check compares every printed character, in order, ignoring spacing."""
    return "".join(normalise(text).split())


def glyphs(text: str, locale: str) -> str:
    """What a box check compares: the squashed text, sorted for right-to-left locales."""
    squashed = squash(text)
    return "".join(sorted(squashed)) if locale in RTL else squashed


def render(chromium: Chromium, run_id: str, indexes: range, **options: Any
           ) -> list[RenderedDocument]:
    session = InvoiceSession(parse_options(options), chromium.executable, chromium.pages,
                             chromium=chromium)
    try:
        return list(session.render(run_id, indexes))
    finally:
        session.close()


def pdf_of(doc: RenderedDocument) -> bytes:
    (data,) = doc.files.values()
    return data


@pytest.fixture(scope="module")
def samples(chromium: Chromium) -> dict[tuple[str, str], list[RenderedDocument]]:
    """PER_COMBO clean documents for every archetype x locale."""
    out = {}
    for archetype in ARCHETYPES:
        for locale in LOCALES:
            out[(archetype, locale)] = render(
                chromium, f"box-{archetype}-{locale}", range(PER_COMBO),
                archetypes=archetype, locales=locale, conditions="clean", lines="1-12")
    return out


def all_samples(samples: dict) -> list[RenderedDocument]:
    return [doc for docs in samples.values() for doc in docs]


def test_every_archetype_and_locale_renders_a_valid_pdf_with_the_golden_values(
    samples: dict[tuple[str, str], list[RenderedDocument]],
) -> None:
    assert len(samples) == len(ARCHETYPES) * len(LOCALES) == 80
    for (archetype, locale), docs in samples.items():
        for doc in docs:
            data = pdf_of(doc)
            invoice = doc.rows["invoices"][0]
            assert (invoice["archetype"], invoice["locale"]) == (archetype, locale)
            reader = PdfReader(io.BytesIO(data))
            assert len(reader.pages) == invoice["page_count"] >= 1
            box = reader.pages[0].mediabox
            assert float(box.width) == pytest.approx(invoice["page_width"], abs=0.5)
            text = squash(" ".join(page_texts(data)))
            if locale in RTL:  # visual order: every golden glyph is on the page
                have = Counter(text)
                for row in doc.rows["fields"]:
                    assert not Counter(squash(row["text"])) - have, (archetype, locale, row)
                continue
            for row in doc.rows["fields"]:
                assert squash(row["text"]) in text, (archetype, locale, row)
            for value in ("total", "subtotal"):
                money = JURISDICTIONS[locale].money(invoice[value])
                assert squash(money) in text


def test_every_field_box_holds_exactly_its_golden_text(
    samples: dict[tuple[str, str], list[RenderedDocument]],
) -> None:
    checked = exact = 0
    for doc in all_samples(samples):
        rows = doc.rows["fields"]
        locale = doc.rows["invoices"][0]["locale"]
        assert rows
        for row, got in zip(rows, text_in_boxes(pdf_of(doc), rows), strict=True):
            assert glyphs(got, locale) == glyphs(row["text"], locale), (locale, row, got)
            checked += 1
            exact += normalise(got) == normalise(row["text"]) or locale in RTL
    assert checked > 1000
    assert exact / checked > 0.97  # the rest differ only by a synthesised space


def test_words_carry_boxes_text_and_their_fields(
    samples: dict[tuple[str, str], list[RenderedDocument]],
) -> None:
    """Latin, CJK (ja-JP) and right-to-left Arabic (ar-SA) words sit on their glyphs."""
    for archetype, locale in [(a, loc) for a in ARCHETYPES
                              for loc in ("fr-FR", "ja-JP", "ar-SA")]:
        doc = samples[(archetype, locale)][0]
        words = doc.rows["words"]
        assert len(words) > 40
        got = text_in_boxes(pdf_of(doc), words)
        misses = [(w["text"], g) for w, g in zip(words, got, strict=True)
                  if glyphs(g, locale) != glyphs(w["text"], locale)]
        assert not misses, (archetype, locale, misses[:5])
        by_field: dict[tuple, list[str]] = defaultdict(list)
        for w in words:
            if w["field"] is not None:
                by_field[(w["field"], w["line"], w["occurrence"])].append(w["text"])
        for row in doc.rows["fields"]:
            key = (row["field"], row["line"], row["occurrence"])
            # words follow the tokenisation rule (docs/schema.md): split on every space,
            # one piece per printed line, touching punctuation joined ("[0%]")
            assert squash(row["text"]) in "".join(by_field[key]), key


def test_multi_page_invoices_split_lines_and_repeat_the_header(chromium: Chromium) -> None:
    for archetype in ARCHETYPES:
        (doc,) = render(chromium, f"multi-{archetype}", range(1), archetypes=archetype,
                        conditions="clean", lines="45-60")
        invoice = doc.rows["invoices"][0]
        pages = invoice["page_count"]
        assert pages >= 2, archetype
        fields = doc.rows["fields"]
        on_page = {r["line"]: r["page"] for r in fields if r["field"] == "description"}
        assert {r["line"]: r["page"] for r in doc.rows["line_items"]} == on_page
        assert set(on_page.values()) <= set(range(1, pages + 1))
        number_pages = {r["page"] for r in fields if r["field"] == "invoice_number"}
        assert number_pages == set(range(1, pages + 1)), archetype
        assert {r["page"] for r in fields if r["field"] == "total"} == {pages}
        labels = LABELS[JURISDICTIONS[invoice["locale"]].language]
        texts = page_texts(pdf_of(doc))
        for k, text in enumerate(texts, start=1):
            assert squash(f"{labels['page']} {k} {labels['of']} {pages}") in squash(text)
        for row, got in zip(fields, text_in_boxes(pdf_of(doc), fields), strict=True):
            assert squash(got) == squash(row["text"]), (archetype, row, got)


def test_scan_has_no_text_layer_and_boxes_stay_on_their_ink(chromium: Chromium) -> None:
    for archetype in ARCHETYPES:
        (scan,) = render(chromium, f"scan-{archetype}", range(1), archetypes=archetype,
                         conditions="scan", lines="3-8")
        (clean,) = render(chromium, f"scan-{archetype}", range(1), archetypes=archetype,
                          conditions="clean", lines="3-8")
        assert scan.rows["invoices"][0]["condition"] == "scan"
        data = pdf_of(scan)
        assert all(not t.strip() for t in page_texts(data)), "scan kept a text layer"
        params = ScanParams.draw(document_seed(f"scan-{archetype}", 0) ^ 0x5CA9)
        doc = pdfium.PdfDocument(data)
        width, height = doc[0].get_size()
        image = doc[0].render(scale=150 / 72, grayscale=True).to_pil().convert("L")
        scale = image.width / width
        for s, c in zip(scan.rows["fields"], clean.rows["fields"], strict=True):
            assert (s["field"], s["line"], s["text"]) == (c["field"], c["line"], c["text"])
            if s["page"] != 1:
                continue
            expected = params.transform_box((c["x0"], c["y0"], c["x1"], c["y1"]), width, height)
            assert (s["x0"], s["y0"], s["x1"], s["y1"]) == pytest.approx(expected, abs=0.01)
            crop = image.crop((int(s["x0"] * scale), int(s["y0"] * scale),
                               int(s["x1"] * scale) + 1, int(s["y1"] * scale) + 1))
            # ink inside the box: darker than any noisy paper (paper >= ~225)
            assert crop.getextrema()[0] < 185, (archetype, s)
        doc.close()


def test_a_unit_rendered_twice_in_two_processes_is_byte_identical(chromium: Chromium) -> None:
    session = InvoiceSession(parse_options({"conditions": "clean:1,scan:1"}),
                             chromium.executable, chromium.pages, chromium=chromium)
    here: dict[str, str] = {}
    rows: dict[str, list] = {t: [] for t in TABLES}
    for doc in session.render("twice", range(40, 48)):
        for name, data in doc.files.items():
            here[name] = hashlib.sha256(data).hexdigest()
            assert b"/CreationDate (D:" + doc.rows["invoices"][0]["issue_date"].strftime(
                "%Y%m%d").encode() in data or doc.rows["invoices"][0]["condition"] == "scan"
        for t, r in doc.rows.items():
            rows[t].extend(r)
    session.close()
    for t, schema in TABLES.items():
        here[t] = hashlib.sha256(shard_bytes(schema, rows[t])).hexdigest()
    out = subprocess.run([sys.executable, "-c", UNIT_SCRIPT, chromium.executable],
                         check=True, capture_output=True, text=True, timeout=180)
    assert json.loads(out.stdout) == here


def test_catalogue_length_descriptions_fit_every_archetype(
    chromium: Chromium, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A catalogue description may be 40 characters (its limit): rows wrap it inside their
    fixed height instead of failing the layout check."""
    from docfleet.packs.invoice.source import InvoiceSource

    texts = ("Wholesale Mexican Wagyu Meatballs, 40 kg", "MAINTENANCE WORKSHOP, QUARTERLY MWM PLAN",
             "Qualité Zephyr pour vos équipes de WWMM")
    monkeypatch.setattr(InvoiceSource, "_description",
                        lambda self, product, key, jur, run_id, index, number: texts[number % 3])
    for archetype in ARCHETYPES:
        (doc,) = render(chromium, f"long-{archetype}", range(1), archetypes=archetype,
                        conditions="clean", lines="20-30")
        fields = doc.rows["fields"]
        assert {r["text"] for r in fields if r["field"] == "description"} == set(texts)
        for row, got in zip(fields, text_in_boxes(pdf_of(doc), fields), strict=True):
            assert squash(got) == squash(row["text"]), (archetype, row, got)


def _descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = defaultdict(list)
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            children[int(stat.rsplit(")", 1)[1].split()[1])].append(int(entry))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def _browser_pids() -> set[int]:
    """Browser processes (the ones Playwright drives over a pipe) under this process."""
    pids = set()
    for pid in _descendants(os.getpid()):
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"--remote-debugging-pipe" in argv:
            pids.add(pid)
    return pids


def test_a_crashed_chromium_is_replaced_for_the_next_unit() -> None:
    path = load_settings().chromium_path
    require(Path(path).exists(), f"Chromium at {path}")
    before = _browser_pids()  # other tests' browsers stay alive
    session = InvoiceSession(parse_options({"conditions": "clean"}), path, 2)
    try:
        assert len(list(session.render("crash", range(2)))) == 2
        mine = _browser_pids() - before
        assert len(mine) == 1
        os.kill(mine.pop(), signal.SIGKILL)
        deadline = time.monotonic() + 10
        while session.chromium_alive and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not session.chromium_alive
        assert [d.index for d in session.render("crash", range(2, 5))] == [2, 3, 4]
    finally:
        session.close()


def test_a_page_recycled_after_its_documents_prints_the_same_bytes(chromium: Chromium) -> None:
    """A page is replaced by a fresh one (a new renderer) once it printed ``recycle``
    documents; the documents printed before and after are byte-identical to a browser's
    that never recycles."""
    def digests(browser: Chromium) -> dict[str, str]:
        session = InvoiceSession(parse_options({"conditions": "clean:1,scan:1"}),
                                 browser.executable, browser.pages, chromium=browser)
        try:
            return {name: hashlib.sha256(data).hexdigest()
                    for doc in session.render("recycle", range(40, 52))
                    for name, data in doc.files.items()}
        finally:
            session.close()

    recycling = Chromium(chromium.executable, pages=1, recycle=3)
    try:
        first_page = recycling._free._queue[0]  # type: ignore[attr-defined]
        once = digests(recycling)
        assert recycling.recycled >= 2
        assert recycling._free._queue[0] is not first_page  # type: ignore[attr-defined]
        again = digests(recycling)  # every batch on a page that started fresh
    finally:
        recycling.close()
    plain = Chromium(chromium.executable, pages=1, recycle=0)
    try:
        never = digests(plain)
        assert plain.recycled == 0
    finally:
        plain.close()
    assert len(once) == 12
    assert once == again == never


def test_a_browser_opens_its_second_page_only_when_a_batch_finds_the_first_busy(
        chromium: Chromium) -> None:
    """A started browser has one page open (a one-document run starts no renderer it does
    not use); batches in flight together open more, never past ``pages``; what a
    document prints does not depend on which page printed it."""
    from docfleet.render.browser import Job

    html = ("<html><body><div class='page' style='width:300px;height:200px'>"
            "<span data-field='n'>{}</span></div></body></html>")
    browser = Chromium(chromium.executable, pages=2)
    try:
        assert browser.pages_open == 1
        # and no process of its own for the network service (the browser process runs it)
        network = [pid for pid in _descendants(os.getpid())
                   if b"network.mojom.NetworkService" in _cmdline(pid)]
        assert network == []
        alone = browser.submit(html.format(1), 300, 200).result(timeout=60)
        assert browser.pages_open == 1  # one batch at a time: one page
        together = [browser.submit_batch([Job(html.format(n), 300, 200)]) for n in (1, 2, 3)]
        printed = [f.result(timeout=60)[0] for f in together]
        assert browser.pages_open == 2  # three at once: the second page, no third
        assert all(p is not None and p.pdf is not None for p in printed)
        # the same PDF from either page, but for the print's own time (its dates)
        undated = [re.sub(rb"D:[0-9+\-Z']+", b"D:", p.pdf or b"")  # type: ignore[union-attr]
                   for p in (printed[0], alone)]
        assert undated[0] == undated[1]
        assert printed[0].layout == alone.layout  # type: ignore[union-attr]
        assert [p.layout.fields[0].text for p in printed] == ["1", "2", "3"]  # type: ignore[union-attr]
    finally:
        browser.close()


def test_a_document_that_lays_out_wrong_prints_again_with_its_values_free_to_wrap(
    chromium: Chromium, caplog: pytest.LogCaptureFixture,
) -> None:
    """Run pw200's document 17: a 44-character German seller name beside the classic
    head's meta block ("Ausstellungsdatum") pushed the head 21 px past the page, and every
    attempt at its unit failed. Printed again alone with RELAXED_CSS, the name wraps
    inside the page, its box holds its text, and the same document prints the same
    bytes again; one log line names it and what its first print got wrong."""
    with caplog.at_level(logging.INFO, logger="docfleet.pack"):
        docs = [render(chromium, "pw200", range(17, 18), conditions="clean",
                       content="4")[0] for _ in range(2)]
    relaxed = [r for r in caplog.records if getattr(r, "event", "") == "document.relaxed"]
    assert [getattr(r, "document", None) for r in relaxed] == [17, 17]
    assert "page 1 overflows" in relaxed[0].getMessage()
    doc = docs[0]
    invoice = doc.rows["invoices"][0]
    assert (invoice["archetype"], invoice["locale"]) == ("classic", "de-DE")
    (name,) = [r for r in doc.rows["fields"] if r["field"] == "seller_name"]
    assert len(name["line_boxes"]) >= 2
    assert all(r["x1"] <= invoice["page_width"] - 36 for r in doc.rows["fields"])
    assert glyphs(text_in_boxes(pdf_of(doc), [name])[0], "de-DE") == glyphs(name["text"],
                                                                                 "de-DE")
    assert pdf_of(docs[1]) == pdf_of(doc) and docs[1].rows == doc.rows


def test_a_document_whose_lines_overfill_a_fixed_box_prints_again_with_them_closer(
    chromium: Chromium, caplog: pytest.LogCaptureFixture,
) -> None:
    """A quickstart run's document (defaults, newest content): a boxed ar-SA invoice whose
    40-character seller e-mail takes a line of its own, so the head's fixed 150 px box
    overflows by 2 px; letting values wrap does not help (the overflow is of lines), and
    its unit failed every attempt. Printed a third time with its lines closer
    (``TIGHT_CSS``), it lays out inside its box; its e-mail's glyphs are the e-mail; the
    same document prints the same bytes again; the log line says which reprint took it."""
    with caplog.at_level(logging.INFO, logger="docfleet.pack"):
        docs = [render(chromium, "demo-20261207-190843", range(85, 86), content="5")[0]
                for _ in range(2)]
    again = [r for r in caplog.records if getattr(r, "event", "") == "document.relaxed"]
    assert [(getattr(r, "document", None), getattr(r, "reprint", None)) for r in again] == \
        [(85, "its values free to wrap and its lines closer")] * 2
    assert "field seller_email (line -) spills out of its div.box" in again[0].getMessage()
    doc = docs[0]
    invoice = doc.rows["invoices"][0]
    assert (invoice["archetype"], invoice["locale"], invoice["condition"]) == \
        ("boxed", "ar-SA", "clean")
    (email,) = [r for r in doc.rows["fields"] if r["field"] == "seller_email"]
    lines = [{"page": email["page"], **box} for box in email["line_boxes"]]  # by line: its
    assert glyphs("".join(text_in_boxes(pdf_of(doc), lines)), "ar-SA") == \
        glyphs(email["text"], "ar-SA")  # first shares a printed line with its label
    assert pdf_of(docs[1]) == pdf_of(doc) and docs[1].rows == doc.rows


def test_the_longest_party_names_print_inside_every_archetype(
    chromium: Chromium, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The longest company name the generator makes (a 14-letter German surname, a trade
    word, "UG (haftungsbeschränkt)": 47 characters) as every seller and buyer: every
    archetype prints it inside the page (classic and boxed print some of them again
    relaxed)."""
    import docfleet.packs.sdk.identifiers as identifiers

    longest = "Hölzenbecherer Vertrieb UG (haftungsbeschränkt)"
    monkeypatch.setattr(identifiers, "company_name", lambda rng, surname, locale: longest)
    for archetype in ARCHETYPES:
        docs = render(chromium, f"longest-names-{archetype}", range(6), conditions="clean",
                      archetypes=archetype, locales="de-DE", content="4")
        printed = [r for d in docs for r in d.rows["fields"] if r["text"] == longest]
        assert len(docs) == 6 and printed, archetype
        for doc in docs:
            width = doc.rows["invoices"][0]["page_width"]
            assert all(r["x1"] <= width for r in doc.rows["fields"]), archetype
