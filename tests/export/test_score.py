"""`docfleet score` on a real invoice run: perfect predictions (made from the golden
tables) score 1.0 everywhere; a file with planted mistakes scores exactly what was
planted; normalisation and alignment units."""

from __future__ import annotations

import csv
import datetime as dt
import json
import re
from collections import Counter
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from exportlib import Run, invoice_run, invoke

from docfleet.scoring import assign
from docfleet.scoring.normalize import parse_date, parse_number
from support.fleet import cli


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    return invoice_run(tmp_path_factory)


def golden(run: Run) -> tuple[list[dict[str, Any]], dict[int, dict[str, Any]]]:
    fields = [r for r in run.shards("fields").to_pylist() if r["occurrence"] == 0]
    invoices = {r["document"]: r for r in run.shards("invoices").to_pylist()}
    return fields, invoices


def perfect(run: Run, boxes: bool = True) -> list[dict[str, Any]]:
    fields, _ = golden(run)
    out = []
    for f in fields:
        row: dict[str, Any] = {"document": f["document"], "field": f["field"],
                               "value": f["value"]}
        if f["line"] is not None:
            row["line"] = f"L{f['line']}"
        if boxes and f["x0"] is not None:
            row.update(page=f["page"], x0=f["x0"], y0=f["y0"], x1=f["x1"], y1=f["y1"])
        out.append(row)
    return out


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    return path


def score(run: Run, predictions: Path, *extra: str) -> dict[str, Any]:
    done = invoke("score", run.run_id, "--out", run.out, "--predictions", str(predictions),
                  "--output", "-", *extra)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def all_metrics(report: dict[str, Any]) -> list[dict[str, Any]]:
    found = [report["overall"], *report["fields"].values()]
    for groups in report["breakdown"].values():
        for entry in groups.values():
            found.append(entry["overall"])
            found.extend(entry["fields"].values())
    return found


def test_perfect_predictions_score_one_everywhere(run: Run, tmp_path: Path) -> None:
    preds = write_jsonl(tmp_path / "p.jsonl", perfect(run))
    # one real process end to end, the rest in-process
    done = cli("score", run.run_id, "--out", run.out, "--predictions", str(preds),
               "--output", str(tmp_path / "r.json"), "--output", str(tmp_path / "r.html"))
    assert done.returncode == 0, done.stderr
    assert "overall" in done.stdout and "by locale" in done.stdout
    report = json.loads((tmp_path / "r.json").read_text())
    fields, invoices = golden(run)
    assert report["documents"] == 24 and report["predictions"] == len(fields)
    assert report["overall"]["support"] == len(fields)
    for m in all_metrics(report):
        assert (m["precision"], m["recall"], m["f1"]) == (1.0, 1.0, 1.0)
        assert m["localisation"]["accuracy"] == 1.0
        assert m["localisation"]["mean_iou"] == pytest.approx(1.0)
    dims = report["breakdown"]
    assert set(dims["archetype"]) == {r["archetype"] for r in invoices.values()}
    assert set(dims["locale"]) == {r["locale"] for r in invoices.values()}
    assert set(dims["condition"]) == {r["condition"] for r in invoices.values()}
    page = (tmp_path / "r.html").read_text()
    assert page.count("<svg") == len(report["fields"]) + 1 + 3
    assert not re.search(r"""(src|href)\s*=|@import|url\(""", page), "self-contained"
    # the same truth as CSV keyed by file name, printed text instead of canonical values,
    # line items in reverse order with other line ids: still perfect (not by position)
    texts = {(f["document"], f["field"], f["line"]): f["text"]
             for f in run.shards("fields").to_pylist()}
    with (tmp_path / "p.csv").open("w", newline="") as fh:
        w = csv.DictWriter(fh, ["document", "field", "value", "line"])
        w.writeheader()
        for f in reversed(fields):
            w.writerow({"document": invoices[f["document"]]["file"], "field": f["field"],
                        "value": texts[(f["document"], f["field"], f["line"])],
                        "line": "" if f["line"] is None else f"row-{100 - f['line']}"})
    report = score(run, tmp_path / "p.csv")
    assert "localisation" not in report["overall"]
    for m in all_metrics(report):
        assert (m["precision"], m["recall"], m["f1"]) == (1.0, 1.0, 1.0)
    # exact mode: canonical values pass, printed money does not
    assert score(run, preds, "--exact")["overall"]["f1"] == 1.0
    exact = score(run, tmp_path / "p.csv", "--exact")
    money = [f for f in fields if f["field"] == "total"]
    assert exact["fields"]["total"]["tp"] == sum(f["text"] == f["value"] for f in money) == 0


