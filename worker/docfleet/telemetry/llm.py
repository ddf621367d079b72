"""GenAI spans of LLM calls (OpenTelemetry's ``gen_ai.*`` attributes, plus the
catalogue's ``docfleet.llm.*``): a span around a call, one recorded after the fact, and a
decorator for an async chat call. No-ops when tracing is off."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar, cast

from opentelemetry.trace import INVALID_SPAN, Span, SpanKind

from docfleet.telemetry import api
from docfleet.telemetry.api import Attributes, fail, record_span

F = TypeVar("F", bound=Callable[..., Any])


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
        if api.tracer() is None:
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
    tracer = api.tracer()
    if tracer is None:
        yield LLMCall(INVALID_SPAN)
        return
    attrs: dict[str, Any] = {"gen_ai.operation.name": operation, "gen_ai.request.model": model}
    if provider:
        attrs["gen_ai.provider.name"] = provider
    attrs.update(attributes or {})
    with tracer.start_as_current_span(f"{operation} {model}", kind=SpanKind.CLIENT,
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
    if api.tracer() is None:
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


def traced_llm(fn: F) -> F:
    """Decorate an async chat call ``fn(model, messages, ...)`` with the GenAI CLIENT span
    ``chat {model}``: tokens from the result's ``prompt_tokens``/``completion_tokens``,
    ``docfleet.llm.cost_nano_usd`` from its ``litellm_cost_nano()`` when it knows one,
    ``docfleet.llm.outcome`` ``ok`` or the exception's ``kind`` (else its class name).
    The provider is the model's ``provider/`` prefix, if any."""

    @functools.wraps(fn)
    async def call(model: str, *args: Any, **kwargs: Any) -> Any:
        if api.tracer() is None:
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

    return cast(F, call)  # functools.wraps keeps the signature


