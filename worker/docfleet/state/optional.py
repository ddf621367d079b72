"""The optional members of a state store, beyond the contract (:mod:`docfleet.state.base`):
what a backend may offer, and what the kernel does when it does not. The kernel reads
them only through :func:`lost_races`, :func:`work_waiter` and :func:`write_ramp`."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from docfleet.pacing import WriteRamp


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


@runtime_checkable
class RampsWrites(Protocol):
    """A store whose write rate to a new collection must grow on a ramp (Firestore's
    500/50/5 rule), with the writes one unit costs it. The kernel spaces its claims so the
    whole fleet stays under the ramp (``pacing.ClaimGovernor``). Without it, or with
    ``write_ramp`` ``None`` (``?ramp=off``), claims are not spaced."""

    #: the ramp this store's writes must follow, or ``None``
    write_ramp: WriteRamp | None
    #: writes one unit costs (its claim and its completion), lease renewals aside
    unit_writes: float


def write_ramp(store: Any) -> tuple[WriteRamp, float] | None:
    """``(store.write_ramp, store.unit_writes)``, or ``None`` for a store with no ramp."""
    if isinstance(store, RampsWrites) and store.write_ramp is not None:
        return store.write_ramp, float(store.unit_writes)
    return None


def lost_races(store: Any) -> int | None:
    """``store.lost_races``, or ``None`` for a store that does not count them."""
    return store.lost_races if isinstance(store, CountsLostRaces) else None


def work_waiter(store: Any) -> Callable[[str, float], bool] | None:
    """``store.wait_for_work``, or ``None`` for a store that cannot signal work."""
    return store.wait_for_work if isinstance(store, SignalsWork) else None