def french(amount: Decimal) -> str:
    whole, frac = f"{amount:.2f}".split(".")
    return f"{int(whole):,}".replace(",", "\u202f") + f",{frac}\u00a0€"


def test_planted_mistakes_give_exactly_the_expected_numbers(run: Run, tmp_path: Path) -> None:
    fields, invoices = golden(run)
    support = Counter(f["field"] for f in fields)
    preds = perfect(run, boxes=False)
    docs = sorted(invoices)
    # 1. wrong totals on two documents: 2 FP + 2 FN on `total`
    wrong = docs[:2]
    for p in preds:
        if p["field"] == "total" and p["document"] in wrong:
            p["value"] = str(Decimal(p["value"]) + Decimal("0.01"))
    # 2. missing fields: seller_name of one document, every field of one line item
    missing_line = next(p for p in preds if p["document"] == docs[2] and p.get("line")
                        and p["field"] == "sku")["line"]
    dropped = Counter(p["field"] for p in preds
                      if p["document"] == docs[2] and p.get("line") == missing_line
                      and p["field"] not in ("tax_rate", "tax_base", "tax_amount"))
    preds = [p for p in preds if not (p["document"] == docs[3] and p["field"] == "seller_name")
             and not (p["document"] == docs[2] and p.get("line") == missing_line
                      and p["field"] in dropped)]
    dropped["seller_name"] += 1
    # 3. locale-formatted money (in the invoice's own currency: another currency never
    # matches), dates and text that must still match
    eur = [d for d in docs[4:] if invoices[d]["currency"] == "EUR"]
    usd = [d for d in docs[4:] if invoices[d]["currency"] == "USD"]
    for p in preds:
        if p["document"] == eur[0] and p["field"] in ("subtotal", "net_amount"):
            p["value"] = french(Decimal(p["value"]))
        if p["document"] == usd[0] and p["field"] == "total":
            p["value"] = f"${Decimal(p['value']):,.2f}"
        if p["document"] == eur[1] and p["field"] == "tax_total":
            p["value"] = "EUR " + f"{Decimal(p['value']):,.2f}".replace(",", "X").replace(
                ".", ",").replace("X", ".")
        if p["document"] == docs[6] and p["field"] == "issue_date":
            day = dt.date.fromisoformat(p["value"])
            p["value"] = f"{day.day}. {['Januar', 'Februar', 'März', 'April', 'Mai', 'Juni', 'Juli', 'August', 'September', 'Oktober', 'November', 'Dezember'][day.month - 1]} {day.year}"  # noqa: E501
        if p["document"] == docs[7] and p["field"] == "seller_name":
            p["value"] = "  " + p["value"].upper() + " "
    # 4. an invented line item and a duplicated invoice number: FPs
    preds.append({"document": docs[8], "field": "sku", "value": "NOPE-1", "line": "extra"})
    preds.append({"document": docs[8], "field": "description", "value": "Nothing",
                  "line": "extra"})
    preds.append({"document": docs[9], "field": "invoice_number", "value": "X-0"})
    report = score(run, write_jsonl(tmp_path / "planted.jsonl", preds))

    fp = Counter({"total": 2, "sku": 1, "description": 1, "invoice_number": 1})
    fn = Counter({"total": 2}) + dropped
    for name, m in report["fields"].items():
        assert (m["fp"], m["fn"], m["support"]) == (fp[name], fn[name], support[name]), name
        assert m["tp"] == support[name] - fn[name]
        assert m["precision"] == pytest.approx(m["tp"] / (m["tp"] + fp[name]))
        assert m["recall"] == pytest.approx(m["tp"] / support[name])
    total = report["fields"]["total"]
    n = support["total"]
    assert total["precision"] == pytest.approx((n - 2) / n)
    assert total["f1"] == pytest.approx((n - 2) / n)
    overall = report["overall"]
    tp = len(fields) - sum(fn.values())
    assert (overall["tp"], overall["fp"], overall["fn"]) == (tp, 5, sum(fn.values()))
    assert overall["precision"] == pytest.approx(tp / (tp + 5))
    assert overall["recall"] == pytest.approx(tp / len(fields))
    # the breakdown puts each mistake under its document's locale
    locale_fp = Counter(invoices[d]["locale"] for d in wrong)
    for locale, entry in report["breakdown"]["locale"].items():
        assert entry["fields"]["total"]["fp"] == locale_fp[locale]


