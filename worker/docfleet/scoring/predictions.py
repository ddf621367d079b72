"""Reading a predictions file: JSONL (one object a line) or CSV (a header row), with the
columns ``document, field, value`` and optionally ``line``, ``page, x0, y0, x1, y1``.

- ``document``: the document index (``42``) or its file name (``000042.pdf``, as in
  ``invoices.file``; the name without extension is accepted too).
- ``line``: for per-line fields (line items, tax rows), an id grouping the predictions of
  one row; any value, it need not equal the printed row number.
- ``page`` (1-based) and ``x0, y0, x1, y1``: a box in PDF points, top-left origin, as in
  the golden tables. All four coordinates or none.

Raises :class:`PredictionsError` naming the file and line of the first bad record.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docfleet.export.reader import ExportError


class PredictionsError(ExportError):
    """A predictions file that cannot be read."""


@dataclass(frozen=True)
class Prediction:
    document: int
    field: str
    value: str
    line: str | None = None
    page: int | None = None
    box: tuple[float, float, float, float] | None = None
    source: int = 0  # line of the file, for messages


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and value.strip() == "")


def _record(raw: dict[str, Any], where: str, resolve: dict[str, int], number: int
            ) -> Prediction:
    for key in ("document", "field", "value"):
        if key not in raw or raw[key] is None:
            raise PredictionsError(f"{where}: missing '{key}'",
                                   "each record needs document, field and value")
    doc_raw = raw["document"]
    text = str(doc_raw).strip()
    if isinstance(doc_raw, int) or text.isdigit():
        document = int(text)
        if str(document) not in resolve:
            raise PredictionsError(f"{where}: document {document} is not in the run")
    elif text in resolve:
        document = resolve[text]
    else:
        raise PredictionsError(f"{where}: unknown document {text!r}",
                               "use the document index or its file name (invoices.file)")
    line = None if _blank(raw.get("line")) else str(raw["line"]).strip()
    coords = [raw.get(k) for k in ("x0", "y0", "x1", "y1")]
    box = None
    page = None
    if any(not _blank(c) for c in coords):
        try:
            x0, y0, x1, y1 = (float(c) for c in coords)  # type: ignore[arg-type]  # None/junk: caught below
        except (TypeError, ValueError):
            raise PredictionsError(f"{where}: a box needs numeric x0, y0, x1, y1") from None
        box = (min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))
    if not _blank(raw.get("page")):
        try:
            page = int(raw["page"])
        except (TypeError, ValueError):
            raise PredictionsError(f"{where}: page {raw['page']!r} is not a number") from None
    return Prediction(document, str(raw["field"]).strip(), str(raw["value"]), line, page,
                      box, number)


def read_predictions(path: Path, documents: dict[int, str]) -> list[Prediction]:
    """Every prediction of ``path`` (``.jsonl``/``.json`` or ``.csv``; other names are
    sniffed). ``documents`` maps each index of the run to its file name."""
    resolve: dict[str, int] = {str(i): i for i in documents}
    for index, name in documents.items():
        resolve.setdefault(name, index)
        resolve.setdefault(Path(name).stem, index)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise PredictionsError(f"cannot read predictions {path}: {exc.strerror}") from None
    out: list[Prediction] = []
    if not text.strip():
        return out  # no predictions: every golden field is a false negative
    jsonl = path.suffix.lower() in (".jsonl", ".json", ".ndjson") or (
        path.suffix.lower() != ".csv" and text.lstrip().startswith("{"))
    if jsonl:
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                raw = json.loads(line)
            except ValueError as exc:
                raise PredictionsError(f"{path}:{number}: not JSON ({exc})") from None
            if not isinstance(raw, dict):
                raise PredictionsError(f"{path}:{number}: expected a JSON object")
            out.append(_record(raw, f"{path}:{number}", resolve, number))
    else:
        reader = csv.DictReader(io.StringIO(text, newline=""))
        if reader.fieldnames is None or not {"document", "field", "value"} <= set(
                reader.fieldnames):
            raise PredictionsError(f"{path}: the CSV header must name document, field, value",
                                   "optional: line, page, x0, y0, x1, y1")
        for row in reader:
            number = reader.line_num  # the row's last physical line
            out.append(_record(row, f"{path}:{number}", resolve, number))
    return out
