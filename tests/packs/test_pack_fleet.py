"""Each new pack end to end: a real ``docfleet run --pack NAME`` on SQLite + files covers
every locale x condition it is asked for, ``docfleet verify`` accepts the run, and the
golden Parquet tables reconcile on their own (totals from items, balances from
transactions). (Every locale and archetype is rendered in ``test_pack_render.py``; a run
asks for a Letter, an A4 IBAN, a CJK and a right-to-left locale so that 40 documents
cover each of its locale x condition pairs.)"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from packlib import CHECKS, HEAD, PACKS

from docfleet.core.settings import load_settings
from docfleet.packs.sdk.locales import JURISDICTIONS
from support.needs import require

TOTAL = 40
#: en-US (Letter, ABA), de-DE (A4, IBAN, no-break spaces), ja-JP (CJK, whole yen, a
#: domestic account), ar-SA (right to left, Arabic-Indic dates)
RUN_LOCALES = ("en-US", "de-DE", "ja-JP", "ar-SA")
RUN_CONDITIONS = ("clean", "scan")


def docfleet(cwd: Path, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "docfleet", *args], capture_output=True,
                          text=True, timeout=timeout, cwd=cwd)


@pytest.mark.fleet
@pytest.mark.parametrize("name", sorted(PACKS))
def test_a_run_of_the_pack_covers_its_locales_and_conditions_and_verifies(
    tmp_path: Path, name: str,
) -> None:
    assert set(RUN_LOCALES) <= set(JURISDICTIONS)
    chromium = load_settings().chromium_path
    require(Path(chromium).exists(), f"Chromium at {chromium}")
    state, out = f"sqlite:///{tmp_path}/state.db", f"file://{tmp_path}/out"
    run_id = f"fleet-{name}"
    run = docfleet(tmp_path, "run", "--run-id", run_id, "--pack", name, "--total", str(TOTAL),
                   "--tasks", "2", "--state", state, "--out", out,
                   "--option", "conditions=" + ",".join(f"{c}:1" for c in RUN_CONDITIONS),
                   "--option", "locales=" + ",".join(RUN_LOCALES))
    assert run.returncode == 0, (run.stdout[-2000:], run.stderr[-4000:])
    verify = docfleet(tmp_path, "verify", run_id, "--out", out, timeout=120)
    assert verify.returncode == 0 and "ok" in verify.stdout + verify.stderr, verify

    root = tmp_path / "out" / run_id
    manifest = json.loads((root / "manifest.json").read_text())
    assert manifest["parameters"]["pack"] == name
    assert set(manifest["parameters"]["options"]["locales"]) == set(RUN_LOCALES)
    assert manifest["rows"][HEAD[name]] == TOTAL
    heads = pq.read_table(root / "golden" / HEAD[name]).to_pylist()
    assert sorted(r["document"] for r in heads) == list(range(TOTAL))
    combos = {(r["locale"], r["condition"]) for r in heads}
    assert combos == {(loc, c) for loc in RUN_LOCALES for c in RUN_CONDITIONS}
    assert {r["archetype"] for r in heads} == set(PACKS[name].archetypes)
    pdfs = sorted((root / "documents").glob("*.pdf"))
    assert {p.name for p in pdfs} == {r["file"] for r in heads}
    assert all(p.read_bytes().startswith(b"%PDF-") for p in pdfs)
    fields = pq.read_table(root / "golden" / "fields").to_pylist()
    assert {r["document"] for r in fields} == set(range(TOTAL))
    assert all(r["page"] is not None and r["x1"] > r["x0"] for r in fields)
    if name == "receipt":
        assert all(r["page_count"] == 1 for r in heads)
    CHECKS[name](root, heads)