def test_boxes_are_scored_by_iou(run: Run, tmp_path: Path) -> None:
    preds = perfect(run)
    boxed = [p for p in preds if "x0" in p]
    # shift one box by half its width (IoU 1/3), one onto the wrong page
    half = boxed[0]
    half["x0"], half["x1"] = (half["x0"] + (half["x1"] - half["x0"]) / 2,
                              half["x1"] + (half["x1"] - half["x0"]) / 2)
    boxed[1]["page"] = boxed[1]["page"] + 5
    report = score(run, write_jsonl(tmp_path / "b.jsonl", preds))
    loc = report["overall"]["localisation"]
    assert report["overall"]["f1"] == 1.0, "a box never changes value matching"
    assert (loc["boxes"], loc["localised"]) == (len(boxed), len(boxed) - 2)
    assert loc["mean_iou"] == pytest.approx((len(boxed) - 2 + 1 / 3) / len(boxed))


def test_bad_predictions_are_one_line_errors(run: Run, tmp_path: Path) -> None:
    for body, words in [
        ('{"document": 99999, "field": "total", "value": "1"}\n', "not in the run"),
        ('{"document": "nope.pdf", "field": "total", "value": "1"}\n', "unknown document"),
        ('{"document": 0, "value": "1"}\n', "missing 'field'"),
        ("not json\n", "not JSON"),
    ]:
        path = tmp_path / "bad.jsonl"
        path.write_text(body)
        done = invoke("score", run.run_id, "--out", run.out, "--predictions", str(path))
        assert done.returncode == 2 and words in done.stderr and "bad.jsonl:1" in done.stderr
        assert "Traceback" not in done.stderr


@pytest.mark.parametrize(("text", "locale", "value"), [
    ("1 234,50 €", "fr-FR", "1234.50"), ("1.234,50", "de-DE", "1234.50"),
    ("$1,234.50", "en-US", "1234.50"), ("£1,234.5", "en-GB", "1234.50"),
    ("1\u202f234,50\u00a0€", "fr-FR", "1234.5"), ("EUR 1234.50", None, "1234.50"),
    ("1'234.50 CHF", "de-CH", "1234.50"), ("-12,00 €", "fr-FR", "-12"),
    ("(12.00)", "en-US", "-12"), ("8,875 %", "fr-FR", "8.875"), ("20%", "en-US", "20"),
    ("7.988,591", "de-DE", "7988.591"), ("1,234", "en-US", "1234"),
    ("1,234", "fr-FR", "1.234"),
])
def test_numbers_parse_whatever_the_locale(text: str, locale: str | None, value: str) -> None:
    assert parse_number(text, locale) == Decimal(value)


@pytest.mark.parametrize("text", ["2024-03-31", "31/03/2024", "31.03.2024", "31 mars 2024",
                                  "31. März 2024", "March 31, 2024", "Mar 31 2024",
                                  "31-Mar-24", "2024/03/31", "31 de marzo de 2024",
                                  "2024-03-31T00:00:00Z"])
def test_dates_parse_in_common_formats(text: str) -> None:
    assert parse_date(text, "fr-FR") == dt.date(2024, 3, 31)


def test_dates_follow_the_locale_when_ambiguous() -> None:
    assert parse_date("04/03/2024", "en-US") == dt.date(2024, 4, 3)
    assert parse_date("04/03/2024", "en-GB") == dt.date(2024, 3, 4)
    assert parse_number("total", None) is None and parse_date("soon", None) is None


def test_assignment_maximises_matches_not_position() -> None:
    # rows: predicted lines, columns: golden lines; the best total is 3 + 3 + 2
    gain = [[1, 3, 0], [3, 1, 0], [0, 0, 2]]
    assert assign(gain) == [(0, 1), (1, 0), (2, 2)]
    assert assign([[0, 5], [4, 0], [3, 3]]) == [(0, 1), (1, 0)]  # more rows than columns
    assert assign([[2, 1, 3]]) == [(0, 2)]
