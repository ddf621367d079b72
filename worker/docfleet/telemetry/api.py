"""The span API: the process's tracer (``None`` when tracing is off) and the calls code
makes to record spans. Every call costs one global check and returns a shared no-op when
tracing is off; the SDK is never imported here (:mod:`.exporters` installs a tracer)."""

from __future__ import annotations

import functools
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from typing import Any, TypeVar, cast

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import INVALID_SPAN, Span, SpanKind, Status, StatusCode

Attributes = Mapping[str, Any]

_tracer: trace.Tracer | None = None
_provider: Any = None  # opentelemetry.sdk.trace.TracerProvider when tracing
_project: str | None = None
_lock = threading.Lock()


def install(tracer: trace.Tracer, provider: Any, project: str | None) -> None:
    """Make ``tracer`` (of SDK ``provider``) the process's tracer; ``project``: the Google
    Cloud project log lines name in their trace field. Called by
    :func:`~docfleet.telemetry.exporters.setup_tracing`."""
    global _tracer, _provider, _project
    with _lock:
        _provider, _project, _tracer = provider, project, tracer


def uninstall() -> Any:
    """Turn tracing off (later spans are no-ops) and return the provider that was
    installed (``None`` if none), for the caller to flush and shut down."""
    global _tracer, _provider
    with _lock:
        provider, _provider, _tracer = _provider, None, None
    return provider


def tracer() -> trace.Tracer | None:
    """The process's tracer, ``None`` when tracing is off."""
    return _tracer


def provider() -> Any:
    """The installed SDK ``TracerProvider``, ``None`` when tracing is off."""
    return _provider


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

        return cast(F, call)  # functools.wraps keeps the signature

    return wrap



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


