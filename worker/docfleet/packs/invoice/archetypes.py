"""Archetypes: layouts that look like different companies' invoices. Each names its
template and the geometry the paginator needs (CSS px; the SDK's ``Archetype``). The
numbers are conservative upper bounds; the renderer's layout check fails a document that
would overflow anyway."""

from __future__ import annotations

from docfleet.packs.sdk.pages import Archetype
from docfleet.packs.sdk.style import FORM, MONO, SANS, SERIF

ARCHETYPE_SPECS: dict[str, Archetype] = {
    "classic": Archetype("classic", "classic.html.j2", SERIF + SANS[:1], row_height=24,
                         first_top=420, next_top=150, bottom=120, totals_base=120, tax_row=22),
    "sidebar": Archetype("sidebar", "sidebar.html.j2", SANS, row_height=36,
                         first_top=300, next_top=130, bottom=70, totals_base=110, tax_row=22),
    "receipt": Archetype("receipt", "receipt.html.j2", MONO, row_height=38,
                         first_top=430, next_top=110, bottom=170, totals_base=110, tax_row=18,
                         page_width=378),
    "boxed": Archetype("boxed", "boxed.html.j2", FORM, row_height=24,
                       first_top=440, next_top=150, bottom=150, totals_base=110, tax_row=22),
    "modern": Archetype("modern", "modern.html.j2", SANS, row_height=27,
                        first_top=430, next_top=160, bottom=125, totals_base=200, tax_row=24),
    "ledger": Archetype("ledger", "ledger.html.j2", SERIF + MONO[:1], row_height=28,
                        first_top=460, next_top=170, bottom=120, totals_base=200, tax_row=24),
    "credit_note": Archetype("credit_note", "credit_note.html.j2", SERIF + SANS[:1],
                             row_height=27, first_top=450, next_top=165, bottom=125,
                             totals_base=180, tax_row=24),
    "multi_currency": Archetype("multi_currency", "multi_currency.html.j2", SANS,
                                row_height=27, first_top=430, next_top=160, bottom=125,
                                totals_base=250, tax_row=24),
}

