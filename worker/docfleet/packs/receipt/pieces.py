"""A receipt row's pieces: a golden :class:`Field`, a printed key (``data-label``), a
heading (``data-header``) or plain text; a row is a left and a right run of them. A piece
may have a width (``w``, in monospace columns: a table column, right-aligned) and a key
may label a whole column (``scope="column"``)."""

from __future__ import annotations

from typing import Any

from docfleet.packs.sdk.text import columns
from docfleet.render.html import Field

Piece = dict[str, Any]
Row = dict[str, Any]


def _piece(**kw: Any) -> Piece:
    return {"f": None, "l": None, "h": None, "t": "", "cls": "", "glue": False, "w": 0,
            "scope": "", **kw}


def f(field: Field, cls: str = "", w: int = 0) -> Piece:
    return _piece(f=field, cls=cls, w=w)


def lab(name: str, text: str, w: int = 0, scope: str = "") -> Piece:
    return _piece(l=name, t=text, w=w, scope=scope)


def head(name: str, text: str) -> Piece:
    return _piece(h=name, t=text)


def txt(text: str, glue: bool = False, w: int = 0) -> Piece:
    """Plain text; ``glue``: no space before the next piece."""
    return _piece(t=text, glue=glue, w=w)


def row(left: list[Piece], right: list[Piece] | None = None, units: int = 1,
        cls: str = "") -> Row:
    return {"left": left, "right": right or [], "units": units, "cls": cls}


def width(pieces: list[Piece]) -> int:
    """Columns a run of pieces takes (a piece's width, or its text's; one between)."""
    total = 0
    for k, p in enumerate(pieces):
        text = p["f"].text if p["f"] is not None else p["t"]
        total += max(p["w"], columns(text))
        if k < len(pieces) - 1 and not p["glue"]:
            total += 1
    return total
