"""Japanese in fonts the PDF embeds (``packs/sdk/style.py``, each pack's ``font_content``):
from that content version on, every font of a ja-JP document of every document pack is a
font the PDF embeds (Type0, its glyphs in an embedded TrueType file) and its kana and
kanji come from BIZ UDPGothic or UDPMincho; the version before still draws them as Type 3
procedures (its documents keep their bytes); a form's typed answers print within the
widths it was laid out for. Real Chromium, real PDFs read with pikepdf."""

from __future__ import annotations

import io
from typing import Any

import pikepdf
import pytest

from docfleet.packs.bank_statement import BankStatementPack
from docfleet.packs.form import FormPack
from docfleet.packs.form.source import FormSource
from docfleet.packs.invoice.pack import InvoicePack
from docfleet.packs.purchase_order import PurchaseOrderPack
from docfleet.packs.receipt import ReceiptPack
from docfleet.packs.sdk.session import embedded_fonts as embedded_context
from docfleet.packs.sdk.style import MONO, SANS, SERIF, embedded_fonts
from docfleet.render.browser import Chromium

PACKS = {"invoice": InvoicePack, "receipt": ReceiptPack,
         "purchase_order": PurchaseOrderPack, "bank_statement": BankStatementPack,
         "form": FormPack}


def _fonts(pdf: bytes) -> list[tuple[str, str, bool, str]]:
    """(subtype, base font, whether its glyphs are an embedded font file, its text)
    of every font on every page."""
    out = []
    with pikepdf.open(io.BytesIO(pdf)) as doc:
        for page in doc.pages:
            for font in page.Resources.Font.values():
                subtype = str(font.Subtype)
                embedded = False
                if subtype == "/Type0":
                    descriptor = font.DescendantFonts[0].FontDescriptor
                    embedded = any(k in descriptor for k in ("/FontFile2", "/FontFile3"))
                unicode = font.get("/ToUnicode")
                text = unicode.read_bytes().decode("latin-1") if unicode is not None else ""
                out.append((subtype, str(font.get("/BaseFont", "")), embedded, text))
    return out


def _documents(chromium: Chromium, name: str, content: int, count: int) -> list[Any]:
    pack = PACKS[name]()
    session = pack.session({"locales": "ja-JP", "conditions": "clean", "content": content,
                            "cover": "archetypes"}, "", 2, chromium)
    try:
        return list(session.render("embedded-fonts", range(count)))
    finally:
        session.close()


def _render(chromium: Chromium, name: str, content: int, count: int) -> list[bytes]:
    return [data for doc in _documents(chromium, name, content, count)
            for data in doc.files.values()]


@pytest.mark.parametrize("name", sorted(PACKS))
def test_a_japanese_document_embeds_every_font_from_the_new_version(
    chromium: Chromium, name: str
) -> None:
    pack = PACKS[name]()
    newest = pack.content_versions[-1]
    assert pack.steps.font_content == newest  # type: ignore[attr-defined]
    count = 8  # every archetype of the pack once (cover; the form's 6 and 2 again)
    for pdf in _render(chromium, name, newest, count):
        fonts = _fonts(pdf)
        assert fonts, "a document with no font"
        assert all(subtype == "/Type0" and embedded for subtype, _, embedded, _ in fonts), \
            [(s, b) for s, b, e, _ in fonts if s != "/Type0" or not e]
        japanese = [base for _, base, _, _ in fonts if "BIZUDP" in base]
        assert japanese, [base for _, base, _, _ in fonts]
        assert not any("Noto" in base and "CJK" in base for _, base, _, _ in fonts)
    # the version before draws its Japanese as Type 3 procedures, as it always has
    before = _render(chromium, name, newest - 1, 2)
    assert all(any(subtype == "/Type3" for subtype, _, _, _ in _fonts(pdf)) for pdf in before)
    assert not any("BIZUDP" in base for pdf in before for _, base, _, _ in _fonts(pdf))


@pytest.mark.parametrize(("stack", "expected"), [
    ("'Noto Sans CJK JP', sans-serif", "'BIZ UDPGothic', sans-serif"),
    ("'Noto Serif CJK JP', serif", "'BIZ UDPMincho', serif"),
    (MONO[0], "'Liberation Mono', 'BIZ UDPGothic', monospace"),
    (SERIF[1], "'DejaVu Serif', 'BIZ UDPMincho', serif"),
    (SANS[0], "'Liberation Sans', 'BIZ UDPGothic', sans-serif"),
    ("'Liberation Sans'", "'Liberation Sans', 'BIZ UDPGothic'"),
])
def test_a_japanese_stack_names_its_embedded_family(stack: str, expected: str) -> None:
    assert embedded_fonts(stack, "ja") == expected
    assert embedded_fonts(expected, "ja") == expected  # idempotent
    for language in ("en", "fr", "de", "ar"):  # other scripts keep their stack
        assert embedded_fonts(stack, language) == stack


def test_only_a_japanese_context_changes() -> None:
    context: dict[str, Any] = {"lang": "ja", "font": SANS[1], "font_size": 12}
    changed = embedded_context(context)
    assert changed == {**context, "font": "'DejaVu Sans', 'BIZ UDPGothic', sans-serif",
                       "font_synthesis": "none"}
    assert context["font"] == SANS[1]  # a new dict: the steps' context is left alone
    for lang in ("en", "ar", "fr"):
        other = {**context, "lang": lang}
        assert embedded_context(other) is other


def test_a_typed_japanese_answer_prints_within_the_widths_its_form_was_laid_out_for(
    chromium: Chromium
) -> None:
    """A form lays its answers out from each writer's width model (a box too short, a
    value cut where the box ends, ``overflow``): from the embedded version on, the typed
    hand is BIZ UDPGothic, wider in Latin and digits than Noto and narrower in its
    proportional kana, and every typed answer prints between its writer's narrowest and
    widest estimate (px, from the field's box in the PDF)."""
    pack = FormPack()
    content = pack.content_versions[-1]
    count = 24
    documents = _documents(chromium, "form", content, count)
    source = FormSource(pack.parse({"locales": "ja-JP", "conditions": "clean",
                                    "content": content, "cover": "archetypes"}))
    checked = 0
    for doc in documents:
        record = source.generate("embedded-fonts", doc.index)
        typed = record.writers[0]
        assert typed.font == "BIZ UDPGothic"
        boxes = {f["field"]: f for f in doc.rows["fields"] if f["occurrence"] == 0}
        for section in record.sections:
            for block in section.blocks:
                for e in block.entries:
                    if e.writer or not e.filled or e.kind != "text" or e.text is None:
                        continue
                    box = boxes[e.key]
                    width = (box["x1"] - box["x0"]) / 0.75  # pt -> CSS px
                    assert typed.min_width(e.text) - 1 <= width <= typed.max_width(e.text), \
                        (doc.index, e.text, width, typed.min_width(e.text),
                         typed.max_width(e.text))
                    checked += 1
    assert checked >= 40, checked
