"""The litellm boundary: a lazy import (it takes seconds, and prints unless told not to),
one async call with a hard timeout, and errors sorted into what the completer needs."""

from __future__ import annotations

import asyncio
import importlib.util
import os
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from typing import Any

from docfleet.core.errors import ConfigError
from docfleet.telemetry import traced_llm


def require_litellm() -> None:
    """Raise :class:`ConfigError` (one line: what to install or run instead) when litellm
    is not installed, e.g. in the generation image; imports nothing."""
    if importlib.util.find_spec("litellm") is None:
        raise ConfigError(
            "the LLM catalogue build needs litellm (the optional extra 'llm'), "
            "which this install does not have",
            "pip install 'docfleet[llm]', or use the full image "
            "(scripts/build-image --full: the -full tag)")


@cache
def litellm_module() -> Any:
    """Import litellm offline and quiet. Only the catalogue build path calls this.
    Raises :class:`ConfigError` when litellm is not installed."""
    os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("LITELLM_LOG", "ERROR")
    require_litellm()
    import litellm

    litellm.suppress_debug_info = True
    litellm.telemetry = False
    litellm.drop_params = True
    return litellm


class CallError(Exception):
    """A call that produced no answer. ``retryable``: rate limit, timeout, connection or
    5xx; ``billable``: the provider may have charged it (timeout, cancellation)."""

    def __init__(self, kind: str, detail: str, *, retryable: bool, billable: bool) -> None:
        super().__init__(f"{kind}: {detail}"[:300])
        self.kind = kind
        self.retryable = retryable
        self.billable = billable


@dataclass
class Answer:
    content: str | None
    prompt_tokens: int
    completion_tokens: int
    response: Any

    def litellm_cost_nano(self) -> int | None:
        """litellm's own cost of this response in nano-dollars (ceil), if it knows it."""
        try:
            usd = litellm_module().completion_cost(completion_response=self.response)
        except Exception:
            return None
        if usd is None:
            return None
        return int((Decimal(str(usd)) * 1_000_000_000).to_integral_value(rounding="ROUND_CEILING"))


@traced_llm  # span "chat {model}": tokens, cost, outcome (docfleet.telemetry)
async def complete(
    model: str, messages: list[dict[str, str]], *, max_tokens: int, timeout: float,
    api_base: str | None = None,
) -> Answer:
    """One chat completion, never longer than ``timeout`` (+1 s of grace) whatever the
    provider does. No hidden retries (``num_retries=0``, ``max_retries=0``): every HTTP
    attempt is one budget reservation. Raises :class:`CallError`."""
    litellm = litellm_module()
    kwargs: dict[str, Any] = {
        "model": model, "messages": messages, "max_tokens": max_tokens, "timeout": timeout,
        "num_retries": 0, "max_retries": 0,
    }
    if api_base:
        kwargs["api_base"] = api_base
    try:
        response = await asyncio.wait_for(litellm.acompletion(**kwargs), timeout + 1.0)
    except TimeoutError as exc:
        raise CallError("timeout", f"no answer within {timeout:.1f}s", retryable=True,
                        billable=True) from exc
    except litellm.RateLimitError as exc:
        raise CallError("rate_limit", str(exc), retryable=True, billable=False) from exc
    except litellm.Timeout as exc:
        raise CallError("timeout", str(exc), retryable=True, billable=True) from exc
    except (litellm.APIConnectionError, litellm.InternalServerError,
            litellm.ServiceUnavailableError, litellm.BadGatewayError) as exc:
        raise CallError("unavailable", str(exc), retryable=True, billable=False) from exc
    except litellm.APIError as exc:
        raise CallError("error", str(exc), retryable=False, billable=False) from exc
    except Exception as exc:  # anything else from the SDK: a failed call
        if isinstance(exc, asyncio.CancelledError):
            raise
        raise CallError("error", f"{type(exc).__name__}: {exc}", retryable=False,
                        billable=False) from exc
    choice = response.choices[0] if getattr(response, "choices", None) else None
    content = getattr(getattr(choice, "message", None), "content", None) if choice else None
    usage = getattr(response, "usage", None)
    return Answer(
        content=content,
        prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
        completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
        response=response,
    )
