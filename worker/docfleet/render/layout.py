"""Boxes from the laid-out page: field spans and every printed word, in PDF points.

The page is explicitly paginated by its template: each ``<div class="page">`` is exactly
one PDF page (``@page`` has the same size and no margin), so a box measured relative to
its page div, times 0.75 (CSS px → points), is its position on that PDF page, origin
top-left. The script also reports layout faults (content overflowing a page, a field
spilling out of its cell) so a document that would print wrong fails instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

PX_TO_PT = 0.75

#: Run in the page on one document's root (its shadow root in a batch, see
#: :mod:`docfleet.render.browser`); returns {pages, fields, words, faults}.
EXTRACT_JS = r"""
(root) => {
  const out = {pages: 0, fields: [], words: [], faults: []};
  const pages = Array.from(root.querySelectorAll('div.page'));
  out.pages = pages.length;
  const union = (rects) => {
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (const r of rects) {
      if (r.width <= 0 && r.height <= 0) continue;
      x0 = Math.min(x0, r.left); y0 = Math.min(y0, r.top);
      x1 = Math.max(x1, r.right); y1 = Math.max(y1, r.bottom);
    }
    return x0 === Infinity ? null : [x0, y0, x1, y1];
  };
  pages.forEach((pg, i) => {
    const p = pg.getBoundingClientRect();
    const n = i + 1;
    if (pg.scrollHeight > pg.clientHeight + 1 || pg.scrollWidth > pg.clientWidth + 1) {
      out.faults.push(`page ${n} overflows (${pg.scrollWidth}x${pg.scrollHeight})`);
    }
    for (const el of pg.querySelectorAll('[data-field]')) {
      const b = union(el.getClientRects());
      const name = el.dataset.field;
      if (!b) { out.faults.push(`field ${name} has no box`); continue; }
      const cell = el.parentElement.closest('td,th,div,p');
      if (cell) {
        const c = cell.getBoundingClientRect();
        if (b[0] < c.left - 1 || b[2] > c.right + 1 || b[1] < c.top - 1 || b[3] > c.bottom + 1) {
          out.faults.push(`field ${name} (line ${el.dataset.line || '-'}) spills out of its box`);
        }
      }
      if (b[0] < p.left || b[2] > p.right + 0.5 || b[1] < p.top || b[3] > p.bottom + 0.5) {
        out.faults.push(`field ${name} lies outside page ${n}`);
      }
      out.fields.push({field: name, line: el.dataset.line === undefined ? null : +el.dataset.line,
                       occ: +el.dataset.occ, text: el.textContent, page: n,
                       box: [b[0] - p.left, b[1] - p.top, b[2] - p.left, b[3] - p.top]});
    }
    const walker = document.createTreeWalker(pg, NodeFilter.SHOW_TEXT);
    const range = document.createRange();
    const word = /[^ \t\n\r\f]+/g;
    let node;
    while ((node = walker.nextNode())) {
      const text = node.nodeValue;
      const owner = node.parentElement ? node.parentElement.closest('[data-field]') : null;
      word.lastIndex = 0;
      let m;
      while ((m = word.exec(text))) {
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const b = union(range.getClientRects());
        if (!b) continue;
        const cell = node.parentElement ? node.parentElement.closest('td,th') : null;
        if (cell) {
          const c = cell.getBoundingClientRect();
          if (b[0] < c.left - 1 || b[2] > c.right + 1 || b[1] < c.top - 1 || b[3] > c.bottom + 1) {
            out.faults.push(`word ${m[0]} is clipped by its cell on page ${n}`);
          }
        }
        out.words.push({page: n, text: m[0],
                        box: [b[0] - p.left, b[1] - p.top, b[2] - p.left, b[3] - p.top],
                        field: owner ? owner.dataset.field : null,
                        line: owner && owner.dataset.line !== undefined
                          ? +owner.dataset.line : null,
                        occ: owner ? +owner.dataset.occ : null});
      }
    }
  });
  return out;
}
"""

Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class FieldBox:
    field: str
    line: int | None
    occurrence: int
    text: str  # the DOM text of the span
    page: int
    box: Box  # points, top-left origin


@dataclass(frozen=True)
class WordBox:
    page: int
    text: str
    box: Box
    field: str | None
    line: int | None
    occurrence: int | None


@dataclass(frozen=True)
class Layout:
    pages: int
    fields: list[FieldBox]
    words: list[WordBox]
    faults: list[str]


def _pt(box: list[float]) -> Box:
    x0, y0, x1, y1 = (round(v * PX_TO_PT, 3) for v in box)
    return x0, y0, x1, y1


def parse_layout(raw: dict[str, Any]) -> Layout:
    """Convert the script's result (CSS px, parsed from the page's JSON) to points."""
    fields = [FieldBox(f["field"], f["line"], f["occ"], f["text"], f["page"], _pt(f["box"]))
              for f in raw["fields"]]
    words = [WordBox(w["page"], w["text"], _pt(w["box"]), w["field"], w["line"], w["occ"])
             for w in raw["words"]]
    return Layout(raw["pages"], fields, words, list(raw["faults"]))
