"""The six layouts: which template prints a form and the geometry (CSS px) its record is
drawn against, so answers are sized to their boxes (or made to overflow them on purpose)
and sections are spread over pages before anything is rendered."""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Layout:
    name: str
    template: str
    label_left: bool  # the question beside its answer box (else above it)
    label_share: float  # of a cell's width, where the label is beside the box
    margin: int  # page margin left and right
    row: int  # one row of questions
    choice_line: int  # one line of options
    comment_line: int  # one line of a comment box
    section: int  # a section heading
    options_per_line: int

    def content_width(self, page_width: int) -> int:
        return page_width - 2 * self.margin

    def cell_width(self, page_width: int, cells: int) -> int:
        """The width of one of ``cells`` questions side by side."""
        return (self.content_width(page_width) - (cells - 1) * GAP) // cells

    def answer_width(self, page_width: int, cells: int) -> int:
        """The drawn answer box of one of ``cells`` questions side by side."""
        cell = self.cell_width(page_width, cells) - 2 * PAD
        return int(cell * (1 - self.label_share)) - 8 if self.label_left else cell

    def block_height(self, block: tuple, options: int = 0, lines: int = 0) -> int:
        """A conservative height of one block (``options``: of a choice, ``lines``: a
        comment's or a grid's)."""
        kind = block[0]
        if kind == "row":
            return self.row
        if kind == "date":
            return self.row + 14
        if kind == "choice":
            return 26 + math.ceil(options / self.options_per_line) * self.choice_line
        if kind == "grid":
            return 34 + lines * 26
        if kind == "comment":
            return 30 + lines * self.comment_line
        return SIGN


#: between cells of a row, and inside a cell
GAP, PAD = 12, 6
#: the declaration, place, date, signature and stamp block; the signature's width
SIGN, SIGNATURE = 190, 380
#: page 1's title block, every page's top margin and footer
TITLE, TOP, FOOT = 150, 40, 60

LAYOUTS: dict[str, Layout] = {
    "boxed": Layout("boxed", "boxed.html.j2", False, 0, 44, 62, 28, 26, 40, 4),
    "lined": Layout("lined", "lined.html.j2", True, 0.36, 48, 44, 28, 26, 40, 4),
    "banded": Layout("banded", "banded.html.j2", False, 0, 40, 64, 28, 26, 46, 4),
    "numbered": Layout("numbered", "numbered.html.j2", False, 0, 40, 62, 28, 26, 40, 4),
    "compact": Layout("compact", "compact.html.j2", True, 0.34, 36, 40, 26, 24, 36, 5),
    "shaded": Layout("shaded", "shaded.html.j2", False, 0, 44, 64, 28, 26, 42, 4),
}
