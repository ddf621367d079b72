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
"""

from __future__ import annotations

import functools
import json
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlsplit

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import INVALID_SPAN, Span, SpanKind, Status, StatusCode

from docfleet.errors import ConfigError, MissingExtraError

if TYPE_CHECKING:
    from docfleet.identity import TaskIdentity
    from docfleet.models import Claim

TRACE_MODES = ("none", "otlp", "console", "gcp", "file:PATH")
GCP_TRACES_ENDPOINT = "https://telemetry.googleapis.com/v1/traces"
#: How long a task waits for its spans to leave on exit (Cloud Run gives 10 s after SIGTERM).
FLUSH_TIMEOUT_MILLIS = 5000

Attributes = Mapping[str, Any]

_tracer: trace.Tracer | None = None
_provider: Any = None  # opentelemetry.sdk.trace.TracerProvider when tracing
_project: str | None = None
_lock = threading.Lock()


class _NoopSpanManager:
    """The context manager :func:`span` returns when tracing is off: one shared
    instance, yielding the API's invalid span (whose setters do nothing)."""

    __slots__ = ()

    def __enter__(self) -> Span:
        return INVALID_SPAN

    def __exit__(self, *exc: object) -> None:
        return None


_NOOP = _NoopSpanManager()


def enabled() -> bool:
    """Whether spans are being recorded in this process."""
    return _tracer is not None


def span(
    name: str, attributes: Attributes | None = None, *, kind: SpanKind = SpanKind.INTERNAL,
    parent: otel_context.Context | None = None,
) -> AbstractContextManager[Span]:
    """A span around a ``with`` block, made current inside it. An exception leaving the
    block is recorded and sets ERROR status. ``parent`` (from :func:`capture`) parents a
    span started on another thread. A no-op when tracing is off."""
    if _tracer is None:
        return _NOOP
    return _tracer.start_as_current_span(name, context=parent, kind=kind,
                                         attributes=attributes)


def render_stage(stage: str, index: int, attributes: Attributes | None = None
                 ) -> AbstractContextManager[Span]:
    """The span of one document render stage (``record``, ``html``, ``pdf``, ``scan``):
    ``docfleet.render.{stage}`` with ``docfleet.document.index``::

        with render_stage("pdf", index):
            pdf = chromium.submit(html, width, height).result()
    """
    if _tracer is None:
        return _NOOP
    return span(f"docfleet.render.{stage}", {"docfleet.document.index": index,
                                             **(attributes or {})})


def record_span(
    name: str, start_ns: int, attributes: Attributes | None = None, *,
    kind: SpanKind = SpanKind.INTERNAL, error: str | None = None,
    parent: otel_context.Context | None = None,
) -> None:
    """Record a finished span that started at ``start_ns`` (:func:`now_ns`) and ends now,
    as a child of ``parent`` or the current span: for calls worth a span only after the
    fact (a reclaim that moved units) or timed on another thread (a lease renewal)."""
    if _tracer is None:
        return
    s = _tracer.start_span(name, context=parent, kind=kind, attributes=attributes,
                           start_time=start_ns or None)
    if error:
        s.set_status(Status(StatusCode.ERROR, error))
    s.end()


def now_ns() -> int:
    """The clock :func:`record_span` expects; 0 when tracing is off (no clock read)."""
    return time.time_ns() if _tracer is not None else 0


def set_attributes(attributes: Attributes) -> None:
    """Set attributes on the current span (no-op when tracing is off)."""
    if _tracer is not None:
        trace.get_current_span().set_attributes(attributes)


def add_event(name: str, attributes: Attributes | None = None) -> None:
    """Add an event to the current span (no-op when tracing is off)."""
    if _tracer is not None:
        trace.get_current_span().add_event(name, attributes or {})


def fail(error: str, s: Span | None = None) -> None:
    """Mark ``s`` (default: the current span) as failed with ``error``; ``error.type`` is
    its text up to the first ':' (the exception class in the kernel's messages)."""
    if _tracer is not None:
        s = s or trace.get_current_span()
        s.set_status(Status(StatusCode.ERROR, error))
        s.set_attribute("error.type", error.split(":", 1)[0])


def capture() -> otel_context.Context | None:
    """The current context, to pass as ``parent=`` to a span on another thread."""
    return otel_context.get_current() if _tracer is not None else None


