"""Boxes from the laid-out page: field spans and every printed word, in PDF points.

The page is explicitly paginated by its template: each ``<div class="page">`` is exactly
one PDF page (``@page`` has the same size and no margin), so a box measured relative to
its page div, times 0.75 (CSS px → points), is its position on that PDF page, origin
top-left. The script also reports layout faults (content overflowing a page, a field
spilling out of its cell) so a document that would print wrong fails instead, and, in
``hidden``, the values and labels a reader would not see where their box says (outside
an ancestor that draws a box or clips); the pack's content version decides whether those
fail the document (:func:`docfleet.packs.sdk.session.ink_truth`).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from dataclasses import field as dc_field
from itertools import islice
from typing import Any

PX_TO_PT = 0.75

#: Run in the page on one document's root (its shadow root in a batch, see
#: :mod:`docfleet.render.browser`); returns {pages, fields, keys, words, lines, labels,
#: cells, faults, hidden} (words and lines as columns: :func:`parse_layout`).
EXTRACT_JS = r"""
(root) => {
  // words and lines go back as columns (their boxes flat, x0 y0 x1 y1 each; a word's
  // field as an index into keys, -1 for none; its label id, -1 for none; a line's text is
  // its words'): a third less JSON for every process it passes through (renderer,
  // browser, Playwright's driver, the task)
  const out = {pages: 0, fields: [], keys: [], labels: [], cells: [], faults: [], hidden: [],
               words: {page: [], text: [], box: [], key: [], label: [], tline: []},
               lines: {page: [], number: [], box: [], first: [], count: []}};
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
  const sameLine = (a, b) => {  // vertical overlap of at least half the smaller height
    const overlap = Math.min(a[3], b[3]) - Math.max(a[1], b[1]);
    return overlap >= 0.5 * Math.min(a[3] - a[1], b[3] - b[1]);
  };
  // rects grouped into one box per printed line, in order
  const lineBoxes = (rects) => {
    const lines = [];
    for (const r of rects) {
      if (r.width <= 0 || r.height <= 0) continue;
      const b = [r.left, r.top, r.right, r.bottom];
      const hit = lines.find((l) => sameLine(l, b));
      if (hit) {
        hit[0] = Math.min(hit[0], b[0]); hit[1] = Math.min(hit[1], b[1]);
        hit[2] = Math.max(hit[2], b[2]); hit[3] = Math.max(hit[3], b[3]);
      } else lines.push(b);
    }
    return lines;
  };
  const range = document.createRange();
  const contentLines = (el) => {
    range.selectNodeContents(el);
    return lineBoxes(range.getClientRects());
  };
  // the nearest ancestor that is not laid out inline: words and lines never cross it
  const blocks = new Map();
  const blockOf = (el) => {
    const path = [];
    let e = el, found = null;
    while (e) {
      if (blocks.has(e)) { found = blocks.get(e); break; }
      path.push(e);
      const d = getComputedStyle(e).display;
      if (!(d === 'inline' || d === 'inline-block' || d === 'contents')) { found = e; break; }
      e = e.parentElement;
    }
    for (const p of path) blocks.set(p, found);
    return found;
  };
  const LABELS = '[data-label],[data-header]';
  // visibility: a value or label lies inside every ancestor that draws a box (a border,
  // a background) or clips (overflow), up to its page: else it spills over what is next
  // to it or is cut away (a reader's view; the ink check sees what is painted over it);
  // a box marked data-spill is one the document overflows on purpose (a golden fact)
  const drawsBox = new Map();
  const draws = (e) => {
    let d = drawsBox.get(e);
    if (d === undefined) {
      const s = getComputedStyle(e);
      d = s.overflowX !== 'visible' || s.overflowY !== 'visible' ||
        s.backgroundImage !== 'none' || !/^(transparent|rgba\(.*, 0\))$/.test(s.backgroundColor) ||
        ['Top', 'Right', 'Bottom', 'Left'].some((k) =>
          s[`border${k}Style`] !== 'none' && parseFloat(s[`border${k}Width`]) > 0);
      drawsBox.set(e, d);
    }
    return d;
  };
  const escapes = (el, b, pg) => {
    for (let a = el.parentElement; a && a !== pg; a = a.parentElement) {
      if (!draws(a) || a.hasAttribute('data-spill')) continue;  // overflowed on purpose
      const r = a.getBoundingClientRect();
      if (b[0] < r.left - 1 || b[2] > r.right + 1 || b[1] < r.top - 1 || b[3] > r.bottom + 1) {
        return a;
      }
    }
    return null;
  };
  const where = (a) => a.tagName.toLowerCase() + (a.className ? '.' + a.className : '');
  pages.forEach((pg, i) => {
    const p = pg.getBoundingClientRect();
    const n = i + 1;
    const rel = (b) => [b[0] - p.left, b[1] - p.top, b[2] - p.left, b[3] - p.top];
    if (pg.scrollHeight > pg.clientHeight + 1 || pg.scrollWidth > pg.clientWidth + 1) {
      out.faults.push(`page ${n} overflows (${pg.scrollWidth}x${pg.scrollHeight})`);
    }
    const fieldEls = Array.from(pg.querySelectorAll('[data-field]'));
    // dataset reads are slow: every field element's key once, and its elements by name
    const keys = new Map();
    const keyIds = new Map();  // field element → its index in out.keys
    const byName = new Map();
    for (const el of fieldEls) {
      const line = el.getAttribute('data-line');
      const key = {field: el.getAttribute('data-field'), line: line === null ? null : +line,
                   occ: +el.getAttribute('data-occ')};
      keys.set(el, key);
      keyIds.set(el, out.keys.length);
      out.keys.push([key.field, key.line, key.occ]);
      if (!byName.has(key.field)) byName.set(key.field, []);
      byName.get(key.field).push(el);
    }
    for (const el of fieldEls) {
      const b = union(el.getClientRects());
      const name = keys.get(el).field;
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
      const outside = escapes(el, b, pg);
      if (outside) {
        out.hidden.push(`field ${name} (line ${el.dataset.line || '-'}) spills out of ` +
                        `its ${where(outside)} on page ${n}`);
      }
      out.fields.push({...keys.get(el), text: el.textContent, page: n, box: rel(b),
                       lines: contentLines(el).map(rel)});
    }
    // printed labels (keys) and headers, and the fields each label links to
    const labelIds = new Map();
    for (const el of pg.querySelectorAll(LABELS)) {
      const header = !el.hasAttribute('data-label');
      const b = union(el.getClientRects());
      const name = el.getAttribute(header ? 'data-header' : 'data-label');
      if (!b) { out.faults.push(`label ${name} has no box`); continue; }
      const scope = header ? null : (el.getAttribute('data-label-scope') || 'value');
      const links = [];
      if (!header) {
        const names = name.split(/\s+/).filter((x) => x);
        if (scope === 'column') {
          const within = el.closest('table') || pg;
          const wanted = new Set(names);
          for (const f of fieldEls) {
            if (wanted.has(keys.get(f).field) && within.contains(f)) links.push(keys.get(f));
          }
        } else {
          for (const want of names) {
            const same = byName.get(want) || [];
            const after = same.find((f) =>
              el.compareDocumentPosition(f) & Node.DOCUMENT_POSITION_FOLLOWING);
            const target = after || same[same.length - 1];
            if (target) links.push(keys.get(target));
          }
        }
      }
      const outside = escapes(el, b, pg);
      if (outside) {
        out.hidden.push(`${header ? 'header' : 'label'} ${name} spills out of its ` +
                        `${where(outside)} on page ${n}`);
      }
      const id = out.labels.length;
      labelIds.set(el, id);
      out.labels.push({id, page: n, kind: header ? 'header' : 'label', name, scope,
                       text: el.textContent.replace(/\s+/g, ' ').trim(), box: rel(b),
                       lines: contentLines(el).map(rel), links});
    }
    // words: maximal runs of non-whitespace (any Unicode space, no-break spaces included)
    // on one printed line; adjacent text of touching inline elements joins ("[0%]")
    const walker = document.createTreeWalker(pg, NodeFilter.SHOW_TEXT);
    const wordRe = /\S+/g;
    const words = [];
    let node, prev = null, spaced = true;
    const pieceBoxes = (node, start, end) => {
      range.setStart(node, start); range.setEnd(node, end);
      const rects = lineBoxes(range.getClientRects());
      if (rects.length <= 1) return rects.length ? [[start, end, rects[0]]] : [];
      const pieces = [];  // a token wrapped over lines: one piece per line
      for (let k = start; k < end; k++) {
        range.setStart(node, k); range.setEnd(node, k + 1);
        const b = union(range.getClientRects());
        if (!b) continue;
        const last = pieces[pieces.length - 1];
        if (last && sameLine(last[2], b)) {
          last[1] = k + 1; last[2] = [Math.min(last[2][0], b[0]), Math.min(last[2][1], b[1]),
                                      Math.max(last[2][2], b[2]), Math.max(last[2][3], b[3])];
        } else pieces.push([k, k + 1, b]);
      }
      return pieces;
    };
    const context = new Map();  // parent element → its owners, block and cell
    while ((node = walker.nextNode())) {
      const text = node.nodeValue;
      const parent = node.parentElement;
      if (!parent) continue;
      let ctx = context.get(parent);
      if (!ctx) {
        ctx = {owner: parent.closest('[data-field]'), labelEl: parent.closest(LABELS),
               block: blockOf(parent), cell: parent.closest('td,th')};
        context.set(parent, ctx);
      }
      const {owner, labelEl, block, cell} = ctx;
      wordRe.lastIndex = 0;
      let m, cursor = 0;
      while ((m = wordRe.exec(text))) {
        if (m.index > cursor) spaced = true;
        cursor = m.index + m[0].length;
        const pieces = pieceBoxes(node, m.index, cursor);
        pieces.forEach(([s, e, b], k) => {
          const piece = text.slice(s, e);
          if (cell) {
            const c = ctx.cellRect || (ctx.cellRect = cell.getBoundingClientRect());
            if (b[0] < c.left - 1 || b[2] > c.right + 1 ||
                b[1] < c.top - 1 || b[3] > c.bottom + 1) {
              out.faults.push(`word ${piece} is clipped by its cell on page ${n}`);
            }
          }
          const touching = prev && !spaced && k === 0 && prev.block === block &&
            sameLine(prev.box, b) &&
            Math.max(b[0] - prev.box[2], prev.box[0] - b[2]) < 1.5;
          if (touching) {
            prev.text += piece;
            prev.box = [Math.min(prev.box[0], b[0]), Math.min(prev.box[1], b[1]),
                        Math.max(prev.box[2], b[2]), Math.max(prev.box[3], b[3])];
            if (prev.owner === null && owner) prev.owner = owner;
            if (prev.label === null && labelEl) prev.label = labelEl;
          } else {
            prev = {text: piece, box: b, owner, label: labelEl, block};
            words.push(prev);
          }
          spaced = false;
        });
      }
      if (cursor < text.length) spaced = true;
    }
    // lines: consecutive words of one block on one printed line; reading order is the
    // document order of the template (blocks), lines top to bottom, words in logical order
    let line = null;
    const pageLines = [];
    words.forEach((w, k) => {
      if (!line || line.block !== w.block || !sameLine(line.last, w.box)) {
        line = {page: n, number: pageLines.length, block: w.block,
                box: w.box.slice(), first: k, count: 0, last: w.box};
        pageLines.push(line);
      } else {
        line.box = [Math.min(line.box[0], w.box[0]), Math.min(line.box[1], w.box[1]),
                    Math.max(line.box[2], w.box[2]), Math.max(line.box[3], w.box[3])];
      }
      line.count += 1;
      line.last = w.box;
      const W = out.words;
      W.page.push(n); W.text.push(w.text); W.box.push(...rel(w.box));
      W.key.push(w.owner ? keyIds.get(w.owner) : -1);
      W.label.push(w.label && labelIds.has(w.label) ? labelIds.get(w.label) : -1);
      W.tline.push(line.number);
    });
    const L = out.lines;
    for (const l of pageLines) {
      L.page.push(n); L.number.push(l.number); L.box.push(...rel(l.box));
      L.first.push(l.first); L.count.push(l.count);
    }
    // table structure: every <table data-table=NAME>, one entry per cell
    pg.querySelectorAll('table[data-table]').forEach((table, t) => {
      Array.from(table.rows).forEach((tr, r) => {
        let col = 0;
        const marked = tr.querySelector('[data-line]');
        const rowLine = marked ? +marked.getAttribute('data-line') : null;
        for (const td of tr.cells) {
          const b = td.getBoundingClientRect();
          const first = td.querySelector('[data-field]');
          out.cells.push({page: n, table: table.getAttribute('data-table'), index: t, row: r,
                          column: col,
                          span: td.colSpan, header: td.tagName === 'TH',
                          text: td.textContent.replace(/\s+/g, ' ').trim(),
                          box: rel([b.left, b.top, b.right, b.bottom]),
                          field: first ? keys.get(first).field : null,
                          line: rowLine});
          col += td.colSpan;
        }
      });
    });
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
    box: Box  # points, top-left origin: the union of its line boxes
    lines: tuple[Box, ...] = ()  # one box per printed line, top to bottom


@dataclass(frozen=True)
class WordBox:
    page: int
    text: str
    box: Box
    field: str | None
    line: int | None
    occurrence: int | None
    label: int | None = None  # id of the LabelBox the word is printed in
    text_line: int = 0  # reading-order index of its TextLine on the page


@dataclass(frozen=True)
class TextLine:
    """Consecutive words of one block on one printed line."""

    page: int
    number: int  # reading order on the page, 0-based
    text: str  # its words joined by one space
    box: Box
    first_word: int  # index of its first word on the page
    words: int


@dataclass(frozen=True)
class Link:
    field: str
    line: int | None
    occurrence: int


@dataclass(frozen=True)
class LabelBox:
    """A printed key (``data-label``) or heading (``data-header``)."""

    id: int  # document-wide, in reading order
    page: int
    kind: str  # label | header
    name: str  # the field(s) it labels (space-separated) or the header's name
    scope: str | None  # value | column (labels only)
    text: str
    box: Box
    lines: tuple[Box, ...]
    links: tuple[Link, ...]


@dataclass(frozen=True)
class CellBox:
    """One cell of a ``<table data-table=NAME>``."""

    page: int
    table: str
    index: int  # the table's number on the page, 0-based
    row: int  # 0-based; the header row is row 0
    column: int
    span: int
    header: bool
    text: str
    box: Box
    field: str | None  # the first field printed in the cell
    line: int | None


@dataclass(frozen=True)
class Layout:
    pages: int
    fields: list[FieldBox]
    words: list[WordBox]
    faults: list[str]
    lines: list[TextLine] = dc_field(default_factory=list)
    labels: list[LabelBox] = dc_field(default_factory=list)
    cells: list[CellBox] = dc_field(default_factory=list)
    #: values a reader cannot see where their box says (see ``hidden`` in the script)
    hidden: list[str] = dc_field(default_factory=list)


def round3(values: Sequence[float], scale: float = 1.0) -> list[float]:
    """``[round(v * scale, 3) for v in values]``, the same floats, vectorised with Arrow
    (the image has pyarrow, not numpy): see :func:`round3_array`; ``round`` itself for
    every value in doubt."""
    import pyarrow.compute as pc  # lazy: pyarrow loads with the first layout, not here

    if not len(values):
        return []
    v = float64_array(values)
    if scale != 1.0:
        v = pc.multiply(v, scale)
    rounded, doubt = round3_array(v)
    out = floats(rounded)
    if doubt.true_count:
        exact = floats(v)
        for i in pc.indices_nonzero(doubt).to_pylist():
            out[i] = round(exact[i], 3)
    return out


def round3_array(v: Any) -> tuple[Any, Any]:
    """A float64 Arrow array rounded to 3 decimals, and which of its values are in doubt.
    ``rint(w * 1000) / 1000`` is the double nearest the correctly rounded decimal of
    ``w``, as ``round(w, 3)`` gives, wherever ``w * 1000`` lies clear of a half (its float
    error is far below 1e-6 for a page's coordinates); a value near a half, huge or not
    finite is in doubt (the caller rounds it with ``round``)."""
    import pyarrow.compute as pc  # lazy: as in round3

    scaled = pc.multiply(v, 1000.0)
    rounded = pc.divide(pc.round(scaled, 0, round_mode="half_to_even"), 1000.0)
    half = pc.abs(pc.subtract(pc.subtract(scaled, pc.floor(scaled)), 0.5))
    return rounded, pc.or_(pc.invert(pc.less(pc.abs(v), 1e6)), pc.less(half, 1e-6))


def float64_array(values: Sequence[float]) -> Any:
    """``values`` as a float64 Arrow array with no nulls, through one ``array('d')``."""
    import pyarrow as pa  # lazy: as in round3

    raw = array("d", values)
    return pa.Array.from_buffers(pa.float64(), len(raw), [None, pa.py_buffer(raw)])


def floats(a: Any) -> list[float]:
    """A float64 Arrow array with no nulls as Python floats, from its buffer."""
    values = memoryview(a.buffers()[1]).cast("d")
    out: list[float] = values[a.offset:a.offset + len(a)].tolist()  # type: ignore[assignment]
    return out


def parse_layout(raw: dict[str, Any]) -> Layout:
    """Convert the script's result (CSS px, parsed from the page's JSON) to points: every
    box at once (``round(v * PX_TO_PT, 3)`` each, :func:`round3`). Words and lines come
    as columns (see the script), a line's text is its words' joined by one space. Raises
    ``ValueError`` for a box of other than 4 values or columns of unequal length."""
    fields, labels, cells = raw["fields"], raw.get("labels", ()), raw.get("cells", ())
    words, lines = raw["words"], raw.get("lines") or _NO_LINES
    boxes: list[list[float]] = []
    for f in fields:
        boxes += [f["box"], *f.get("lines", ())]
    for lab in labels:
        boxes += [lab["box"], *lab["lines"]]
    boxes += [c["box"] for c in cells]
    flat: list[float] = []
    for box in boxes:
        if len(box) != 4:
            raise ValueError(f"a box of {len(box)} values: {box!r}")
        flat += box
    for name, columns in (("words", words), ("lines", lines)):
        count = len(columns["page"])
        if len(columns["box"]) != 4 * count or any(len(v) != count for k, v in
                                                   columns.items() if k != "box"):
            raise ValueError(f"{name}: columns of unequal length for {count} {name}")
    points = iter(round3(flat + words["box"] + lines["box"], PX_TO_PT))
    at: Iterator[Box] = zip(points, points, points, points, strict=True)  # boxes in order
    pt = at.__next__

    out_fields = [FieldBox(f["field"], f["line"], f["occ"], f["text"], f["page"], pt(),
                           tuple(islice(at, len(f.get("lines", ())))))
                  for f in fields]
    out_labels = [LabelBox(lab["id"], lab["page"], lab["kind"], lab["name"], lab["scope"],
                           lab["text"], pt(), tuple(islice(at, len(lab["lines"]))),
                           tuple(Link(k["field"], k["line"], k["occ"]) for k in lab["links"]))
                  for lab in labels]
    out_cells = [CellBox(c["page"], c["table"], c["index"], c["row"], c["column"], c["span"],
                         c["header"], c["text"], pt(), c["field"], c["line"]) for c in cells]
    keys: list[tuple[str | None, int | None, int | None]] = [
        (field, line, occ) for field, line, occ in raw.get("keys", ())]
    keys.append((None, None, None))  # index -1: no field
    out_words = []
    for page, text, key, label, tline in zip(words["page"], words["text"], words["key"],
                                             words["label"], words["tline"], strict=True):
        field, line, occ = keys[key]
        out_words.append(WordBox(page, text, pt(), field, line, occ,
                                 label if label >= 0 else None, tline))
    first_of_page: dict[int, int] = {}
    for k, page in enumerate(words["page"]):
        first_of_page.setdefault(page, k)
    texts = words["text"]
    out_lines = []
    for page, number, first, count in zip(lines["page"], lines["number"], lines["first"],
                                          lines["count"], strict=True):
        start = first_of_page.get(page, 0) + first
        out_lines.append(TextLine(page, number, " ".join(texts[start:start + count]), pt(),
                                  first, count))
    return Layout(raw["pages"], out_fields, out_words, list(raw["faults"]), out_lines,
                  out_labels, out_cells, list(raw.get("hidden", ())))


#: the script's columns when it reports no lines
_NO_LINES: dict[str, list[Any]] = {"page": [], "number": [], "box": [], "first": [],
                                   "count": []}
