"""Tracing: OpenTelemetry spans for a task, its claims, leases, units and manifests.

Configuration (first match wins for the exporter):

- ``--trace MODE`` / ``DOCFLEET_TRACE=MODE``, else ``OTEL_TRACES_EXPORTER``, else ``none``.
  ``OTEL_SDK_DISABLED=true`` forces ``none``.
- ``none``: no SDK is loaded; :func:`span` returns a shared no-op context manager.
- ``otlp``: OTLP http/protobuf; endpoint, headers and timeout from the standard
  ``OTEL_EXPORTER_OTLP_[TRACES_]*`` variables (default ``http://localhost:4318``).
- ``console``: spans as JSON on stderr (stdout carries the log lines).
- ``gcp``: OTLP http/protobuf to Google Cloud's Telemetry API
  (``https://telemetry.googleapis.com/v1/traces`` unless ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``
  says otherwise), authenticated with Application Default Credentials (``google-auth``, in
  the ``gcp`` extra), with resource attribute ``gcp.project_id`` and header
  ``x-goog-user-project`` set to the project (``GOOGLE_CLOUD_PROJECT``, else the
  credentials' project).
- ``file:PATH``: every span as one JSON line appended to ``PATH`` (debugging, tests).

Service name, resource attributes and sampling come from ``OTEL_SERVICE_NAME``,
``OTEL_RESOURCE_ATTRIBUTES``, ``OTEL_TRACES_SAMPLER[_ARG]`` as the SDK reads them.

Log correlation: while a span is current, JSON log lines carry
``logging.googleapis.com/trace`` (``projects/PROJECT/traces/TRACE_ID`` when the project is
known from ``GOOGLE_CLOUD_PROJECT``, ``GCP_PROJECT``, the ``gcp.project_id`` resource
attribute or the ``gcp`` mode's credentials; the bare trace id otherwise),
``logging.googleapis.com/spanId`` and ``logging.googleapis.com/trace_sampled``.

Parent context: ``DOCFLEET_TRACE_PARENT`` or ``TRACEPARENT`` (W3C ``traceparent``), so
every task of a run joins one trace. ``docfleet run`` sets it for its tasks.

Instrumenting code (a pack, the renderer, the catalogue) needs only::

    from docfleet.telemetry import span
    with span("docfleet.render.pdf", {"docfleet.document.index": i}) as s:
        ...
        s.set_attribute("docfleet.document.bytes", len(pdf))

which costs one global check and a shared no-op object when tracing is off. Rules: do
not ``yield`` inside a ``with span(...)`` block (a generator resumed elsewhere would
detach the wrong context); on another thread, pass ``parent=capture()`` taken on the
calling thread; :func:`render_stage` and :func:`llm_call` / :func:`record_llm_call` name
and attribute render and LLM spans consistently.

The package: :mod:`~docfleet.telemetry.api` (the span API, the process's tracer),
:mod:`~docfleet.telemetry.llm` (GenAI spans of LLM calls),
:mod:`~docfleet.telemetry.attributes` (attribute builders: store, claim, task),
:mod:`~docfleet.telemetry.exporters` (modes and exporter setup) and
:mod:`~docfleet.telemetry.lifecycle` (a process's root span, flush and shutdown).
Everything public is re-exported here: callers write ``from docfleet import telemetry``.
URIs in attributes are redacted by :func:`docfleet.core.uris.redact`.
"""

from __future__ import annotations

from opentelemetry.trace import SpanKind

from docfleet.telemetry.api import (
    Attributes,
    add_event,
    capture,
    enabled,
    fail,
    log_fields,
    now_ns,
    parent_context,
    record_span,
    render_stage,
    root_span,
    set_attributes,
    span,
    traced,
    traceparent,
)
from docfleet.telemetry.attributes import claim_attributes, db_attributes, task_attributes
from docfleet.telemetry.exporters import (
    GCP_TRACES_ENDPOINT,
    TRACE_MODES,
    JsonLinesSpanExporter,
    resolve_mode,
    setup_tracing,
)
from docfleet.telemetry.lifecycle import FLUSH_TIMEOUT_MILLIS, flush, run_root, run_task, shutdown
from docfleet.telemetry.llm import LLMCall, llm_call, record_llm_call, traced_llm

__all__ = [
    "FLUSH_TIMEOUT_MILLIS", "GCP_TRACES_ENDPOINT", "TRACE_MODES", "Attributes",
    "JsonLinesSpanExporter", "LLMCall", "SpanKind", "add_event", "capture",
    "claim_attributes", "db_attributes", "enabled", "fail", "flush", "llm_call",
    "log_fields", "now_ns", "parent_context", "record_llm_call", "record_span",
    "render_stage", "resolve_mode", "root_span", "run_root", "run_task", "set_attributes",
    "setup_tracing", "shutdown", "span", "task_attributes", "traced", "traced_llm",
    "traceparent",
]
