"""Grade an extractor's predictions against a run's golden truth: precision, recall and
F1 per field and overall, by archetype, locale and condition, with IoU localisation when
predictions carry boxes. See :mod:`.core` for how predictions are counted,
:mod:`.normalize` for matching and :mod:`.predictions` for the file format."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from docfleet.export.reader import ExportError, RunReader
from docfleet.scoring.core import Scorer, Truth, assign
from docfleet.scoring.predictions import Prediction, PredictionsError, read_predictions

__all__ = ["Prediction", "PredictionsError", "Scorer", "Truth", "assign", "load_truth",
           "score_run"]


def load_truth(reader: RunReader) -> Truth:
    """The run's documents and printed fields, read through verified shards."""
    missing = [t for t in ("invoices", "fields") if t not in reader.tables()]
    if missing:
        raise ExportError(f"run {reader.run_id} has no {', '.join(missing)} table",
                          "scoring needs a pack with printed fields (the invoice pack)")
    truth = Truth()
    cols = ["document", "file", "archetype", "locale", "condition"]
    for part in reader.parts():
        for row in reader.shard(part, "invoices").select(cols).to_pylist():
            truth.add_document(row)
        for row in reader.shard(part, "fields").to_pylist():
            truth.add_field(row)
    return truth


def score_run(reader: RunReader, predictions: Path, exact: bool = False,
              iou_threshold: float = 0.5) -> dict[str, Any]:
    """Score ``predictions`` against ``reader``'s run; the JSON-ready report: ``overall``
    and ``fields`` (tp, fp, fn, support, precision, recall, f1 and, with boxes,
    ``localisation``), ``breakdown[dimension][value]`` with ``overall``, ``fields`` and
    ``documents``. Raises :class:`PredictionsError` for a bad file."""
    truth = load_truth(reader)
    preds = read_predictions(predictions, {d: a["file"] for d, a in truth.documents.items()})
    scorer = Scorer(truth, exact=exact, iou_threshold=iou_threshold)
    scorer.score(preds)
    report = scorer.report()
    report = {"run_id": reader.run_id, "predictions": len(preds),
              "partial": reader.partial, **report}
    return report
