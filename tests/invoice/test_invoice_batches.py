"""Batched printing through the real Chromium: several documents per ``page.pdf`` call,
split per document. A document's bytes and rows do not depend on the unit that asked for
it, its boxes do not depend on the Chromium build, and a broken document fails alone."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from docfleet.core.settings import CHROMIUM_CANDIDATES
from docfleet.packs.base import RenderedDocument
from docfleet.packs.invoice.options import ARCHETYPES, parse_options
from docfleet.packs.invoice.pack import InvoiceSession
from docfleet.packs.sdk.printing import BATCH
from docfleet.render.browser import Chromium, RenderError
from support.browsers import chromium_browser
from support.needs import require
from support.pdftext import normalise, text_in_boxes

OPTIONS = {"conditions": "clean:3,scan:1", "lines": "1-14"}
RUN = "batches"


def squash(text: str) -> str:
    return "".join(normalise(text).split())


def render(chromium: Chromium, indexes: Any, run_id: str = RUN,
           **options: Any) -> list[RenderedDocument]:
    session = InvoiceSession(parse_options(options or OPTIONS), chromium.executable,
                             chromium.pages, chromium=chromium)
    try:
        return list(session.render(run_id, indexes))
    finally:
        session.close()


def pdf_of(doc: RenderedDocument) -> bytes:
    (data,) = doc.files.values()
    return data


def assert_boxes_hold_their_text(doc: RenderedDocument) -> None:
    if doc.rows["invoices"][0]["condition"] != "clean":
        return
    rows = doc.rows["fields"] + doc.rows["words"]
    for row, got in zip(rows, text_in_boxes(pdf_of(doc), rows), strict=True):
        assert squash(got) == squash(row["text"]), (doc.index, row, got)


def test_a_document_is_the_same_whatever_unit_or_batch_it_is_printed_in(
    chromium: Chromium,
) -> None:
    whole = {d.index: d for d in render(chromium, range(2 * BATCH + 4))}
    sizes = {(d.rows["invoices"][0]["page_width"], d.rows["invoices"][0]["page_height"])
             for d in whole.values()}
    assert len(sizes) > 1  # blocks mix page sizes: several page.pdf calls per block
    # units cutting blocks anywhere, single documents, a unit starting mid-block
    pieces = [range(0, 3), range(3, BATCH + 3), range(BATCH + 3, BATCH + 4),
              range(BATCH + 4, 2 * BATCH + 4), [5], [2 * BATCH + 1]]
    for piece in pieces:
        for doc in render(chromium, piece):
            ref = whole[doc.index]
            assert doc.files == ref.files, (piece, doc.index)
            assert doc.rows == ref.rows, (piece, doc.index)
    for doc in whole.values():
        assert_boxes_hold_their_text(doc)


def test_the_last_block_of_a_run_lays_out_no_document_past_its_total(
    chromium: Chromium, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A run of ``BATCH + 3`` documents: its last block holds 3, and no unit of it lays
    out (or even builds) a neighbour at or past the total; those 3 are the same bytes
    whatever unit asks for them."""
    total = BATCH + 3
    built: list[int] = []
    prepare = InvoiceSession.prepare

    def counting(self: InvoiceSession, run_id: str, i: int) -> Any:
        built.append(i)
        return prepare(self, run_id, i)

    monkeypatch.setattr(InvoiceSession, "prepare", counting)
    session = InvoiceSession(parse_options(OPTIONS), chromium.executable, chromium.pages,
                             chromium=chromium)
    try:
        whole = {d.index: d for d in session.render(RUN, range(total), total)}
        assert max(built) == total - 1
        built.clear()
        for piece in ([total - 1], range(BATCH + 1, total), [BATCH]):
            for doc in session.render(RUN, piece, total):
                assert doc.files == whole[doc.index].files, (piece, doc.index)
                assert doc.rows == whole[doc.index].rows, (piece, doc.index)
        assert set(built) == set(range(BATCH, total))  # the last block: neighbours < total
    finally:
        session.close()