class LLMCall:
    """The span of one LLM call (see :func:`llm_call`); set its outcome with :meth:`done`."""

    def __init__(self, s: Span) -> None:
        self.span = s

    def done(
        self, *, outcome: str = "ok", input_tokens: int | None = None,
        output_tokens: int | None = None, cost_nano_usd: int | None = None,
        response_model: str | None = None, error: str | None = None,
    ) -> None:
        """Record the call's result. ``outcome``: ok | error | budget | quarantined |
        cached (free text, low cardinality); ``cost_nano_usd`` in integer nano-dollars."""
        if _tracer is None:
            return
        attrs: dict[str, Any] = {"docfleet.llm.outcome": outcome}
        if input_tokens is not None:
            attrs["gen_ai.usage.input_tokens"] = input_tokens
        if output_tokens is not None:
            attrs["gen_ai.usage.output_tokens"] = output_tokens
        if cost_nano_usd is not None:
            attrs["docfleet.llm.cost_nano_usd"] = cost_nano_usd
        if response_model:
            attrs["gen_ai.response.model"] = response_model
        self.span.set_attributes(attrs)
        if error:
            fail(error, self.span)


@contextmanager
def llm_call(
    model: str, *, provider: str | None = None, operation: str = "chat",
    attributes: Attributes | None = None,
) -> Iterator[LLMCall]:
    """A CLIENT span named ``"{operation} {model}"`` with OpenTelemetry GenAI attributes::

        with llm_call("gpt-4o-mini", provider="openai") as call:
            reply = await litellm.acompletion(...)
            call.done(input_tokens=..., output_tokens=..., cost_nano_usd=...)
    """
    if _tracer is None:
        yield LLMCall(INVALID_SPAN)
        return
    attrs: dict[str, Any] = {"gen_ai.operation.name": operation, "gen_ai.request.model": model}
    if provider:
        attrs["gen_ai.provider.name"] = provider
    attrs.update(attributes or {})
    with _tracer.start_as_current_span(f"{operation} {model}", kind=SpanKind.CLIENT,
                                       attributes=attrs) as s:
        yield LLMCall(s)


def record_llm_call(
    model: str, start_ns: int, *, outcome: str, input_tokens: int | None = None,
    output_tokens: int | None = None, cost_nano_usd: int | None = None,
    provider: str | None = None, error: str | None = None, operation: str = "chat",
) -> None:
    """Record a finished LLM call that started at ``start_ns`` (:func:`now_ns`) as the
    same CLIENT span :func:`llm_call` makes, for code that knows the cost only after the
    call (budget settle)::

        started = telemetry.now_ns()
        ...  # call, settle
        telemetry.record_llm_call(model, started, outcome="ok", input_tokens=...,
                                  output_tokens=..., cost_nano_usd=actual)
    """
    if _tracer is None:
        return
    attrs: dict[str, Any] = {"gen_ai.operation.name": operation, "gen_ai.request.model": model,
                             "docfleet.llm.outcome": outcome}
    for key, value in (("gen_ai.provider.name", provider),
                       ("gen_ai.usage.input_tokens", input_tokens),
                       ("gen_ai.usage.output_tokens", output_tokens),
                       ("docfleet.llm.cost_nano_usd", cost_nano_usd)):
        if value is not None:
            attrs[key] = value
    if error:
        attrs["error.type"] = error.split(":", 1)[0]
    record_span(f"{operation} {model}", start_ns, attrs, kind=SpanKind.CLIENT, error=error)


F = TypeVar("F", bound=Callable[..., Any])


def traced(name: str, attributes: Callable[..., Attributes] | None = None) -> Callable[[F], F]:
    """Decorate a (sync) function so each call runs in span ``name``; ``attributes`` maps
    the call's arguments to span attributes (called only when tracing)::

        @traced("docfleet.render.html", lambda self, run_id, index: {
            "docfleet.document.index": index})
        def prepare(self, run_id, index): ...
    """

    def wrap(fn: F) -> F:
        @functools.wraps(fn)
        def call(*args: Any, **kwargs: Any) -> Any:
            if _tracer is None:
                return fn(*args, **kwargs)
            attrs = attributes(*args, **kwargs) if attributes else None
            with _tracer.start_as_current_span(name, attributes=attrs):
                return fn(*args, **kwargs)

        return call  # type: ignore[return-value]

    return wrap


