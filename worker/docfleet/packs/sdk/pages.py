"""Page geometry: how a layout's rows fill its pages. An :class:`Archetype` names its
template and the conservative geometry the paginator needs (CSS px); :func:`paginate`
splits a document's lines over pages, leaving room for the totals on the last one; a
:class:`Page` is what a paginated template prints per page. The renderer's layout check
fails a document that overflows anyway."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Archetype:
    name: str
    template: str  # in the pack's own templates
    fonts: tuple[str, ...]  # CSS font stacks; one is chosen per document's style
    row_height: int  # one line item row
    first_top: int  # everything above the items table on page 1 (max address lines)
    next_top: int  # running header above the table on pages 2+
    bottom: int  # footer reserve on every page
    totals_base: int  # totals block without tax rows
    tax_row: int  # one tax row in the totals block
    page_width: int | None = None  # fixed page width (a till roll); else the locale's paper

    def capacity(self, page_height: int, first: bool) -> int:
        """Rows of lines a page of ``page_height`` px holds (the first page or a later)."""
        top = self.first_top if first else self.next_top
        return max(1, (page_height - top - self.bottom) // self.row_height)

    def totals_rows(self, tax_rows: int) -> int:
        """The rows the totals block takes with ``tax_rows`` tax rows."""
        return math.ceil((self.totals_base + tax_rows * self.tax_row) / self.row_height)


def paginate(lines: int, first: int, following: int, reserve: int) -> list[range]:
    """Split ``lines`` rows over pages holding ``first`` rows on page 1 and ``following``
    rows after; the last page also holds a totals block worth ``reserve`` rows and at
    least one line. ``ValueError`` if a page cannot hold one line and the totals."""
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


@dataclass(frozen=True)
class Page:
    """One printed page: its number, the page count, its lines (each a dict of the
    fields a row prints) and whether it is the last (the totals' page)."""

    number: int
    count: int
    lines: list[dict[str, Any]]
    last: bool