def test_a_right_to_left_document_keeps_its_direction_in_a_batch(chromium: Chromium) -> None:
    """The batch lays each document out in a shadow host: an ar-SA document must still read
    right to left there (its words' boxes run leftwards along a line; the last word of a
    sentence, with its full stop, is one box on its own glyphs)."""
    docs = render(chromium, range(3), run_id="batch-rtl", archetypes="classic,modern",
                  locales="ar-SA", conditions="clean", lines="1-6")
    arabic = lambda w: all("\u0600" <= c <= "\u06ff" or c in ".،:" for c in w["text"])  # noqa: E731
    pairs = 0
    for doc in docs:
        words = doc.rows["words"]
        for a, b in itertools.pairwise(words):
            if a["text_line"] == b["text_line"] and arabic(a) and arabic(b):
                assert b["x1"] <= a["x0"] + 0.5, (doc.index, a, b)  # the next word is left
                pairs += 1
        # pdfium reads Arabic in visual order: compare the glyphs, not their sequence
        for w, got in zip(words, text_in_boxes(pdf_of(doc), words), strict=True):
            assert sorted(squash(got)) == sorted(squash(w["text"])), (doc.index, w, got)
    assert pairs > 20


def _break(monkeypatch: pytest.MonkeyPatch, index: int, how: str) -> None:
    """Make document ``index`` broken: ``overflow`` (its own layout check fails) or
    ``extra-page`` (it prints a page its layout does not have, so its batch fails)."""
    prepare = InvoiceSession.prepare

    def broken(self: InvoiceSession, run_id: str, i: int) -> Any:
        invoice, html, printed, pages = prepare(self, run_id, i)
        if i == index:
            if how == "overflow":
                html = html.replace('data-page="1">', 'data-page="1"><div style="height:'
                                    '9000px"></div>', 1)
            else:
                html = html.replace("</body>", '<div style="height:3000px">x</div></body>')
        return invoice, html, printed, pages

    monkeypatch.setattr(InvoiceSession, "prepare", broken)


@pytest.mark.parametrize("how", ["overflow", "extra-page"])
def test_a_broken_document_in_a_batch_fails_alone(
    chromium: Chromium, monkeypatch: pytest.MonkeyPatch, how: str,
) -> None:
    options = {"conditions": "clean", "archetypes": "classic", "locales": "de-DE",
               "lines": "2-6"}  # one page size: the whole block is one batch
    good = {d.index: d for d in render(chromium, range(BATCH), "alone", **options)}
    _break(monkeypatch, 3, how)
    session = InvoiceSession(parse_options(options), chromium.executable, chromium.pages,
                             chromium=chromium)
    got: list[RenderedDocument] = []
    with pytest.raises(RenderError, match="document 3 "):
        got.extend(session.render("alone", range(BATCH)))
    assert [d.index for d in got] == [0, 1, 2]
    # the neighbours after it, in the same batch, still print with their golden rows
    rest = list(session.render("alone", [i for i in range(BATCH) if i != 3]))
    session.close()
    assert [d.index for d in rest] == [i for i in range(BATCH) if i != 3]
    for doc in got + rest:
        assert doc.rows == good[doc.index].rows
        assert_boxes_hold_their_text(doc)
    if how == "extra-page":  # the batch failed: its documents were printed one by one
        alone = render(chromium, [0], "alone", **options)[0]
        assert pdf_of(alone) != pdf_of(good[0])  # alone differs from batched ...
        assert pdf_of(got[0]) == pdf_of(alone)  # ... and that is what the fallback gave


def test_headless_shell_and_full_chromium_lay_out_the_same_boxes() -> None:
    shell, full = CHROMIUM_CANDIDATES
    require(Path(shell).exists(), f"chromium-headless-shell at {shell}")
    require(Path(full).exists(), f"Chromium at {full}")
    out = []
    for path in (shell, full):
        for chromium in chromium_browser(path):
            docs = []
            for archetype in ARCHETYPES:
                docs += render(chromium, range(3), f"same-{archetype}",
                               archetypes=archetype, conditions="clean", lines="1-20")
            out.append(docs)
    for a, b in zip(*out, strict=True):
        assert a.rows == b.rows, a.index
