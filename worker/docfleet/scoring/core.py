"""Scoring predictions against a run's golden ``fields`` table.

Counting (micro-averaged; every prediction is a claim):

- **Header fields** (``line`` null in the golden table, e.g. ``total``): one truth per
  (document, field), matched by any of its printed occurrences. The first matching
  prediction is a true positive; every other prediction of that (document, field) is a
  false positive; a truth nobody matched is a false negative. A wrong value is therefore
  one FP and one FN, a missing field one FN, a field the document does not print one FP.
- **Row fields** (``line`` set: line items and tax rows, scored as two separate sets):
  per document, predicted rows (predictions sharing a ``line`` id) are aligned to golden
  rows by the assignment maximising the number of matching fields (the Hungarian
  algorithm, :func:`assign`), never by position or printed row number. Then each field of
  an aligned pair counts as above; predictions of an unaligned row are FPs, fields of an
  unaligned golden row FNs. Row-field predictions without a ``line`` are matched per
  field against the golden values the rows left unmatched (a multiset).
- **Localisation**: for each true positive that carries a box, the IoU with the golden
  box of that occurrence (best over occurrences, same page when a page is given);
  ``accuracy`` is the share with IoU ≥ the threshold (default 0.5).

The documents scored are those of :attr:`Truth.documents` (the caller chooses them: by
default the documents the predictions name, or a split, or every document); a scored
document without a prediction of some field counts that field as a false negative.
Precision without any prediction is 0 (1 if there was nothing to find); recall likewise.
Breakdowns repeat the counts per archetype, locale and condition.

**Worst documents**: per document, its counts and its differences (each FN paired with
an FP of the same field and row as one ``expected`` / ``predicted`` diff; the rest alone);
the ``worst`` documents with the most errors (then the lowest F1) are kept.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from docfleet.scoring.normalize import field_kind, matches
from docfleet.scoring.predictions import Prediction

#: golden fields scored as a set of rows per document, by group
ROW_GROUPS: dict[str, str] = {"tax_rate": "tax_rows", "tax_base": "tax_rows",
                              "tax_amount": "tax_rows"}
DEFAULT_ROW_GROUP = "line_items"
DIMENSIONS = ("archetype", "locale", "condition")


@dataclass(slots=True)
class Occurrence:
    value: str
    text: str
    page: int | None
    box: tuple[float, float, float, float] | None


@dataclass
class Counts:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    boxes: int = 0
    localised: int = 0
    iou_sum: float = 0.0

    def add(self, other: Counts) -> None:
        self.tp += other.tp
        self.fp += other.fp
        self.fn += other.fn
        self.boxes += other.boxes
        self.localised += other.localised
        self.iou_sum += other.iou_sum

    def as_dict(self) -> dict[str, Any]:
        precision = self.tp / (self.tp + self.fp) if self.tp + self.fp else float(self.fn == 0)
        recall = self.tp / (self.tp + self.fn) if self.tp + self.fn else float(self.fp == 0)
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        out: dict[str, Any] = {"tp": self.tp, "fp": self.fp, "fn": self.fn,
                               "support": self.tp + self.fn,
                               "precision": precision, "recall": recall, "f1": f1}
        if self.boxes:
            out["localisation"] = {"boxes": self.boxes, "localised": self.localised,
                                   "accuracy": self.localised / self.boxes,
                                   "mean_iou": self.iou_sum / self.boxes}
        return out


@dataclass
class Truth:
    """The golden side: every document's attributes and the names of the row fields
    (held for the whole run), and the printed fields of the documents being scored (one
    unit at a time: :meth:`clear_fields` between units keeps memory flat)."""

    documents: dict[int, dict[str, str]] = field(default_factory=dict)
    header: dict[tuple[int, str], list[Occurrence]] = field(default_factory=dict)
    #: (document, group) → line → field → occurrences
    rows: dict[tuple[int, str], dict[int, dict[str, list[Occurrence]]]] = field(
        default_factory=dict)
    row_fields: set[str] = field(default_factory=set)
    #: every field name the run's golden ``fields`` table holds (any document)
    known_fields: set[str] = field(default_factory=set)

    def add_document(self, row: dict[str, Any]) -> None:
        self.documents[row["document"]] = {
            "file": row["file"], "archetype": row["archetype"], "locale": row["locale"],
            "condition": row["condition"], "currency": row.get("currency") or ""}

    def clear_fields(self) -> None:
        self.header.clear()
        self.rows.clear()

    def add_field(self, row: dict[str, Any]) -> None:
        box = None if row["x0"] is None else (row["x0"], row["y0"], row["x1"], row["y1"])
        occ = Occurrence(row["value"], row["text"], row["page"], box)
        if row["line"] is None:
            self.header.setdefault((row["document"], row["field"]), []).append(occ)
        else:
            self.row_fields.add(row["field"])
            group = ROW_GROUPS.get(row["field"], DEFAULT_ROW_GROUP)
            lines = self.rows.setdefault((row["document"], group), {})
            lines.setdefault(row["line"], {}).setdefault(row["field"], []).append(occ)


def iou(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def assign(score: list[list[float]]) -> list[tuple[int, int]]:
    """Hungarian algorithm: the (row, column) pairs maximising the summed ``score`` of a
    rectangular matrix; every row or every column (whichever are fewer) is assigned."""
    if not score or not score[0]:
        return []
    transposed = len(score) > len(score[0])
    matrix = [list(col) for col in zip(*score, strict=True)] if transposed else score
    n, m = len(matrix), len(matrix[0])
    big = max(max(r) for r in matrix)
    cost = [[big - v for v in r] for r in matrix]
    inf = float("inf")
    u, v = [0.0] * (n + 1), [0.0] * (m + 1)
    p, way = [0] * (m + 1), [0] * (m + 1)
    for i in range(1, n + 1):
        p[0] = i
        j0 = 0
        minv = [inf] * (m + 1)
        used = [False] * (m + 1)
        while True:
            used[j0] = True
            i0, delta, j1 = p[j0], inf, 0
            for j in range(1, m + 1):
                if not used[j]:
                    cur = cost[i0 - 1][j - 1] - u[i0] - v[j]
                    if cur < minv[j]:
                        minv[j], way[j] = cur, j0
                    if minv[j] < delta:
                        delta, j1 = minv[j], j
            for j in range(m + 1):
                if used[j]:
                    u[p[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while True:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
            if j0 == 0:
                break
    pairs = [(p[j] - 1, j - 1) for j in range(1, m + 1) if p[j] != 0]
    return sorted((c, r) for r, c in pairs) if transposed else sorted(pairs)


def pair_misses(misses: list[tuple[str, int | None, Prediction | None, Occurrence | None]]
                ) -> list[dict[str, Any]]:
    """One document's FPs and FNs as diffs: an FN and an FP of the same field and golden
    row are one wrong value (``expected`` and ``printed`` from the truth, ``predicted``);
    an FN alone was missed (``predicted`` null), an FP alone invented (``expected``
    null)."""
    wrong: dict[tuple[str, int | None], list[Prediction]] = defaultdict(list)
    for name, line, pred, _ in misses:
        if pred is not None:
            wrong[(name, line)].append(pred)
    diffs = []
    for name, line, _pred, occ in misses:
        if occ is None:
            continue
        partner = wrong[(name, line)].pop(0) if wrong[(name, line)] else None
        diffs.append({"field": name, "line": line, "expected": occ.value,
                      "printed": occ.text, "predicted": partner.value if partner else None})
    for (name, line), preds in wrong.items():
        diffs += [{"field": name, "line": line, "expected": None, "printed": None,
                   "predicted": p.value} for p in preds]
    # wrong values first, then invented, then missed; header fields before rows
    return sorted(diffs, key=lambda d: (d["predicted"] is None, d["expected"] is None,
                                        d["line"] is not None, d["line"] or 0, d["field"]))


class Scorer:
    """Accumulates counts per field and per (dimension, value, field)."""

    def __init__(self, truth: Truth, exact: bool = False, iou_threshold: float = 0.5,
                 worst: int = 10) -> None:
        self.truth = truth
        self.exact = exact
        self.iou_threshold = iou_threshold
        self.fields: dict[str, Counts] = defaultdict(Counts)
        self.by: dict[tuple[str, str, str], Counts] = defaultdict(Counts)
        self.worst_kept = worst
        self.worst: list[dict[str, Any]] = []
        #: the documents of the batch being scored: counts, and FPs and FNs by (field, row)
        self._doc_counts: dict[int, Counts] = defaultdict(Counts)
        self._misses: dict[int, list[tuple[str, int | None, Prediction | None,
                                           Occurrence | None]]] = defaultdict(list)

    def _count(self, doc: int, name: str, pred: Prediction | None = None,
               occurrences: list[Occurrence] | None = None, line: int | None = None) -> None:
        """Record one TP (pred and occurrences), FP (pred only) or FN (occurrences only);
        ``line``: the golden row the prediction or truth belongs to, if any."""
        delta = Counts()
        if pred is not None and occurrences is not None:
            delta.tp = 1
            if pred.box is not None:
                boxes = [o.box for o in occurrences if o.box is not None
                         and (pred.page is None or o.page == pred.page)]
                best = max((iou(pred.box, b) for b in boxes), default=0.0)
                delta.boxes, delta.iou_sum = 1, best
                delta.localised = int(best >= self.iou_threshold)
        elif pred is not None:
            delta.fp = 1
            self._misses[doc].append((name, line, pred, None))
        else:
            delta.fn = 1
            self._misses[doc].append((name, line, None, occurrences[0] if occurrences else None))
        self._doc_counts[doc].add(delta)
        self.fields[name].add(delta)
        attrs = self.truth.documents[doc]
        for dim in DIMENSIONS:
            self.by[(dim, attrs[dim], name)].add(delta)

    def _matches(self, doc: int, name: str, pred: Prediction, occ: list[Occurrence]) -> bool:
        attrs = self.truth.documents[doc]
        kind = field_kind(name, occ[0].value)
        return any(matches(kind, pred.value, o.value, o.text, attrs["locale"], self.exact,
                           attrs.get("currency")) for o in occ)

    def score(self, predictions: list[Prediction]) -> None:
        """Count ``predictions`` against the fields now in :attr:`truth` (the predictions
        must be those of the documents whose fields are loaded, and no others)."""
        header: dict[tuple[int, str], list[Prediction]] = defaultdict(list)
        rows: dict[tuple[int, str], dict[str | None, list[Prediction]]] = defaultdict(
            lambda: defaultdict(list))
        for pred in predictions:
            if pred.field in self.truth.row_fields:
                group = ROW_GROUPS.get(pred.field, DEFAULT_ROW_GROUP)
                rows[(pred.document, group)][pred.line].append(pred)
            else:
                header[(pred.document, pred.field)].append(pred)
        for key in sorted(set(header) | set(self.truth.header)):
            self._score_header(key, header.get(key, []))
        for key in sorted(set(rows) | set(self.truth.rows)):
            self._score_rows(key, rows.get(key, {}))
        self._keep_worst()

    def _keep_worst(self) -> None:
        """Fold the batch's documents into :attr:`worst` (bounded) and forget them."""
        for doc, counts in self._doc_counts.items():
            if counts.fp + counts.fn == 0:
                continue
            attrs = self.truth.documents[doc]
            self.worst.append({"document": doc, **{k: attrs[k] for k in (
                "file", "archetype", "locale", "condition")}, **counts.as_dict(),
                "diffs": pair_misses(self._misses.get(doc, []))})
        self.worst.sort(key=lambda d: (-(d["fp"] + d["fn"]), d["f1"], d["document"]))
        del self.worst[self.worst_kept:]
        self._doc_counts.clear()
        self._misses.clear()

    def _score_header(self, key: tuple[int, str], preds: list[Prediction]) -> None:
        doc, name = key
        occ = self.truth.header.get(key)
        matched = False
        for pred in preds:
            if occ is not None and not matched and self._matches(doc, name, pred, occ):
                matched = True
                self._count(doc, name, pred, occ)
            else:
                self._count(doc, name, pred)
        if occ is not None and not matched:
            self._count(doc, name, None, occ)

    def _score_rows(self, key: tuple[int, str], by_line: dict[str | None, list[Prediction]]
                    ) -> None:
        doc, _group = key
        golden = self.truth.rows.get(key, {})
        g_lines = sorted(golden)
        p_ids = sorted((k for k in by_line if k is not None), key=str)
        open_fields = {g: dict(golden[g]) for g in g_lines}  # unmatched truths per line

        def gain(pid: str, g: int) -> int:
            seen: set[str] = set()
            total = 0
            for pred in by_line[pid]:
                occ = golden[g].get(pred.field)
                if occ and pred.field not in seen and self._matches(doc, pred.field, pred, occ):
                    seen.add(pred.field)
                    total += 1
            return total

        pairs = assign([[gain(pid, g) for g in g_lines] for pid in p_ids]) if g_lines else []
        partner = {p_ids[i]: g_lines[j] for i, j in pairs}
        for pid in p_ids:
            g = partner.get(pid)
            for pred in by_line[pid]:
                occ = open_fields[g].get(pred.field) if g is not None else None
                if g is not None and occ and self._matches(doc, pred.field, pred, occ):
                    del open_fields[g][pred.field]
                    self._count(doc, pred.field, pred, occ)
                else:
                    self._count(doc, pred.field, pred, line=g)
        for pred in by_line.get(None, []):  # no line id: any open truth of that field
            hit = next((g for g in g_lines if pred.field in open_fields[g] and self._matches(
                doc, pred.field, pred, open_fields[g][pred.field])), None)
            if hit is None:
                self._count(doc, pred.field, pred)
            else:
                self._count(doc, pred.field, pred, open_fields[hit].pop(pred.field))
        for g in g_lines:
            for name, occ in open_fields[g].items():
                self._count(doc, name, None, occ, line=g)

    def report(self) -> dict[str, Any]:
        """The results as a JSON-ready dict (see :func:`docfleet.scoring.score_run`)."""
        overall = Counts()
        for counts in self.fields.values():
            overall.add(counts)
        breakdown: dict[str, dict[str, Any]] = {}
        for (dim, value, name), counts in sorted(self.by.items()):
            entry = breakdown.setdefault(dim, {}).setdefault(
                value, {"overall": Counts(), "fields": {}})
            entry["overall"].add(counts)
            entry["fields"][name] = counts.as_dict()
        for by_value in breakdown.values():
            for entry in by_value.values():
                entry["overall"] = entry["overall"].as_dict()
        docs = self.truth.documents
        for dim in DIMENSIONS:
            for value, entry in breakdown.get(dim, {}).items():
                entry["documents"] = sum(1 for d in docs.values() if d[dim] == value)
        return {
            "mode": "exact" if self.exact else "normalised",
            "iou_threshold": self.iou_threshold,
            "documents": len(docs),
            "overall": overall.as_dict(),
            "fields": {name: c.as_dict() for name, c in sorted(self.fields.items())},
            "breakdown": breakdown,
            "worst_documents": self.worst,
        }
