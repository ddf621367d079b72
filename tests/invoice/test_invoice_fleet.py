"""A real local fleet generates a few hundred invoices (the default pack) and leaves a
manifest that ``docfleet verify`` accepts; re-working one of its units reproduces the
exact bytes the unit's manifest part recorded."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from docfleet.core.settings import load_settings
from docfleet.dataset.shards import shard_bytes
from docfleet.packs import load_pack
from docfleet.packs.invoice.options import parse_options
from docfleet.packs.invoice.pack import InvoiceSession
from support.needs import require

TOTAL = 200


def docfleet(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "docfleet", *args], capture_output=True,
                          text=True, timeout=timeout)


@pytest.mark.fleet
def test_two_tasks_generate_a_verified_invoice_dataset(tmp_path: Path) -> None:
    chromium = load_settings().chromium_path
    require(Path(chromium).exists(), f"Chromium at {chromium}")
    state, out = f"sqlite:///{tmp_path}/state.db", f"file://{tmp_path}/out"
    run = docfleet("run", "--run-id", "inv-fleet", "--total", str(TOTAL), "--tasks", "2",
                   "--state", state, "--out", out)
    assert run.returncode == 0, (run.stdout[-2000:], run.stderr[-4000:])
    verify = docfleet("verify", "inv-fleet", "--out", out, timeout=120)
    assert verify.returncode == 0 and "ok" in verify.stdout + verify.stderr, verify

    root = tmp_path / "out" / "inv-fleet"
    manifest = json.loads((root / "manifest.json").read_text())
    assert manifest["parameters"]["pack"] == "invoice"
    assert manifest["rows"]["invoices"] == TOTAL
    pdfs = sorted((root / "documents").glob("*.pdf"))
    assert len(pdfs) == TOTAL and all(p.read_bytes().startswith(b"%PDF-") for p in pdfs)
    tables = load_pack("invoice").tables(manifest["parameters"]["options"])  # its version's
    for table, schema in tables.items():
        shards = sorted((root / "golden" / table).glob("unit-*.parquet"))
        assert len(shards) == manifest["units"]
        assert pq.read_schema(shards[0]).remove_metadata() == schema.remove_metadata()
    invoices = pq.read_table(root / "golden" / "invoices").to_pylist()
    assert sorted(r["document"] for r in invoices) == list(range(TOTAL))
    assert {r["file"] for r in invoices} == {p.name for p in pdfs}

    # A unit worked twice (here: again, by this process) leaves the recorded bytes.
    part = json.loads((root / "manifest" / "unit-000001.json").read_text())
    options = load_pack("invoice").validate_options(manifest["parameters"]["options"])
    session = InvoiceSession(parse_options(options), chromium, 2)
    rows: dict[str, list] = {t: [] for t in tables}
    again: dict[str, str] = {}
    try:
        for doc in session.render("inv-fleet", range(part["start"], part["start"] + part["count"])):
            for name, data in doc.files.items():
                again[f"documents/{name}"] = hashlib.sha256(data).hexdigest()
            for table, table_rows in doc.rows.items():
                rows[table].extend(table_rows)
    finally:
        session.close()
    for table, schema in tables.items():
        again[f"golden/{table}/unit-000001.parquet"] = hashlib.sha256(
            shard_bytes(schema, rows[table])).hexdigest()
    recorded = {e["key"]: e["sha256"] for e in part["documents"] + part["shards"]}
    assert again == recorded
