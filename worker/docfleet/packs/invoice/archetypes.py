"""Archetypes: layouts that look like different companies' invoices. Each names its
template and the geometry the paginator needs (CSS px). The numbers are conservative
upper bounds; the renderer's layout check fails a document that would overflow anyway."""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Archetype:
    name: str
    template: str
    fonts: tuple[str, ...]  # CSS font stacks; one is chosen per seller
    row_height: int  # one line item row
    first_top: int  # everything above the items table on page 1 (max address lines)
    next_top: int  # running header above the table on pages 2+
    bottom: int  # footer reserve on every page
    totals_base: int  # totals block without tax rows
    tax_row: int  # one tax row in the totals block
    page_width: int | None = None  # fixed page width (receipt); else the locale's paper

    def capacity(self, page_height: int, first: bool) -> int:
        top = self.first_top if first else self.next_top
        return max(1, (page_height - top - self.bottom) // self.row_height)

    def totals_rows(self, tax_rows: int) -> int:
        return math.ceil((self.totals_base + tax_rows * self.tax_row) / self.row_height)


SANS = ("'Liberation Sans', sans-serif", "'DejaVu Sans', sans-serif")
SERIF = ("'Liberation Serif', serif", "'DejaVu Serif', serif")
MONO = ("'Liberation Mono', monospace", "'DejaVu Sans Mono', monospace")
#: only families of Debian's fonts-dejavu-core and fonts-liberation2 (what setup-dev and
#: the image install), so layouts are the same wherever the worker runs
FORM = ("'Liberation Sans', sans-serif", "'DejaVu Sans', sans-serif")

ARCHETYPE_SPECS: dict[str, Archetype] = {
    "classic": Archetype("classic", "invoice/classic.html.j2", SERIF + SANS[:1], row_height=24,
                         first_top=420, next_top=150, bottom=120, totals_base=120, tax_row=22),
    "sidebar": Archetype("sidebar", "invoice/sidebar.html.j2", SANS, row_height=36,
                         first_top=300, next_top=130, bottom=70, totals_base=110, tax_row=22),
    "receipt": Archetype("receipt", "invoice/receipt.html.j2", MONO, row_height=38,
                         first_top=430, next_top=110, bottom=170, totals_base=110, tax_row=18,
                         page_width=378),
    "boxed": Archetype("boxed", "invoice/boxed.html.j2", FORM, row_height=24,
                       first_top=440, next_top=150, bottom=150, totals_base=110, tax_row=22),
    "modern": Archetype("modern", "invoice/modern.html.j2", SANS, row_height=27,
                        first_top=430, next_top=160, bottom=125, totals_base=200, tax_row=24),
    "ledger": Archetype("ledger", "invoice/ledger.html.j2", SERIF + MONO[:1], row_height=28,
                        first_top=460, next_top=170, bottom=120, totals_base=200, tax_row=24),
    "credit_note": Archetype("credit_note", "invoice/credit_note.html.j2", SERIF + SANS[:1],
                             row_height=27, first_top=450, next_top=165, bottom=125,
                             totals_base=180, tax_row=24),
    "multi_currency": Archetype("multi_currency", "invoice/multi_currency.html.j2", SANS,
                                row_height=27, first_top=430, next_top=160, bottom=125,
                                totals_base=250, tax_row=24),
}


def paginate(lines: int, first: int, following: int, reserve: int) -> list[range]:
    """Split ``lines`` rows over pages holding ``first`` rows on page 1 and ``following``
    rows after; the last page also holds a totals block worth ``reserve`` rows and at
    least one line."""
    pages: list[range] = []
    start, capacity = 0, first
    while True:
        remaining = lines - start
        if remaining + reserve <= capacity:
            pages.append(range(start, lines))
            return pages
        take = min(capacity, remaining - 1)
        if take <= 0 and capacity == following:
            raise ValueError("a page cannot hold one line and the totals")
        take = max(take, 0)
        pages.append(range(start, start + take))
        start += take
        capacity = following
