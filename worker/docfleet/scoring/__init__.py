"""Grade an extractor's predictions against a run's golden truth: precision, recall and
F1 per field and overall, by archetype, locale and condition, with IoU localisation when
predictions carry boxes. See :mod:`.core` for how predictions are counted,
:mod:`.normalize` for matching and :mod:`.predictions` for the file format."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import pyarrow.compute as pc

from docfleet.core.errors import ConfigError
from docfleet.export.reader import ExportError, RunReader
from docfleet.packs import load_pack
from docfleet.scoring.core import Scorer, Truth, assign
from docfleet.scoring.predictions import Prediction, PredictionsError, read_predictions

__all__ = ["SPLITS", "Prediction", "PredictionsError", "Scorer", "Truth", "assign",
           "document_table", "load_documents", "score_run"]


SPLITS = ("train", "validation", "test")


def document_table(reader: RunReader) -> tuple[str, str | None]:
    """The run's document table and the column holding its split (``None`` if the pack
    assigns none), as its pack declares them (:meth:`GoldenTables`); the invoice pack's
    for a run whose root does not name its pack (a partial read)."""
    params = (reader.root or {}).get("parameters") or {}
    if params.get("pack"):
        try:
            tables = load_pack(params["pack"]).tables(params.get("options") or {})
        except ConfigError:  # a pack this installation lacks: the invoice's names
            pass
        else:
            return tables.document, tables.split
    return "invoices", "split"


def load_documents(reader: RunReader) -> tuple[Truth, dict[int, list[int]],
                                               dict[int, str | None]]:
    """A :class:`Truth` with every document's attributes and the row-field names (no
    printed fields yet), each unit's documents and each document's split. Reads verified
    shards."""
    head, split = document_table(reader)
    missing = [t for t in (head, "fields") if t not in reader.tables()]
    if missing:
        raise ExportError(f"run {reader.run_id} has no {', '.join(missing)} table",
                          "scoring needs a pack with printed fields")
    truth = Truth()
    units: dict[int, list[int]] = {}
    splits: dict[int, str | None] = {}
    cols = ["document", "file", "archetype", "locale", "condition"]
    for part in reader.parts():
        docs = reader.shard(part, head)
        wanted = cols + [c for c in ("currency", split) if c and c in docs.column_names]
        rows = docs.select(wanted).to_pylist()
        for row in rows:
            truth.add_document(row)
            splits[row["document"]] = row.get(split) if split else None
        units[part.unit] = [row["document"] for row in rows]
        fields = reader.shard(part, "fields").select(["field", "line"])
        truth.known_fields.update(pc.unique(fields.column("field")).to_pylist())
        per_line = fields.filter(pc.is_valid(fields.column("line"))).column("field")
        truth.row_fields.update(pc.unique(per_line).to_pylist())
    return truth, units, splits


def _scope(truth: Truth, splits: dict[int, str | None], predicted: set[int], run_id: str,
           split: str | None, every: bool) -> tuple[set[int], str]:
    """The documents to score and how they were chosen (a sentence for the report)."""
    total = len(truth.documents)
    if split is not None:
        if split not in SPLITS:
            raise ExportError(f"--split {split} is not a split", "use train, validation or "
                              "test")
        if not any(s is not None for s in splits.values()):
            raise ExportError(f"run {run_id} assigns no splits", "leave out --split")
        chosen = {d for d, s in splits.items() if s == split}
        return chosen, f"the {len(chosen)} documents of split {split} (of {total})"
    if every:
        return set(truth.documents), f"every document of the run ({total})"
    chosen = predicted & set(truth.documents)
    if not chosen:
        raise ExportError(f"the predictions name no document of run {run_id}: nothing to "
                          "score", "to grade an empty prediction, score --all or a --split")
    return chosen, (f"the {len(chosen)} documents the predictions name (of {total}; --all "
                    "scores every document, --split a split)")


def score_run(reader: RunReader, predictions: Path, exact: bool = False,
              iou_threshold: float = 0.5, *, split: str | None = None,
              fields: list[str] | None = None, every: bool = False,
              worst: int = 10) -> dict[str, Any]:
    """Score ``predictions`` against ``reader``'s run; the JSON-ready report: ``overall``
    and ``fields`` (tp, fp, fn, support, precision, recall, f1 and, with boxes,
    ``localisation``), ``breakdown[dimension][value]`` with ``overall``, ``fields`` and
    ``documents``, and ``worst_documents`` (the ``worst`` documents with the most errors,
    each with its field diffs).

    Which documents: those the predictions name (default), every document of split
    ``split``, or every document (``every``); ``scope`` says which, ``run_documents`` how
    many the run has, ``outside_scope`` how many predictions fell outside it. ``fields``
    restricts the golden fields and predictions scored (``outside_fields`` counts the
    predictions left out). The golden fields are read one unit at a time (memory holds
    the predictions and one unit's fields). Predictions of a field the run never holds
    are not scored: ``unknown_fields`` counts them by name (``known_fields`` lists the
    run's). Raises :class:`PredictionsError` for a bad file, :class:`ExportError` for a
    split or field the run does not have."""
    truth, units, splits = load_documents(reader)
    if fields is not None:
        bad = sorted(set(fields) - truth.known_fields)
        if bad or not fields:
            raise ExportError(f"--fields names {', '.join(bad) or 'no field'}, which run "
                              f"{reader.run_id} does not have",
                              f"its fields are: {', '.join(sorted(truth.known_fields))}")
    preds = read_predictions(predictions, {d: a["file"] for d, a in truth.documents.items()})
    chosen, scope = _scope(truth, splits, {p.document for p in preds}, reader.run_id, split,
                           every)
    run_documents = len(truth.documents)
    truth.documents = {d: a for d, a in truth.documents.items() if d in chosen}
    by_document: dict[int, list[Prediction]] = defaultdict(list)
    unknown: dict[str, int] = defaultdict(int)
    outside = {"scope": 0, "fields": 0}
    for pred in preds:
        if pred.field not in truth.known_fields:  # a naming mismatch, not a wrong value
            unknown[pred.field] += 1
        elif pred.document not in chosen:
            outside["scope"] += 1
        elif fields is not None and pred.field not in fields:
            outside["fields"] += 1
        else:
            by_document[pred.document].append(pred)
    scorer = Scorer(truth, exact=exact, iou_threshold=iou_threshold, worst=worst)
    for part in reader.parts():
        if not chosen.intersection(units[part.unit]):
            continue
        truth.clear_fields()
        for row in reader.shard(part, "fields").to_pylist():
            if row["document"] in chosen and (fields is None or row["field"] in fields):
                truth.add_field(row)
        scorer.score([p for d in units[part.unit] for p in by_document.pop(d, [])])
    truth.clear_fields()
    report = scorer.report()
    return {"run_id": reader.run_id, "predictions": len(preds), "partial": reader.partial,
            "scope": scope, "split": split, "scored_fields": fields,
            "run_documents": run_documents, "outside_scope": outside["scope"],
            "outside_fields": outside["fields"],
            "unknown_fields": dict(sorted(unknown.items())),
            "known_fields": sorted(truth.known_fields), **report}
