"""PDF reading helpers for the invoice tests (pypdfium2)."""

from __future__ import annotations

from typing import Any

import pypdfium2 as pdfium

#: whitespace the page may print differently from the golden text (no-break spaces are
#: extracted as plain spaces; multi-line values come back as separate lines)
_SPACES = str.maketrans({"\u00a0": " ", "\u202f": " ", "\r": " ", "\n": " ",
                         "\ufffe": "-"})  # pdfium's mark for a hyphen a line broke after


def normalise(text: str) -> str:
    return " ".join(text.translate(_SPACES).split())


def page_texts(data: bytes) -> list[str]:
    doc = pdfium.PdfDocument(data)
    try:
        out = []
        for i in range(len(doc)):
            tp = doc[i].get_textpage()
            out.append(tp.get_text_range())
            tp.close()
        return out
    finally:
        doc.close()


def _chars(page: Any) -> list[tuple[float, float, str]]:
    """(centre x, centre y from the top, char) of every character pdfium sees."""
    height = page.get_size()[1]
    tp = page.get_textpage()
    try:
        text = tp.get_text_range()
        chars = []
        for i in range(tp.count_chars()):
            left, bottom, right, top = tp.get_charbox(i)
            char = text[i] if i < len(text) else ""
            if right <= left and top <= bottom:  # a generated space or line break
                chars.append((float("nan"), float("nan"), " "))
                continue
            chars.append(((left + right) / 2, height - (top + bottom) / 2, char))
        return chars
    finally:
        tp.close()


def text_in_boxes(data: bytes, rows: list[dict[str, Any]]) -> list[str]:
    """For each row (page, x0, y0, x1, y1 in points, top-left origin) the characters whose
    centre lies inside the box, in content order (a generated space or line break between
    two such characters counts as one space)."""
    doc = pdfium.PdfDocument(data)
    try:
        pages: dict[int, list[tuple[float, float, str]]] = {}
        out = []
        for row in rows:
            n = row["page"]
            if n not in pages:
                pages[n] = _chars(doc[n - 1])
            picked: list[str] = []
            pending_space = False
            for cx, cy, ch in pages[n]:
                if cx != cx:  # nan: generated whitespace
                    pending_space = bool(picked)
                    continue
                if row["x0"] <= cx <= row["x1"] and row["y0"] <= cy <= row["y1"]:
                    if pending_space:
                        picked.append(" ")
                    picked.append(ch)
                    pending_space = False
                elif picked:
                    pending_space = False
            out.append("".join(picked))
        return out
    finally:
        doc.close()