def traced_llm(fn: F) -> F:
    """Decorate an async chat call ``fn(model, messages, ...)`` with the GenAI CLIENT span
    ``chat {model}``: tokens from the result's ``prompt_tokens``/``completion_tokens``,
    ``docfleet.llm.cost_nano_usd`` from its ``litellm_cost_nano()`` when it knows one,
    ``docfleet.llm.outcome`` ``ok`` or the exception's ``kind`` (else its class name).
    The provider is the model's ``provider/`` prefix, if any."""

    @functools.wraps(fn)
    async def call(model: str, *args: Any, **kwargs: Any) -> Any:
        if _tracer is None:
            return await fn(model, *args, **kwargs)
        provider = model.split("/", 1)[0] if "/" in model else None
        with llm_call(model, provider=provider) as span_:
            try:
                result = await fn(model, *args, **kwargs)
            except Exception as exc:
                kind = getattr(exc, "kind", None) or type(exc).__name__
                span_.done(outcome=str(kind), error=f"{type(exc).__name__}: {exc}")
                raise
            cost = getattr(result, "litellm_cost_nano", None)
            span_.done(outcome="ok", input_tokens=getattr(result, "prompt_tokens", None),
                       output_tokens=getattr(result, "completion_tokens", None),
                       cost_nano_usd=cost() if callable(cost) else None)
            return result

    return call  # type: ignore[return-value]


def log_fields() -> dict[str, Any]:
    """Cloud Logging's trace correlation fields for the current span ({} when off)."""
    if _tracer is None:
        return {}
    ctx = trace.get_current_span().get_span_context()
    if not ctx.is_valid:
        return {}
    trace_id = format(ctx.trace_id, "032x")
    return {
        "logging.googleapis.com/trace":
            f"projects/{_project}/traces/{trace_id}" if _project else trace_id,
        "logging.googleapis.com/spanId": format(ctx.span_id, "016x"),
        "logging.googleapis.com/trace_sampled": ctx.trace_flags.sampled,
    }


@functools.lru_cache(maxsize=8)
def db_attributes(state_uri: str) -> dict[str, Any]:
    """OpenTelemetry database attributes of a state store (``db.system.name``,
    ``db.namespace``) from its URI, without credentials."""
    from docfleet.state.registry import db_system

    return {"db.system.name": db_system(urlsplit(state_uri).scheme),
            "db.namespace": safe_uri(state_uri)}


def claim_attributes(
    claim: Claim | None, seconds: float, races_before: int | None, races_after: int | None
) -> dict[str, Any]:
    """The result attributes of a ``docfleet.claim`` span. Lost races (and so candidates
    tried) appear only when the backend counts them (a ``lost_races`` attribute)."""
    attrs: dict[str, Any] = {"docfleet.claim.outcome": "claimed" if claim else "empty",
                             "docfleet.claim.latency_ms": round(seconds * 1000, 3)}
    if claim is not None:
        attrs["docfleet.unit.index"] = claim.unit_index
        attrs["docfleet.unit.attempt"] = claim.attempts
    if races_before is not None and races_after is not None:
        lost = races_after - races_before
        attrs["docfleet.claim.lost_races"] = lost
        attrs["docfleet.claim.candidates_tried"] = lost + (claim is not None)
    return attrs


def safe_uri(uri: str) -> str:
    """``uri`` without user info, query or fragment (no credentials in span attributes)."""
    parts = urlsplit(uri)
    netloc = parts.netloc.rsplit("@", 1)[-1]
    # never urlunsplit: it drops the "//" of an empty host (sqlite:///rel → sqlite:/rel)
    return f"{parts.scheme}://{netloc}{parts.path}"


def parent_context(env: Mapping[str, str] | None = None) -> otel_context.Context | None:
    """The run's parent context from ``DOCFLEET_TRACE_PARENT`` or ``TRACEPARENT``."""
    env = os.environ if env is None else env
    value = env.get("DOCFLEET_TRACE_PARENT") or env.get("TRACEPARENT")
    if not value:
        return None
    from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

    ctx = TraceContextTextMapPropagator().extract({"traceparent": value})
    return ctx if trace.get_current_span(ctx).get_span_context().is_valid else None


def traceparent() -> str | None:
    """The W3C ``traceparent`` of the current span, for child processes."""
    if _tracer is None:
        return None
    from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

    carrier: dict[str, str] = {}
    TraceContextTextMapPropagator().inject(carrier)
    return carrier.get("traceparent")


