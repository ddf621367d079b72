"""The optional members of a state store, beyond the contract (:mod:`docfleet.state.base`):
what a backend may offer, and what the kernel does when it does not. The kernel reads
them only through :func:`lost_races` and :func:`work_waiter`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class CountsLostRaces(Protocol):
    """A store that counts the claims it lost to a peer (a conditional write that found the
    unit taken), so a ``docfleet.claim`` span can say how many candidates it tried.
    Without it those attributes are left out. Every bundled backend counts them."""

    #: claims lost to a peer since the store was opened (only ever grows)
    lost_races: int


@runtime_checkable
class SignalsWork(Protocol):
    """A store that can wake an idle task when work may have appeared (PostgreSQL's
    LISTEN/NOTIFY for returned work, SQLite's ``data_version`` for any peer's commit).
    Without it an idle task sleeps its poll interval."""

    def wait_for_work(self, run_id: str, timeout: float) -> bool:
        """Block up to ``timeout`` seconds; ``True`` as soon as a peer may have returned
        or changed work of ``run_id``, ``False`` on timeout. Reads only; never raises for
        a timeout."""
        ...


def lost_races(store: Any) -> int | None:
    """``store.lost_races``, or ``None`` for a store that does not count them."""
    return store.lost_races if isinstance(store, CountsLostRaces) else None


def work_waiter(store: Any) -> Callable[[str, float], bool] | None:
    """``store.wait_for_work``, or ``None`` for a store that cannot signal work."""
    return store.wait_for_work if isinstance(store, SignalsWork) else None
