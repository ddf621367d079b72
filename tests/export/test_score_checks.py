"""`docfleet score` on a real invoice run: predictions of a field the run does not have
are listed in a warning and not scored (not silently false positives); a money value in
another currency than the invoice's never matches."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from exportlib import Run, invoice_run

from docfleet.scoring.normalize import currencies_named, matches
from support.fleet import cli


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    return invoice_run(tmp_path_factory)


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    return path


def _score(run: Run, path: Path):
    return cli("score", run.run_id, "--out", run.out, "--predictions", str(path),
               "--output", "-")


def test_unknown_fields_are_listed_and_not_scored(run: Run, tmp_path: Path) -> None:
    totals = {r["document"]: r for r in run.shards("fields").to_pylist()
              if r["field"] == "total" and r["occurrence"] == 0}
    rows = [{"document": d, "field": "total", "value": r["value"]} for d, r in totals.items()]
    rows += [{"document": d, "field": "totl", "value": "1"} for d in list(totals)[:3]]
    rows += [{"document": 0, "field": "vendor_name", "value": "x"}]
    done = _score(run, _write(tmp_path / "p.jsonl", rows))
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["unknown_fields"] == {"totl": 3, "vendor_name": 1}
    assert "totl" not in report["fields"] and "vendor_name" not in report["fields"]
    assert report["fields"]["total"]["fp"] == 0
    assert report["fields"]["total"]["tp"] == len(totals)
    warning = [line for line in done.stderr.splitlines() if line.startswith("warning:")]
    assert len(warning) == 1, done.stderr
    assert "4 prediction(s) name fields" in warning[0]
    assert "not scored: totl (3), vendor_name (1)" in warning[0]
    assert "total" in warning[0].split("its fields are:")[1]


def test_a_total_in_another_currency_does_not_match(run: Run, tmp_path: Path) -> None:
    invoices = {r["document"]: r for r in run.shards("invoices").to_pylist()}
    totals = {r["document"]: r for r in run.shards("fields").to_pylist()
              if r["field"] == "total" and r["occurrence"] == 0}
    eur = [d for d, inv in invoices.items() if inv["currency"] == "EUR"]
    usd = [d for d, inv in invoices.items() if inv["currency"] == "USD"]
    assert eur and usd, "the shared run has EUR and USD invoices"
    rows = [{"document": d, "field": "total", "value": f"${totals[d]['value']}"}
            for d in eur]  # the right amount, the wrong currency
    rows += [{"document": d, "field": "total", "value": f"${totals[d]['value']}"}
             for d in usd]  # right amount, right currency
    report = json.loads(_score(run, _write(tmp_path / "c.jsonl", rows)).stdout)
    total = report["fields"]["total"]
    assert total["tp"] == len(usd) and total["fp"] == len(eur)
    right = [{"document": d, "field": "total", "value": f"{totals[d]['value']} €"}
             for d in eur]
    again = json.loads(_score(run, _write(tmp_path / "r.jsonl", right)).stdout)
    assert again["fields"]["total"]["tp"] == len(eur)


@pytest.mark.parametrize(("text", "codes"), [
    ("$1,234.50", {"USD", "CAD", "AUD"}), ("1 234,50 €", {"EUR"}), ("EUR 1234.5", {"EUR"}),
    ("1234.50", None), ("£3", {"GBP"}), ("CHF 12.00", {"CHF"}), ("R$ 10,00", {"BRL"}),
])
def test_currencies_named(text: str, codes: set[str] | None) -> None:
    named = currencies_named(text)
    if codes is None:
        assert named is None
    else:
        assert named is not None and codes <= named
        assert not ({"BRL"} <= named and codes != {"BRL"})


def test_a_bare_amount_still_matches_any_currency() -> None:
    assert matches("money", "1234.50", "1234.50", "1 234,50 €", "fr-FR", False, "EUR")
    assert not matches("money", "$1234.50", "1234.50", "1 234,50 €", "fr-FR", False, "EUR")
    assert matches("money", "EUR 1234,50", "1234.50", "1 234,50 €", "fr-FR", False, "EUR")
