"""Grade an extractor's predictions against a run's golden truth: precision, recall and
F1 per field and overall, by archetype, locale and condition, with IoU localisation when
predictions carry boxes. See :mod:`.core` for how predictions are counted,
:mod:`.normalize` for matching and :mod:`.predictions` for the file format."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import pyarrow.compute as pc

from docfleet.export.reader import ExportError, RunReader
from docfleet.scoring.core import Scorer, Truth, assign
from docfleet.scoring.predictions import Prediction, PredictionsError, read_predictions

__all__ = ["Prediction", "PredictionsError", "Scorer", "Truth", "assign", "load_documents",
           "score_run"]


def load_documents(reader: RunReader) -> tuple[Truth, dict[int, list[int]]]:
    """A :class:`Truth` with every document's attributes and the row-field names (no
    printed fields yet), and each unit's documents. Reads verified shards."""
    missing = [t for t in ("invoices", "fields") if t not in reader.tables()]
    if missing:
        raise ExportError(f"run {reader.run_id} has no {', '.join(missing)} table",
                          "scoring needs a pack with printed fields (the invoice pack)")
    truth = Truth()
    units: dict[int, list[int]] = {}
    cols = ["document", "file", "archetype", "locale", "condition"]
    for part in reader.parts():
        invoices = reader.shard(part, "invoices")
        wanted = cols + (["currency"] if "currency" in invoices.column_names else [])
        rows = invoices.select(wanted).to_pylist()
        for row in rows:
            truth.add_document(row)
        units[part.unit] = [row["document"] for row in rows]
        fields = reader.shard(part, "fields").select(["field", "line"])
        truth.known_fields.update(pc.unique(fields.column("field")).to_pylist())
        per_line = fields.filter(pc.is_valid(fields.column("line"))).column("field")
        truth.row_fields.update(pc.unique(per_line).to_pylist())
    return truth, units


def score_run(reader: RunReader, predictions: Path, exact: bool = False,
              iou_threshold: float = 0.5) -> dict[str, Any]:
    """Score ``predictions`` against ``reader``'s run; the JSON-ready report: ``overall``
    and ``fields`` (tp, fp, fn, support, precision, recall, f1 and, with boxes,
    ``localisation``), ``breakdown[dimension][value]`` with ``overall``, ``fields`` and
    ``documents``. The golden fields are read one unit at a time (memory holds the
    predictions and one unit's fields). Predictions of a field the run never holds are
    not scored: ``unknown_fields`` counts them by name (``known_fields`` lists the run's).
    Raises :class:`PredictionsError` for a bad file."""
    truth, units = load_documents(reader)
    preds = read_predictions(predictions, {d: a["file"] for d, a in truth.documents.items()})
    by_document: dict[int, list[Prediction]] = defaultdict(list)
    unknown: dict[str, int] = defaultdict(int)
    for pred in preds:
        if pred.field not in truth.known_fields:  # a naming mismatch, not a wrong value
            unknown[pred.field] += 1
            continue
        by_document[pred.document].append(pred)
    scorer = Scorer(truth, exact=exact, iou_threshold=iou_threshold)
    for part in reader.parts():
        truth.clear_fields()
        for row in reader.shard(part, "fields").to_pylist():
            truth.add_field(row)
        scorer.score([p for d in units[part.unit] for p in by_document.pop(d, [])])
    truth.clear_fields()
    report = scorer.report()
    return {"run_id": reader.run_id, "predictions": len(preds), "partial": reader.partial,
            "unknown_fields": dict(sorted(unknown.items())),
            "known_fields": sorted(truth.known_fields), **report}