def resolve_mode(flag: str | None, env: Mapping[str, str] | None = None) -> str:
    """The exporter to use: ``flag`` (``--trace`` / ``DOCFLEET_TRACE``), else
    ``OTEL_TRACES_EXPORTER``, else ``none``. Raises ``ValueError`` for an unknown mode."""
    env = os.environ if env is None else env
    if env.get("OTEL_SDK_DISABLED", "").lower() == "true":
        return "none"
    mode = (flag or env.get("OTEL_TRACES_EXPORTER") or "none").strip()
    mode = mode.split(",")[0].strip()
    if mode.lower() in ("none", "otlp", "console", "gcp"):
        return mode.lower()
    if mode.startswith("file:") and len(mode) > 5:
        return mode
    raise ValueError(f"unknown trace mode {mode!r} (one of {', '.join(TRACE_MODES)})")


def _json_line(s: Any) -> str:
    """One span as one compact JSON line (the SDK's ``to_json`` is indented)."""
    return json.dumps(json.loads(s.to_json()), separators=(",", ":")) + "\n"


class JsonLinesSpanExporter:
    """A span exporter writing each span as one JSON line (``ReadableSpan.to_json``
    compacted) appended to a file; one ``write`` per batch, so processes can share it."""

    def __init__(self, path: str) -> None:
        self.path = path

    def export(self, spans: Sequence[Any]) -> Any:
        from opentelemetry.sdk.trace.export import SpanExportResult

        lines = "".join(_json_line(s) for s in spans)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, lines.encode())
        finally:
            os.close(fd)
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        pass

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True


def _gcp_exporter(env: Mapping[str, str]) -> tuple[Any, str | None]:
    try:
        import google.auth
        from google.auth.exceptions import DefaultCredentialsError
        from google.auth.transport.requests import AuthorizedSession
    except ImportError:
        raise MissingExtraError("--trace gcp", "gcp") from None
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    try:
        credentials, project = google.auth.default(
            scopes=["https://www.googleapis.com/auth/cloud-platform"]
        )
    except DefaultCredentialsError as exc:
        raise ConfigError(f"--trace gcp found no Google credentials ({exc})",
                          "run on Google Cloud with a service account, or set "
                          "GOOGLE_APPLICATION_CREDENTIALS") from None
    project = env.get("GOOGLE_CLOUD_PROJECT") or project
    endpoint = env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    if not endpoint and env.get("OTEL_EXPORTER_OTLP_ENDPOINT"):
        endpoint = env["OTEL_EXPORTER_OTLP_ENDPOINT"].rstrip("/") + "/v1/traces"
    endpoint = endpoint or GCP_TRACES_ENDPOINT
    headers = {"x-goog-user-project": project} if project else None
    return OTLPSpanExporter(endpoint=endpoint, headers=headers,
                            session=AuthorizedSession(credentials)), project


def setup_tracing(
    mode: str | None, resource: Attributes | None = None, env: Mapping[str, str] | None = None,
    *, exporter: Any = None,
) -> bool:
    """Install the process's tracer for ``mode`` (see :func:`resolve_mode`), with extra
    ``resource`` attributes. ``exporter`` (an SDK ``SpanExporter``, e.g. the in-memory
    one) overrides the mode and is exported synchronously. Returns whether tracing is
    on. Call :func:`shutdown` before the process exits. Raises :class:`ConfigError` for
    an unknown mode, missing ``gcp`` extra or missing Google credentials."""
    global _tracer, _provider, _project
    env = os.environ if env is None else env
    try:
        mode = "custom" if exporter is not None else resolve_mode(mode, env)
    except ValueError as exc:
        raise ConfigError(str(exc), "set --trace / DOCFLEET_TRACE, or OTEL_TRACES_EXPORTER"
                          ) from None
    if mode == "none":
        return False
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor

    import docfleet

    attrs: dict[str, Any] = {"service.version": docfleet.__version__, **(resource or {})}
    project = env.get("GOOGLE_CLOUD_PROJECT") or env.get("GCP_PROJECT")
    if mode == "gcp":
        exporter, project = _gcp_exporter(env)
        if project:
            attrs["gcp.project_id"] = project
    elif mode == "otlp":
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        exporter = OTLPSpanExporter()
    elif mode == "console":
        import sys

        from opentelemetry.sdk.trace.export import ConsoleSpanExporter

        exporter = ConsoleSpanExporter(out=sys.stderr, formatter=_json_line)
    elif mode.startswith("file:"):
        exporter = JsonLinesSpanExporter(mode[5:])
    if "service.name" not in attrs and not env.get("OTEL_SERVICE_NAME"):
        attrs["service.name"] = "docfleet"
    resource_obj = Resource.create(attrs)
    if not project and resource_obj.attributes.get("gcp.project_id"):
        project = str(resource_obj.attributes["gcp.project_id"])
    # shutdown_on_exit=False: :func:`shutdown` bounds the final flush; an atexit hook
    # would block the exit again on an unreachable collector.
    provider = TracerProvider(resource=resource_obj, shutdown_on_exit=False)
    processor = SimpleSpanProcessor(exporter) if mode == "custom" else BatchSpanProcessor(exporter)
    provider.add_span_processor(processor)
    with _lock:
        _provider, _project = provider, project
        _tracer = provider.get_tracer("docfleet", docfleet.__version__)
    return True


