"""`docfleet score` grades what was predicted: by default only the documents the
predictions name (and says so), `--split` a split's documents, `--all` every document,
`--fields` some fields; the worst documents are listed with their field diffs (expected vs
predicted) in the text and JSON reports. On the shared 24-invoice run, and a receipt
run (any pack's document table)."""

from __future__ import annotations

import json
from collections import Counter
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from exportlib import CHROMIUM, Run, fleet_run, invoice_run, invoke

from support.errors import assert_one_line_error
from support.needs import require

FOUR = ["invoice_number", "issue_date", "seller_name", "total"]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    return invoice_run(tmp_path_factory)


def first_fields(run: Run) -> list[dict[str, Any]]:
    return [r for r in run.shards("fields").to_pylist() if r["occurrence"] == 0]


def predict(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for f in rows:
        pred = {"document": f["document"], "field": f["field"], "value": f["value"]}
        if f["line"] is not None:
            pred["line"] = f"r{f['line']}"
        out.append(pred)
    return out


def write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    return path


def score(run: Run, preds: Path, *extra: str) -> tuple[dict[str, Any], str]:
    done = invoke("score", run.run_id, "--out", run.out, "--predictions", str(preds),
                  "--output", "-", *extra)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), done.stderr


def test_only_the_predicted_documents_are_scored_by_default(run: Run, tmp_path: Path) -> None:
    fields = first_fields(run)
    docs = sorted({f["document"] for f in fields})
    chosen = docs[:4]
    preds = write(tmp_path / "p.jsonl", predict(
        [f for f in fields if f["document"] in chosen and f["field"] in FOUR]))
    report, err = score(run, preds)
    assert report["documents"] == 4 and report["run_documents"] == len(docs)
    assert "the 4 documents the predictions name (of 24" in report["scope"]
    assert "note: scored the 4 documents the predictions name" in err
    for name in FOUR:
        assert report["fields"][name]["recall"] == 1.0, name
    # the other fields of those 4 documents were not predicted: false negatives
    support = Counter(f["field"] for f in fields if f["document"] in chosen)
    assert report["overall"]["support"] == sum(support.values())
    assert report["fields"]["buyer_name"]["fn"] == support["buyer_name"]
    assert sum(e["documents"] for e in report["breakdown"]["locale"].values()) == 4
    # --fields: only those four are graded: perfect
    only, _ = score(run, preds, "--fields", ",".join(FOUR))
    assert set(only["fields"]) == set(FOUR) and only["scored_fields"] == FOUR
    assert (only["overall"]["precision"], only["overall"]["recall"]) == (1.0, 1.0)
    assert only["overall"]["support"] == 4 * 4 and only["worst_documents"] == []
    # --all: every document of the run, the rest unpredicted
    every, _ = score(run, preds, "--all", "--fields", "total")
    assert every["documents"] == len(docs)
    assert every["fields"]["total"]["recall"] == pytest.approx(4 / len(docs))


