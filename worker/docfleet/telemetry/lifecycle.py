"""A traced process's life: tracing set up, the body run inside its root span, its exit
code recorded, and the spans flushed and tracing shut down on the way out, within a
bound even when the collector is unreachable."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from opentelemetry.trace import Status, StatusCode

from docfleet.telemetry import api
from docfleet.telemetry.api import Attributes, root_span
from docfleet.telemetry.attributes import task_attributes
from docfleet.telemetry.exporters import setup_tracing

if TYPE_CHECKING:
    from docfleet.core.identity import TaskIdentity

#: How long a task waits for its spans to leave on exit (Cloud Run gives 10 s after SIGTERM).
FLUSH_TIMEOUT_MILLIS = 5000


def flush(timeout_millis: int = FLUSH_TIMEOUT_MILLIS) -> bool:
    """Export every finished span now; false if that did not finish in time."""
    provider = api.provider()
    return provider.force_flush(timeout_millis) if provider is not None else True


def shutdown(timeout_millis: int = FLUSH_TIMEOUT_MILLIS) -> bool:
    """Flush and stop tracing, returning within about ``timeout_millis`` even when the
    collector is unreachable (the exporter's own retries can take longer: they are left
    to a daemon thread and the undelivered spans are lost). Later spans are no-ops.
    Returns whether everything was delivered in time."""
    provider = api.uninstall()
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


def run_task(
    fn: Callable[[], int], mode: str | None, identity: TaskIdentity, run_id: str,
    state_uri: str, out_uri: str,
) -> int:
    """Run one task's body ``fn`` (returning its exit code) inside the root span
    ``docfleet.task``, with tracing set up for ``mode``; always flush and shut tracing
    down before returning or raising, so a SIGTERM'd task (``fn`` returns 143) still
    delivers its spans."""
    attrs = task_attributes(identity, run_id, state_uri, out_uri)
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
