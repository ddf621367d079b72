"""Japanese in fonts the PDF embeds (``packs/sdk/style.py``, each pack's ``font_content``):
from that content version on, every font of a ja-JP document is a font the PDF embeds
(Type0, its glyphs in an embedded TrueType file) and its kana and kanji come from BIZ
UDPGothic or UDPMincho; the version before still draws them as Type 3 procedures (its
documents keep their bytes). Real Chromium, real PDFs read with pikepdf."""

from __future__ import annotations

import io
from typing import Any

import pikepdf
import pytest

from docfleet.packs.bank_statement import BankStatementPack
from docfleet.packs.invoice.pack import InvoicePack
from docfleet.packs.purchase_order import PurchaseOrderPack
from docfleet.packs.receipt import ReceiptPack
from docfleet.packs.sdk.session import embedded_fonts as embedded_context
from docfleet.packs.sdk.style import MONO, SANS, SERIF, embedded_fonts
from docfleet.render.browser import Chromium

PACKS = {"invoice": InvoicePack, "receipt": ReceiptPack,
         "purchase_order": PurchaseOrderPack, "bank_statement": BankStatementPack}


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


def _render(chromium: Chromium, name: str, content: int, count: int) -> list[bytes]:
    pack = PACKS[name]()
    session = pack.session({"locales": "ja-JP", "conditions": "clean", "content": content,
                            "cover": "archetypes"}, "", 2, chromium)
    try:
        return [data for doc in session.render("embedded-fonts", range(count))
                for data in doc.files.values()]
    finally:
        session.close()


@pytest.mark.parametrize("name", sorted(PACKS))
def test_a_japanese_document_embeds_every_font_from_the_new_version(
    chromium: Chromium, name: str
) -> None:
    pack = PACKS[name]()
    newest = pack.content_versions[-1]
    assert pack.steps.font_content == newest  # type: ignore[attr-defined]
    count = 8  # every archetype of the pack once (cover), the first print block
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