def test_a_split_scores_its_documents_only(run: Run, tmp_path: Path) -> None:
    invoices = {r["document"]: r["split"] for r in run.shards("invoices").to_pylist()}
    fields = first_fields(run)
    preds = predict(fields)
    for split in ("train", "test"):
        members = {d for d, s in invoices.items() if s == split}
        report, err = score(run, write(tmp_path / "p.jsonl", preds), "--split", split)
        assert report["documents"] == len(members) and report["split"] == split
        assert report["outside_scope"] == sum(p["document"] not in members for p in preds)
        assert "outside that scope" in err
        assert report["overall"]["support"] == sum(f["document"] in members for f in fields)
        if members:
            assert report["overall"]["f1"] == 1.0
    # a split predicted for half its documents: the other half counts as missed
    test_docs = sorted(d for d, s in invoices.items() if s == "train")
    half = set(test_docs[: len(test_docs) // 2])
    report, _ = score(run, write(tmp_path / "h.jsonl", [p for p in preds
                                                         if p["document"] in half]),
                      "--split", "train", "--fields", "total")
    assert report["fields"]["total"]["recall"] == pytest.approx(len(half) / len(test_docs))


def test_worst_documents_show_their_field_diffs(run: Run, tmp_path: Path) -> None:
    fields = first_fields(run)
    docs = sorted({f["document"] for f in fields})
    preds = predict(fields)
    wrong, missing, rows = docs[0], docs[1], docs[2]
    total = next(f for f in fields if f["document"] == wrong and f["field"] == "total")
    sku = next(f for f in fields if f["document"] == rows and f["field"] == "sku")
    for p in preds:
        if p["document"] == wrong and p["field"] in ("total", "seller_name"):
            p["value"] = str(Decimal(p["value"]) + 1) if p["field"] == "total" else "Nobody"
        if p["document"] == rows and p["field"] == "sku" and p["line"] == f"r{sku['line']}":
            p["value"] = "WRONG-1"
    preds = [p for p in preds if not (p["document"] == missing and p["field"] == "total")]
    preds.append({"document": missing, "field": "po_number", "value": "PO-INVENTED"}
                 if not any(f["document"] == missing and f["field"] == "po_number"
                            for f in fields)
                 else {"document": missing, "field": "invoice_number", "value": "X-0"})
    path = write(tmp_path / "w.jsonl", preds)
    report, _ = score(run, path, "--worst", "3")
    worst = report["worst_documents"]
    assert [d["document"] for d in worst] == [wrong, missing, rows]
    assert [(d["fp"], d["fn"]) for d in worst] == [(2, 2), (1, 1), (1, 1)]
    by_doc = {d["document"]: d["diffs"] for d in worst}
    seller = next(f for f in fields if f["document"] == wrong and f["field"] == "seller_name")
    assert by_doc[wrong] == [
        {"field": "seller_name", "line": None, "expected": seller["value"],
         "printed": seller["text"], "predicted": "Nobody"},
        {"field": "total", "line": None, "expected": total["value"], "printed": total["text"],
         "predicted": str(Decimal(total["value"]) + 1)}]
    missed = by_doc[missing]
    due = next(f for f in fields if f["document"] == missing and f["field"] == "total")
    assert {"field": "total", "expected": due["value"], "predicted": None, "line": None,
            "printed": due["text"]} in missed
    assert any(d["expected"] is None and d["predicted"] in ("PO-INVENTED", "X-0")
               for d in missed)
    assert by_doc[rows] == [{"field": "sku", "line": sku["line"], "expected": sku["value"],
                             "printed": sku["text"], "predicted": "WRONG-1"}]
    # the terminal report lists them too
    done = invoke("score", run.run_id, "--out", run.out, "--predictions", str(path),
                  "--worst", "3")
    assert done.returncode == 0, done.stderr
    assert "Scored the 24 documents the predictions name" in done.stdout
    assert "worst documents" in done.stdout and "WRONG-1" in done.stdout
    assert f"line {sku['line']} sku" in done.stdout and "(missing)" in done.stdout


def test_bad_scope_is_one_line(run: Run, tmp_path: Path) -> None:
    preds = write(tmp_path / "p.jsonl", [{"document": 0, "field": "total", "value": "1"}])
    base = ("score", run.run_id, "--out", run.out, "--predictions", str(preds))
    assert_one_line_error(invoke(*base, "--fields", "total,totl"), "--fields names totl",
                          "its fields are:", code=2)
    assert_one_line_error(invoke(*base, "--split", "test", "--all"), "--split and --all",
                          code=2)
    assert_one_line_error(invoke(*base, "--split", "dev"), "--split", code=2)
    # the run is read where it recorded its outputs; another --out is refused
    report, _ = score(run, preds, "--state", run.state)
    assert report["documents"] == 1
    assert_one_line_error(invoke("score", run.run_id, "--state", run.state, "--out",
                                 f"file://{tmp_path / 'elsewhere'}", "--predictions",
                                 str(preds)), "--out", code=2)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert_one_line_error(invoke("score", run.run_id, "--out", run.out, "--predictions",
                                 str(empty)), "name no document", "--all", code=2)
    report, _ = score(run, empty, "--all", "--fields", "total")
    assert report["documents"] == 24 and report["fields"]["total"]["recall"] == 0.0
    assert_one_line_error(invoke("score", "ghost", "--state", run.state, "--predictions",
                                 str(preds)), "run ghost is not in state store", code=2)


def test_any_pack_is_scored_through_its_document_table(tmp_path: Path) -> None:
    require(CHROMIUM is not None, "Chromium (/usr/bin/chromium)")
    receipts = fleet_run(tmp_path / "r", "score-receipts", 3, 3, "receipt")
    fields = first_fields(receipts)
    preds = [p for p in predict(fields) if p["document"] != 2]
    report, _ = score(receipts, write(tmp_path / "p.jsonl", preds))
    assert report["documents"] == 2 and report["run_documents"] == 3
    assert report["overall"]["f1"] == 1.0
    assert report["overall"]["support"] == sum(f["document"] != 2 for f in fields)
