"""A real ``docfleet run`` subprocess exporting OTLP/HTTP to a real receiver on 127.0.0.1,
one of its tasks killed with SIGTERM: every task's spans arrive, in one trace, and the
JSON log lines carry Cloud Logging's trace fields."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from support.fleet import events, named, wait_for_event
from support.otlp_receiver import OTLPReceiver

pytestmark = pytest.mark.fleet

PROJECT = "demo-project"


def _task_pid(parent: int, index: int, timeout: float = 20) -> int:
    """The pid of the ``docfleet work`` child of ``parent`` with task index ``index``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
                environ = Path(f"/proc/{entry}/environ").read_bytes().split(b"\0")
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            if ppid == parent and f"DOCFLEET_TASK_INDEX={index}".encode() in environ:
                return int(entry)
        time.sleep(0.05)
    raise AssertionError(f"no task {index} under pid {parent}")


def test_docfleet_run_exports_every_tasks_spans_including_a_sigtermed_task(
    tmp_path: Path, run_id: str
) -> None:
    logs = tmp_path / "logs"
    with OTLPReceiver() as rx:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("DOCFLEET_", "OTEL_", "TRACEPARENT"))}
        env.update(OTEL_EXPORTER_OTLP_ENDPOINT=rx.endpoint, OTEL_BSP_SCHEDULE_DELAY="200",
                   OTEL_SERVICE_NAME="docfleet-test", GOOGLE_CLOUD_PROJECT=PROJECT,
                   DOCFLEET_BENCH_DOC_MS="50", DOCFLEET_POLL_SECONDS="0.2")
        fleet = subprocess.Popen(
            [sys.executable, "-m", "docfleet", "run", "--run-id", run_id, "--total", "60",
             "--unit-size", "5", "--tasks", "3", "--pack", "bench", "--trace", "otlp",
             "--state", f"sqlite:///{tmp_path / 'state.db'}",
             "--out", f"file://{tmp_path / 'out'}", "--log-dir", str(logs)],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
        victim = _task_pid(fleet.pid, 1)
        wait_for_event(logs / "task-1.log", "unit.claim")
        os.kill(victim, signal.SIGTERM)
        _, err = fleet.communicate(timeout=120)
        assert fleet.returncode == 143, err.decode()  # the fleet reports its killed task

        roots = rx.named("docfleet.task")
        by_index = {s.attributes["docfleet.task.index"]: s for s in roots}
        assert sorted(by_index) == [0, 1, 2], "every task, the SIGTERM'd one too, exported"
        assert by_index[1].attributes["process.exit.code"] == 143
        assert by_index[1].attributes["process.pid"] == victim
        assert {by_index[i].attributes["process.exit.code"] for i in (0, 2)} == {0}
        (fleet_span,) = rx.named("docfleet.fleet")
        assert {s.trace_id for s in rx.spans} == {fleet_span.trace_id}, "one trace"
        assert all(s.parent_id == fleet_span.span_id for s in roots)
        assert {s.resource["service.name"] for s in rx.spans} == {"docfleet-test"}

        evts = events(*sorted(logs.glob("*.log")))
        claims = named(evts, "unit.claim")
        claim_spans = rx.named("docfleet.claim")
        assert len(claim_spans) == len(claims)
        assert Counter(s.attributes["docfleet.unit.index"] for s in claim_spans) == Counter(
            e["unit"] for e in claims)
        released = named(evts, "lease.release")
        assert len(rx.named("docfleet.lease.release")) == len(released)
        parts = list((tmp_path / "out" / run_id / "manifest").glob("unit-*.json"))
        assert len(rx.named("docfleet.manifest.part")) >= len(parts) == 12
        roots_written = [s for s in rx.named("docfleet.manifest.root")
                         if s.attributes["docfleet.manifest.written"]]
        assert len(roots_written) == 1, "one finalizer wins the create-if-absent write"

        # JSON logs: Cloud Logging fields, and trace correlation inside spans.
        spans_by_id = {s.span_id: s for s in rx.spans}
        assert all({"severity", "message", "time", "run_id", "task_index"} <= set(e)
                   for e in evts), [e for e in evts if "raw" in e][:3]
        correlated = [e for e in evts if "logging.googleapis.com/trace" in e]
        assert correlated, "log lines written inside spans carry the trace"
        for e in correlated:
            assert e["logging.googleapis.com/trace"] == (
                f"projects/{PROJECT}/traces/{fleet_span.trace_id}")
            assert e["logging.googleapis.com/spanId"] in spans_by_id
        for e in claims:  # logged by the task's root span, just before the unit's span
            span = spans_by_id[e["logging.googleapis.com/spanId"]]
            assert span.name == "docfleet.task"
            assert span.attributes["docfleet.task.index"] == e["task_index"]
        for e in named(evts, "unit.done"):
            span = spans_by_id[e["logging.googleapis.com/spanId"]]
            assert span.name == "docfleet.unit"
            assert span.attributes["docfleet.unit.index"] == e["unit"]
