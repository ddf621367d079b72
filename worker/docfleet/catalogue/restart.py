"""Getting a stored catalogue run ready for new workers (``catalogue build`` again)."""

from __future__ import annotations

from docfleet.core import clock
from docfleet.core.models import Run
from docfleet.state.base import StateStore


def reclaim_expired(store: StateStore, run: Run, *, now: float | None = None
                    ) -> tuple[int, int]:
    """Before workers restart on stored run ``run`` (``catalogue build`` of an existing
    catalogue): reclaim its expired leases (a unit on its last attempt becomes FAILED)
    and release its expired budget reservations, so the new workers neither wait a lease
    for dead peers' units nor count their reserved spend. Returns (units reclaimed,
    reservations released). Idempotent; touches no outputs."""
    now = clock.now() if now is None else now
    reclaimed = store.reclaim_expired_units(run.run_id, run.spec.max_attempts, now)
    released = store.release_expired_reservations(run.run_id, now)
    return reclaimed, released