def flush(timeout_millis: int = FLUSH_TIMEOUT_MILLIS) -> bool:
    """Export every finished span now; false if that did not finish in time."""
    return _provider.force_flush(timeout_millis) if _provider is not None else True


def shutdown(timeout_millis: int = FLUSH_TIMEOUT_MILLIS) -> bool:
    """Flush and stop tracing, returning within about ``timeout_millis`` even when the
    collector is unreachable (the exporter's own retries can take longer: they are left
    to a daemon thread and the undelivered spans are lost). Later spans are no-ops.
    Returns whether everything was delivered in time."""
    global _tracer, _provider
    with _lock:
        provider, _provider, _tracer = _provider, None, None
    if provider is None:
        return True
    result: list[bool] = []

    def close() -> None:
        result.append(provider.force_flush(timeout_millis))
        provider.shutdown()

    closer = threading.Thread(target=close, name="trace-shutdown", daemon=True)
    closer.start()
    closer.join(timeout_millis / 1000 + 0.5)
    delivered = bool(result and result[0]) and not closer.is_alive()
    if not delivered:
        import logging

        logging.getLogger("docfleet").warning(
            "spans not delivered within %.1f s; exiting without them", timeout_millis / 1000)
    return delivered


@contextmanager
def root_span(name: str, attributes: Attributes) -> Iterator[Span]:
    """A process's root span, under the run's parent context (:func:`parent_context`)
    if one is given; current inside the block."""
    if _tracer is None:
        yield INVALID_SPAN
        return
    with _tracer.start_as_current_span(name, context=parent_context(),
                                       kind=SpanKind.INTERNAL, attributes=attributes) as s:
        yield s


def run_task(
    fn: Callable[[], int], mode: str | None, identity: TaskIdentity, run_id: str,
    state_uri: str, out_uri: str,
) -> int:
    """Run one task's body ``fn`` (returning its exit code) inside the root span
    ``docfleet.task``, with tracing set up for ``mode``; always flush and shut tracing
    down before returning or raising, so a SIGTERM'd task (``fn`` returns 143) still
    delivers its spans."""
    attrs = {
            "docfleet.run_id": run_id, "docfleet.task.index": identity.index,
            "docfleet.task.count": identity.count, "docfleet.task.attempt": identity.attempt,
            "docfleet.task.execution": identity.execution, "docfleet.task.engine": identity.engine,
            "docfleet.state.uri": safe_uri(state_uri), "docfleet.out.uri": safe_uri(out_uri),
            "process.pid": identity.pid,
        }
    return run_root("docfleet.task", fn, mode, attrs, {"service.instance.id": identity.owner})


def run_root(
    name: str, fn: Callable[[], int], mode: str | None, attributes: Attributes,
    resource: Attributes | None = None,
) -> int:
    """Set tracing up for ``mode``, run ``fn`` (returning an exit code) inside the root
    span ``name`` (a child of the run's parent context, if any), record the exit code,
    and flush and shut tracing down before returning or raising."""
    setup_tracing(mode, resource)
    try:
        with root_span(name, attributes) as root:
            code = fn()
            root.set_attribute("process.exit.code", code)
            if code not in (0, 130, 143):
                root.set_status(Status(StatusCode.ERROR, f"exit code {code}"))
            return code
    finally:
        shutdown()
