"""``--trace file:PATH`` through ``docfleet run``: two real task processes append their
spans as JSON lines to one file, all in the fleet's trace."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.fleet import all_events, cli, named

pytestmark = pytest.mark.fleet


def test_file_mode_collects_every_tasks_spans_in_one_trace(tmp_path: Path, run_id: str) -> None:
    spans_path = tmp_path / "spans.jsonl"
    ran = cli("run", "--run-id", run_id, "--total", "20", "--unit-size", "5", "--tasks", "2",
              "--pack", "bench", "--state", f"sqlite:///{tmp_path / 'state.db'}",
              "--out", f"file://{tmp_path / 'out'}", "--log-dir", str(tmp_path / "logs"),
              "--trace", f"file:{spans_path}", env={"DOCFLEET_POLL_SECONDS": "0.2"})
    assert ran.returncode == 0, ran.stderr
    spans = [json.loads(line) for line in spans_path.read_text().splitlines()]
    assert len({s["context"]["trace_id"] for s in spans}) == 1
    names = [s["name"] for s in spans]
    assert names.count("docfleet.fleet") == 1 and names.count("docfleet.task") == 2
    claims = named(all_events(tmp_path / "logs"), "unit.claim")
    assert names.count("docfleet.claim") == len(claims) == 4
    assert names.count("docfleet.manifest.part") == names.count("docfleet.unit") == 4


def test_a_bad_trace_setting_is_one_line_and_exit_2(tmp_path: Path, run_id: str) -> None:
    env = {"DOCFLEET_STATE": f"sqlite:///{tmp_path / 'state.db'}", "DOCFLEET_RUN_ID": run_id,
           "DOCFLEET_TOTAL": "4", "DOCFLEET_OUT": f"file://{tmp_path / 'out'}"}
    bad_flag = cli("work", "--trace", "zipkin", env=env)
    assert bad_flag.returncode == 2 and "unknown trace mode 'zipkin'" in bad_flag.stderr
    bad_otel = cli("work", env={**env, "OTEL_TRACES_EXPORTER": "jaeger"})
    assert bad_otel.returncode == 2 and "unknown trace mode 'jaeger'" in bad_otel.stderr
    assert "Traceback" not in bad_flag.stderr + bad_otel.stderr
