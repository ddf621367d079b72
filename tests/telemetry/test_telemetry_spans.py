"""The SDK's in-memory exporter around three real drain loops (three workers on threads of
one process, sharing one state store: SQLite, and the Firestore and DynamoDB emulators):
one claim span per claim, one part span per part, each with its attributes and parented
as the README says. Also: tracing off is a no-op."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from docfleet import telemetry
from docfleet.blob import open_blob_store
from docfleet.core import backends as registry
from docfleet.core.identity import task_identity
from docfleet.core.settings import Settings, load_settings
from docfleet.core.uris import redact
from docfleet.dataset.manifest import sha256
from docfleet.kernel.worker import Worker
from docfleet.packs import load_pack
from docfleet.state import open_state_store
from docfleet.state.optional import claims_in_batches, write_ramp

TASKS = 3


@pytest.fixture
def exporter() -> Iterator[InMemorySpanExporter]:
    exp = InMemorySpanExporter()
    telemetry.setup_tracing(None, {"service.name": "docfleet-test"}, exporter=exp)
    yield exp
    telemetry.shutdown()


def _task(settings: Settings, index: int, codes: dict[int, int]) -> None:
    from docfleet.kernel.admission import resolve_spec

    identity = task_identity({"DOCFLEET_TASK_INDEX": str(index),
                              "DOCFLEET_TASK_COUNT": str(TASKS),
                              "DOCFLEET_EXECUTION": "inmem"})
    store = open_state_store(settings.state)
    log = logging.getLogger(f"docfleet.test.{index}")
    spec = resolve_spec(settings, store, TASKS, log)
    worker = Worker(settings, spec, identity, store, open_blob_store(settings.out),
                    load_pack(spec.pack), log)
    with telemetry.root_span("docfleet.task", {"docfleet.task.index": index}):
        codes[index] = worker.run()
    store.close()


def test_three_workers_make_one_claim_span_per_claim_and_one_part_span_per_part(
    exporter: InMemorySpanExporter, tmp_path: Path, run_id: str, state_uri: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DOCFLEET_BENCH_DOC_MS", "20")
    settings = load_settings(
        run_id=run_id, total=60, unit_size=5, pack="bench", poll_seconds=0.1,
        state=state_uri, out=f"file://{tmp_path / 'out'}",
        lease_seconds=5, heartbeat_seconds=0.05, linger_seconds=1,
    )
    system = registry.backend(state_uri.split(":", 1)[0]).db_system
    codes: dict[int, int] = {}
    threads = [threading.Thread(target=_task, args=(settings, i, codes)) for i in range(TASKS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert codes == {0: 0, 1: 0, 2: 0}

    spans = exporter.get_finished_spans()
    by_id = {s.context.span_id: s for s in spans}
    roots = {s.context.span_id: s for s in spans if s.name == "docfleet.task"}
    assert len(roots) == TASKS and all(s.parent is None for s in roots.values())
    assert len({s.context.trace_id for s in roots.values()}) == TASKS

    def root_of(s: ReadableSpan) -> ReadableSpan:
        while s.parent is not None:
            s = by_id[s.parent.span_id]
        return s

    store = open_state_store(settings.state)
    units = store.units(run_id)
    ramped = write_ramp(store) is not None
    batched = claims_in_batches(store)
    store.close()
    claims = [s for s in spans if s.name == "docfleet.claim"]
    # One span per claim: every unit was claimed once (no failures, no reclaims); an
    # empty poll makes a span only when it lost races.
    claimed = [s for s in claims if s.attributes["docfleet.claim.outcome"] == "claimed"]
    assert sorted(s.attributes["docfleet.unit.index"] for s in claimed) == list(range(12))
    assert all(s.attributes["docfleet.claim.lost_races"] > 0 for s in claims
               if s not in claimed)
    claims = claimed
    # a task that goes on claiming claims its next unit with the completion of its last,
    # except under a write ramp (Firestore), where the claim governor spaces every claim;
    # on a store that claims in batches (PostgreSQL) every claim is one of a batch
    operations = {s.attributes["db.operation.name"] for s in claims}
    if batched:
        assert operations == {"complete_and_claim_units"}, operations
        assert max(s.attributes["docfleet.claim.batch"] for s in claims) > 1
    else:
        assert operations == ({"claim_next_unit"} if ramped else {
            "claim_next_unit", "complete_and_claim_next"}), operations
    for s in claims:
        assert s.attributes["docfleet.unit.attempt"] == 1
        assert s.attributes["db.system.name"] == system
        lost = s.attributes["docfleet.claim.lost_races"]
        assert lost == 0 if system == "sqlite" else lost >= 0
        assert s.attributes["docfleet.claim.candidates_tried"] == lost + 1
        assert s.attributes["docfleet.claim.latency_ms"] >= 0
        assert s.kind.name == "CLIENT"
        assert s.parent.span_id in roots, "a claim is a child of its task's root"
    # The task that claimed a unit (by its root) is the one the store says worked it.
    worked_by = {u.index: u.worked_by for u in units}
    claimers = {s.attributes["docfleet.unit.index"]: root_of(s).context.span_id for s in claims}
    assert len({(claimers[i], worked_by[i]) for i in claimers}) == len(set(worked_by.values()))

    unit_spans = {s.attributes["docfleet.unit.index"]: s for s in spans
                  if s.name == "docfleet.unit"}
    assert sorted(unit_spans) == list(range(12))
    for index, s in unit_spans.items():
        assert s.parent.span_id in roots
        assert s.attributes["docfleet.unit.outcome"] == "done"
        assert s.attributes["docfleet.unit.documents"] == 5
        assert s.attributes["docfleet.unit.bytes"] > 0
        assert root_of(s).context.span_id == claimers[index]

    parts = [s for s in spans if s.name == "docfleet.manifest.part"]
    assert len(parts) == 12
    for s in parts:
        index = s.attributes["docfleet.unit.index"]
        assert s.parent.span_id == unit_spans[index].context.span_id
        data = (tmp_path / "out" / run_id / s.attributes["docfleet.manifest.key"]).read_bytes()
        assert s.attributes["docfleet.manifest.sha256"] == sha256(data) == units[index].part_sha256
        assert s.attributes["docfleet.manifest.size"] == len(data)

    # finalizers may race to the create-if-absent write: exactly one wins it
    (root_manifest,) = [s for s in spans if s.name == "docfleet.manifest.root"
                        and s.attributes["docfleet.manifest.written"]]
    assert root_manifest.attributes["docfleet.manifest.units"] == 12
    assert root_manifest.parent.span_id in roots

    plans = Counter(s.attributes["docfleet.plan.outcome"] for s in spans
                    if s.name == "docfleet.plan")
    assert plans["won"] == 1 and sum(plans.values()) == TASKS

    renewals = [s for s in spans if s.name == "docfleet.lease.renew"]
    assert renewals, "a 50 ms heartbeat renews during a unit"
    for s in renewals:
        assert s.parent.span_id == unit_spans[s.attributes["docfleet.unit.index"]].context.span_id
        assert s.attributes["docfleet.lease.renewed"] is True


def test_tracing_off_is_a_shared_no_op() -> None:
    assert not telemetry.enabled()
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, docfleet.cli, docfleet.kernel.worker, "
         "docfleet.telemetry as t; t.setup_tracing(None, env={}); "
         "print(any(m.startswith('opentelemetry.sdk') for m in sys.modules))"],
        capture_output=True, text=True, check=True)
    assert loaded.stdout.strip() == "False", "tracing off never loads the SDK"
    assert telemetry.span("x") is telemetry.span("y", {"a": 1})
    with telemetry.span("x") as s:
        s.set_attribute("a", 1)
        assert not s.is_recording()
    with telemetry.llm_call("gpt-x") as call:
        call.done(input_tokens=1, output_tokens=2, cost_nano_usd=3)
    assert telemetry.log_fields() == {}
    assert telemetry.render_stage("pdf", 3) is telemetry.span("x")
    assert telemetry.traceparent() is None


def test_llm_call_uses_genai_attributes(exporter: InMemorySpanExporter) -> None:
    with telemetry.llm_call("gpt-4o-mini", provider="openai") as call:
        call.done(input_tokens=120, output_tokens=30, cost_nano_usd=27_000, outcome="ok")
    with telemetry.llm_call("gpt-4o-mini", provider="openai") as call:
        call.done(outcome="error", error="RateLimitError: slow down")
    started = telemetry.now_ns()
    telemetry.record_llm_call("m1", started, outcome="budget", cost_nano_usd=0,
                              provider="openai")
    ok, bad, late = exporter.get_finished_spans()
    assert late.name == "chat m1" and late.start_time == started
    assert late.attributes["docfleet.llm.outcome"] == "budget"
    assert late.attributes["gen_ai.provider.name"] == "openai"
    assert ok.name == "chat gpt-4o-mini" and ok.kind.name == "CLIENT"
    assert dict(ok.attributes) == {
        "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o-mini",
        "gen_ai.provider.name": "openai", "gen_ai.usage.input_tokens": 120,
        "gen_ai.usage.output_tokens": 30, "docfleet.llm.cost_nano_usd": 27_000,
        "docfleet.llm.outcome": "ok"}
    assert bad.status.status_code.name == "ERROR"
    assert bad.attributes["error.type"] == "RateLimitError"


def test_parent_context_and_log_fields(
    exporter: InMemorySpanExporter, monkeypatch: pytest.MonkeyPatch
) -> None:
    trace_id = "4bf92f3577b34da6a3ce929d0e0e4736"
    monkeypatch.setenv("TRACEPARENT", f"00-{trace_id}-00f067aa0ba902b7-01")
    with telemetry.root_span("docfleet.task", {}):
        fields = telemetry.log_fields()
        from docfleet.telemetry.logs import JsonFormatter

        record = logging.LogRecord("docfleet", logging.INFO, __file__, 1, "hi %s", ("x",), None)
        line = json.loads(JsonFormatter().format(record))
    (root,) = exporter.get_finished_spans()
    assert format(root.context.trace_id, "032x") == trace_id
    assert format(root.parent.span_id, "016x") == "00f067aa0ba902b7"
    assert fields["logging.googleapis.com/trace"] == trace_id  # no project known here
    assert line["logging.googleapis.com/spanId"] == format(root.context.span_id, "016x")
    assert line["severity"] == "INFO" and line["message"] == "hi x"


def test_safe_uri_and_modes() -> None:
    assert redact("s3://key:secret@bucket/p?x=1") == "s3://bucket/p"
    assert telemetry.resolve_mode(None, {}) == "none"
    assert telemetry.resolve_mode(None, {"OTEL_TRACES_EXPORTER": "otlp"}) == "otlp"
    assert telemetry.resolve_mode("console", {"OTEL_TRACES_EXPORTER": "otlp"}) == "console"
    assert telemetry.resolve_mode("otlp", {"OTEL_SDK_DISABLED": "true"}) == "none"
    assert telemetry.resolve_mode("file:/tmp/x", {}) == "file:/tmp/x"
    with pytest.raises(ValueError):
        telemetry.resolve_mode("zipkin", {})


def test_traced_decorators(exporter: InMemorySpanExporter) -> None:
    import asyncio
    from dataclasses import dataclass

    @telemetry.traced("docfleet.render.html", lambda run_id, index: {
        "docfleet.document.index": index})
    def prepare(run_id: str, index: int) -> str:
        return f"{run_id}:{index}"

    @dataclass
    class Reply:
        prompt_tokens: int
        completion_tokens: int

        def litellm_cost_nano(self) -> int:
            return 4200

    class Throttled(Exception):
        kind = "rate_limit"

    @telemetry.traced_llm
    async def complete(model: str, messages: list[dict[str, str]], **kw: object) -> Reply:
        if kw.get("fail"):
            raise Throttled("slow down")
        return Reply(11, 7)

    assert prepare("r", 4) == "r:4"
    assert asyncio.run(complete("openai/gpt-4o-mini", [])) == Reply(11, 7)
    with pytest.raises(Throttled):
        asyncio.run(complete("gpt-4o-mini", [], fail=True))
    html, ok, bad = exporter.get_finished_spans()
    assert html.name == "docfleet.render.html"
    assert html.attributes["docfleet.document.index"] == 4
    assert ok.name == "chat openai/gpt-4o-mini" and ok.kind.name == "CLIENT"
    assert ok.attributes["gen_ai.provider.name"] == "openai"
    assert ok.attributes["gen_ai.usage.input_tokens"] == 11
    assert ok.attributes["gen_ai.usage.output_tokens"] == 7
    assert ok.attributes["docfleet.llm.cost_nano_usd"] == 4200
    assert ok.attributes["docfleet.llm.outcome"] == "ok"
    assert bad.attributes["docfleet.llm.outcome"] == "rate_limit"
    assert bad.attributes["error.type"] == "Throttled"
    assert bad.status.status_code.name == "ERROR"
