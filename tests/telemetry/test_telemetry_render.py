"""The invoice pack's render stages as spans: a real ``docfleet work`` task rendering
invoices in a real Chromium makes one ``docfleet.render.record`` / ``.html`` / ``.pdf``
span per document, children of the unit's span."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from docfleet.core.settings import load_settings
from docfleet.packs.sdk.printing import BATCH
from support.fleet import start_worker, wait_all, worker_env
from support.needs import require

pytestmark = pytest.mark.fleet


def test_invoice_render_stages_are_spans(tmp_path: Path, run_id: str) -> None:
    chromium = load_settings().chromium_path
    require(Path(chromium).exists(), f"Chromium at {chromium}")
    spans_path = tmp_path / "spans.jsonl"
    env = worker_env(f"sqlite:///{tmp_path / 'state.db'}", f"file://{tmp_path / 'out'}",
                     run_id, 3, pack="invoice", unit_size=3, TRACE=f"file:{spans_path}")
    log = tmp_path / "task.log"
    assert wait_all([start_worker(env, log)], 180) == [0], log.read_text()[-3000:]
    spans = [json.loads(line) for line in spans_path.read_text().splitlines()]
    (unit,) = [s for s in spans if s["name"] == "docfleet.unit"]
    stages = [s for s in spans if s["name"].startswith("docfleet.render.")]
    # a unit's whole block of BATCH documents is laid out and printed together (so a
    # document's bytes never depend on the unit's size), but only up to the run's total:
    # this run is 3 documents, so its one block is 3 long (test_invoice_batches covers
    # the neighbours of a longer run)
    assert BATCH > 3
    assert Counter(s["name"] for s in stages) == {
        "docfleet.render.record": 3, "docfleet.render.html": 3, "docfleet.render.pdf": 3}
    assert all(s["parent_id"] == unit["context"]["span_id"] for s in stages)
    for name, indexes in (("docfleet.render.record", [0, 1, 2]),
                          ("docfleet.render.pdf", [0, 1, 2])):
        assert sorted(s["attributes"]["docfleet.document.index"] for s in stages
                      if s["name"] == name) == indexes
