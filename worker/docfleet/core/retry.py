"""Bounded, jittered retries for cloud store calls.

A transient error (throttling, contention, an unreachable or restarting endpoint) is
retried with jittered exponential backoff for at most ``bound`` seconds; past the bound
:class:`StoreUnavailableError` says what was tried, how long, and the last error, on one
line. A permanent error (bad credentials, a missing table) is raised at once.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from tenacity import (
    RetryError,
    Retrying,
    retry_if_exception,
    stop_after_delay,
    wait_random_exponential,
)

from docfleet.core.durations import env_seconds
from docfleet.core.errors import StoreUnavailableError

T = TypeVar("T")

#: Env var overriding the default retry bound (seconds) of every cloud store call.
RETRY_SECONDS_ENV = "DOCFLEET_STORE_RETRY_SECONDS"
DEFAULT_RETRY_SECONDS = 60.0


def default_bound() -> float:
    """The retry bound from ``DOCFLEET_STORE_RETRY_SECONDS`` (default 60 s). Raises
    :class:`ConfigError` for a negative, non-finite or non-numeric value."""
    return env_seconds(RETRY_SECONDS_ENV, DEFAULT_RETRY_SECONDS)


def one_line(exc: BaseException, limit: int = 300) -> str:
    """``Type: message`` squeezed onto one line."""
    text = " ".join(str(exc).split()) or repr(exc)
    return f"{type(exc).__name__}: {text[:limit]}"


@dataclass(frozen=True)
class RetryPolicy:
    """Retry ``is_transient`` errors for up to ``bound`` seconds, sleeping a random
    exponential backoff between ``initial`` and ``maximum`` seconds."""

    what: str
    is_transient: Callable[[BaseException], bool]
    bound: float = DEFAULT_RETRY_SECONDS
    initial: float = 0.05
    maximum: float = 2.0
    hint: str = "check the endpoint and credentials, or raise DOCFLEET_STORE_RETRY_SECONDS"

    def call(self, fn: Callable[[], T], op: str = "", *, started: float | None = None,
             tried: int = 0) -> T:
        """Run ``fn`` under this policy. Raises :class:`StoreUnavailableError` once the
        bound is hit; re-raises a permanent error unchanged. A caller that already made
        ``tried`` failed attempts since ``started`` (``time.monotonic()``) passes both:
        the bound then counts from ``started``."""
        import time

        # the window left: the bound counts from ``started`` when the caller began earlier
        left = self.bound if started is None else max(
            0.0, self.bound - (time.monotonic() - started))
        retrying = Retrying(
            retry=retry_if_exception(self.is_transient),
            stop=stop_after_delay(left),
            wait=wait_random_exponential(multiplier=self.initial, max=self.maximum),
            reraise=False,
        )
        try:
            return retrying(fn)
        except RetryError as exc:
            last = exc.last_attempt.exception()
            attempts = exc.last_attempt.attempt_number + tried
            where = f"{self.what} {op}".strip()
            raise StoreUnavailableError(
                f"{where} failed {attempts} times over {self.bound:.0f}s; last error: "
                f"{one_line(last) if last else 'none'}",
                self.hint,
            ) from None


def jitter(n: int) -> int:
    """A small random offset in ``[0, n)`` to spread racing tasks."""
    return random.randrange(n) if n > 0 else 0
