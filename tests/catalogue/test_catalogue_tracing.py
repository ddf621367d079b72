"""A catalogue build traced to a file: every LLM call of a real ``docfleet catalogue
build`` process against the local provider is one ``chat {model}`` CLIENT span with the
OpenTelemetry GenAI attributes, inside the task's trace."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from support.fake_llm import FakeLLM

pytestmark = pytest.mark.fleet
MODEL = "openai/fake-a"


def test_each_llm_call_is_a_genai_span(tmp_path: Path, llm: FakeLLM, run_id: str) -> None:
    spans_path = tmp_path / "spans.jsonl"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DOCFLEET_", "OTEL_"))}
    env.update(DOCFLEET_LOG_FORMAT="json", DOCFLEET_TRACE=f"file:{spans_path}",
               OPENAI_API_KEY="sk-fake-key-for-the-local-test-server")
    proc = subprocess.run(
        [sys.executable, "-m", "docfleet", "catalogue", "build", "--run-id", run_id,
         "--state", f"sqlite:///{tmp_path / 'state.db'}", "--out", f"file://{tmp_path / 'out'}",
         "--api-base", llm.api_base, "--model", MODEL, "--price", f"{MODEL}=1,2",
         "--tasks", "1", "--unit-size", "4", "--option", "kinds=tagline",
         "--option", "variants=1", "--option", "max_tokens=60"],
        env=env, capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr[-3000:]
    spans = [json.loads(line) for line in spans_path.read_text().splitlines()]
    by_id = {s["context"]["span_id"]: s for s in spans}
    calls = [s for s in spans if s["name"] == f"chat {MODEL}"]
    assert len(calls) == llm.books.answered["fake-a"] > 0
    for s in calls:
        attrs = s["attributes"]
        assert s["kind"] == "SpanKind.CLIENT"
        assert attrs["gen_ai.operation.name"] == "chat"
        assert attrs["gen_ai.request.model"] == MODEL
        assert attrs["gen_ai.provider.name"] == "openai"
        assert attrs["gen_ai.usage.input_tokens"] > 0
        assert attrs["gen_ai.usage.output_tokens"] > 0
        assert attrs["docfleet.llm.outcome"] == "ok"
        parent = s
        while parent["parent_id"] in by_id:
            parent = by_id[parent["parent_id"]]
        assert parent["name"] == "docfleet.task"
    assert len({s["context"]["trace_id"] for s in spans}) == 1
