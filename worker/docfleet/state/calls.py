"""The one path every backend's store calls take: a transient error is retried, bounded
and jittered (:class:`docfleet.core.retry.RetryPolicy`), a permanent one becomes one clear
line. A backend says only which errors are transient and how its SDK's errors read
(``translate``); the retrying, the bound, the one-line error at the bound and the first
attempt without the retry machinery (tens of µs a call) are here, once."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from docfleet.core.errors import DocfleetError
from docfleet.core.retry import RetryPolicy

T = TypeVar("T")

#: A backend's translation of an SDK error left after the retries into one clear line
#: (``None``: not the SDK's; it is raised as it is). Called with the error and the op.
Translate = Callable[[BaseException, str], DocfleetError | None]


class StoreCalls:
    """Run a backend's calls under ``policy``, translating what is left with
    ``translate``. Thread-safe (no state between calls)."""

    def __init__(self, policy: RetryPolicy, translate: Translate,
                 cleanup: Callable[[], None] | None = None) -> None:
        """``cleanup`` runs before a permanent error is translated (SQLite: roll back the
        connection's open transaction)."""
        self.policy = policy
        self.translate = translate
        self.cleanup = cleanup

    @property
    def bound(self) -> float:
        """Seconds a call may retry before :class:`StoreUnavailableError`."""
        return self.policy.bound

    def call(self, op: str, fn: Callable[[], T], *, started: float | None = None) -> T:
        """``fn()``; a transient error retries it within the bound counted from
        ``started`` (``time.monotonic()``, default now). Raises
        :class:`StoreUnavailableError` at the bound, the translated
        :class:`DocfleetError` for a permanent SDK error, a :class:`DocfleetError` that
        ``fn`` raised as it is."""
        started = time.monotonic() if started is None else started
        try:
            try:  # the common case, without building the retry machinery
                return fn()
            except Exception as exc:
                if isinstance(exc, DocfleetError) or not self.policy.is_transient(exc):
                    raise
            return self.policy.call(fn, op, started=started, tried=1)
        except DocfleetError:
            raise
        except Exception as exc:
            if self.cleanup is not None:
                self.cleanup()
            error = self.translate(exc, op)
            if error is None:
                raise
            raise error from None
