"""The optional members of a state store, beyond the contract (:mod:`docfleet.state.base`):
what a backend may offer, and what the kernel does when it does not. The kernel reads
them only through :func:`lost_races`, :func:`work_waiter`, :func:`write_ramp`,
:func:`complete_and_claim_next`, :func:`claims_in_batches`,
:func:`complete_and_claim_units` and :func:`start_unit`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

from docfleet.core.models import Claim
from docfleet.state.ramp import WriteRamp


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


@runtime_checkable
class CompletesAndClaims(Protocol):
    """A store that completes a unit and claims the next in one atomic write (PostgreSQL:
    one statement, one round trip, one commit). Without it the kernel calls
    ``complete_unit`` then ``claim_next_unit`` (:func:`complete_and_claim_next`), which
    has the same outcome in two writes."""

    def complete_and_claim_next(self, claim: Claim, part_sha256: str, owner: str,
                                hint: int, lease_seconds: float, now: float
                                ) -> tuple[bool, Claim | None]:
        """``complete_unit(claim, part_sha256, now)`` and then, only if that completion
        applied, ``claim_next_unit(claim.run_id, owner, hint, lease_seconds, now)``.
        Returns ``(completed, next claim or None)``. Completion first: a fenced
        completion (the lease was lost) is ``(False, None)`` and claims nothing; an
        empty pool is ``(True, None)``. Fenced and recognised on a retry exactly as the
        two calls: a retry after a lost answer counts the claim's own applied completion
        and returns the unit the lost attempt claimed."""
        ...


def complete_and_claim_next(store: Any, claim: Claim, part_sha256: str, owner: str,
                            hint: int, lease_seconds: float, now: float
                            ) -> tuple[bool, Claim | None]:
    """``store.complete_and_claim_next``, or the same contract by ``complete_unit`` and
    then (only if it applied) ``claim_next_unit``: every backend offers it."""
    if _offers(type(store), CompletesAndClaims):
        return store.complete_and_claim_next(claim, part_sha256, owner, hint, lease_seconds,
                                             now)
    if not store.complete_unit(claim, part_sha256, now):
        return False, None
    return True, store.claim_next_unit(claim.run_id, owner, hint, lease_seconds, now)


@runtime_checkable
class CompletesAndClaimsUnits(Protocol):
    """A store that records several completions and claims several units in one atomic
    write (PostgreSQL: one statement, one round trip, one commit for a whole batch). The
    kernel then claims short units in batches (:mod:`docfleet.kernel.claimbatch`); without it a
    task takes one unit at a time. :func:`complete_and_claim_units` offers the same
    contract on every store, one write per completion and per claim."""

    def complete_and_claim_units(self, run_id: str, completions: Sequence[tuple[Claim, str]],
                                 owner: str, hint: int, want: int, lease_seconds: float,
                                 now: float) -> tuple[list[bool], list[Claim]]:
        """Complete each ``(claim, part_sha256)`` of ``completions`` (each fenced on its
        own token, as ``complete_unit``) and then, only if every one applied, claim up to
        ``want`` units as ``want`` calls of ``claim_next_unit`` would (PENDING units
        from ``hint`` upwards, wrapping around; a store that reclaims inside its claim,
        as PostgreSQL does, takes expired leases first); never a unit just completed.
        Returns ``(applied, claims)``: one flag per completion, in order, and the claims
        made (each its own token, all with the stated expiry ``now + lease_seconds``).
        ``want = 0`` only completes; no completions is a plain claim of up to ``want``. A
        fenced completion claims nothing. A retry after a lost answer counts the claims'
        own applied completions and returns the units the lost attempt claimed, never a
        second batch."""
        ...


@runtime_checkable
class StartsUnits(Protocol):
    """A store whose batch claims leave the units claimed ahead uncharged
    (``Claim.charged`` false: PostgreSQL); the kernel spends the attempt when work on
    such a unit starts, and records the batch's finished units in the same write, so a
    task killed mid-batch costs one attempt, the started unit's, not one per unit it
    held, and fails no unit it had finished."""

    def start_unit(self, claim: Claim, now: float,
                   completions: Sequence[tuple[Claim, str]] = ()
                   ) -> tuple[list[bool], Claim | None]:
        """In one atomic write: complete each ``(claim, part_sha256)`` of
        ``completions`` (fenced on its own token, as ``complete_unit``), then spend
        ``claim``'s attempt (fenced on its token; idempotent: the stored attempts become
        ``claim.attempts + 1``). Returns the completions applied and the claim, charged,
        or ``None`` if its unit is no longer this claim's (reclaimed)."""
        ...


def start_unit(store: Any, claim: Claim, now: float,
               completions: Sequence[tuple[Claim, str]] = ()
               ) -> tuple[list[bool], Claim | None]:
    """Work on ``claim``'s unit starts: a claim not yet charged spends its attempt now,
    with ``completions`` recorded in the same write (``store.start_unit``); a charged
    claim (every claim on a store without batches) is returned as is, the completions
    recorded one ``complete_unit`` each."""
    if not claim.charged and _offers(type(store), StartsUnits):
        return store.start_unit(claim, now, completions)
    return [store.complete_unit(c, sha, now) for c, sha in completions], claim


def claims_in_batches(store: Any) -> bool:
    """Whether ``store`` claims and completes a batch in one write of its own (then
    batches pay off: one round trip for many short units)."""
    return _offers(type(store), CompletesAndClaimsUnits)


def complete_and_claim_units(store: Any, run_id: str, completions: Sequence[tuple[Claim, str]],
                             owner: str, hint: int, want: int, lease_seconds: float,
                             now: float) -> tuple[list[bool], list[Claim]]:
    """``store.complete_and_claim_units``, or its contract by ``complete_unit`` per
    completion and then (only if all applied) ``claim_next_unit`` up to ``want`` times,
    each search starting just past the last claim: every backend offers it."""
    if _offers(type(store), CompletesAndClaimsUnits):
        return store.complete_and_claim_units(run_id, completions, owner, hint, want,
                                              lease_seconds, now)
    applied = [store.complete_unit(claim, sha, now) for claim, sha in completions]
    claims: list[Claim] = []
    if all(applied):
        while len(claims) < want:
            claim = store.claim_next_unit(run_id, owner, hint, lease_seconds, now)
            if claim is None:
                break
            claims.append(claim)
            hint = claim.unit_index + 1
    return applied, claims


_OFFERS: dict[tuple[type, type], bool] = {}


def _offers(kind: type, protocol: type) -> bool:
    """Whether a store class implements a methods-only optional protocol: the declared
    protocol checked once per class (a runtime Protocol check of an instance costs ~8 µs,
    and these are asked once per unit)."""
    found = _OFFERS.get((kind, protocol))
    if found is None:
        found = _OFFERS[(kind, protocol)] = issubclass(kind, protocol)
    return found
