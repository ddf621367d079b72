"""``complete_and_claim_next`` (docfleet.state.optional.CompletesAndClaims), run against
every state store: PostgreSQL's own single statement, and the default (``complete_unit``
then ``claim_next_unit``) on the others. Completion first: a claim is made only when the
completion applied."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from racers import race, race_complete_and_claim

from docfleet.core.models import RunSpec, UnitState
from docfleet.kernel.planner import plan_units
from docfleet.state import StateStore
from docfleet.state.optional import complete_and_claim_next

LEASE = 30.0


def planned(store: StateStore, run_id: str, units: int) -> None:
    spec = RunSpec(run_id=run_id, total=units, unit_size=1, pack="bench")
    now = time.time()
    assert store.create_run(spec, "planner", now).won
    store.put_units(run_id, plan_units(spec))
    assert store.mark_planned(run_id, "planner", now)


def drained_by_racers(store: StateStore, state_uri: str, run_id: str, pool: Any,
                      racer: Callable[..., list[str]], units: int = 120, tasks: int = 6
                      ) -> None:
    """Plan ``units``; ``tasks`` processes drain them with ``racer`` (``racers.py``: it
    returns ``IDX|TOKEN`` per claim); each unit was taken once, with a token of its own."""
    planned(store, run_id, units)
    results = race(pool, racer,
                   [(state_uri, run_id, f"w{i}", i * units // tasks) for i in range(tasks)])
    taken = [t for r in results for t in r]
    assert sorted(int(t.split("|")[0]) for t in taken) == list(range(units))
    assert len({t.split("|")[1] for t in taken}) == units, "one token per claim"
    assert store.progress(run_id)[UnitState.DONE] == units


def test_it_completes_the_unit_and_claims_the_next_from_the_hint(
    store: StateStore, run_id: str
) -> None:
    planned(store, run_id, 4)
    first = store.claim_next_unit(run_id, "w", 2, LEASE, 100.0)
    assert first is not None and first.unit_index == 2
    done, nxt = complete_and_claim_next(store, first, "a" * 64, "w", 2, LEASE, 101.0)
    assert done and nxt is not None
    assert nxt.unit_index == 3 and nxt.attempts == 1 and nxt.token.startswith("w")
    assert nxt.token != first.token
    assert nxt.lease_expires_at == pytest.approx(101.0 + LEASE)
    units = {u.index: u for u in store.units(run_id)}
    assert units[2].state == UnitState.DONE and units[2].part_sha256 == "a" * 64
    assert units[3].state == UnitState.RUNNING and units[3].lease_owner == nxt.token
    assert units[3].worked_by == "w"
    assert [units[i].state for i in (0, 1)] == [UnitState.PENDING] * 2
    # the next claim is a claim like any other: fenced, renewable, completable
    assert store.renew_lease(nxt, LEASE, 102.0) is not None
    done, wrapped = complete_and_claim_next(store, nxt, "b" * 64, "w", 2, LEASE, 103.0)
    # wraps around: a unit below the hint (Firestore takes one of them at random, so the
    # tasks whose range ran dry do not all collide)
    assert done and wrapped is not None and wrapped.unit_index in (0, 1)


def test_a_fenced_completion_completes_nothing_and_claims_nothing(
    store: StateStore, run_id: str
) -> None:
    planned(store, run_id, 3)
    stale = store.claim_next_unit(run_id, "slow", 0, 10.0, 100.0)
    assert store.reclaim_expired_units(run_id, 3, now=111.0) == 1
    fresh = store.claim_next_unit(run_id, "fast", 0, LEASE, 112.0)
    assert fresh is not None and fresh.unit_index == stale.unit_index
    assert complete_and_claim_next(store, stale, "s" * 64, "slow", 0, LEASE, 113.0) == (
        False, None)
    units = store.units(run_id)
    assert units[0].state == UnitState.RUNNING and units[0].lease_owner == fresh.token
    assert [u.state for u in units[1:]] == [UnitState.PENDING] * 2, "nothing was claimed"
    assert store.complete_unit(fresh, "f" * 64, 114.0)


def test_a_completion_after_its_own_lease_ran_out_never_claims_that_unit_again(
    store: StateStore, run_id: str
) -> None:
    """Nobody reclaimed it, so the token still holds and the completion applies; the
    claim that follows takes another unit, not the one just completed."""
    planned(store, run_id, 2)
    claim = store.claim_next_unit(run_id, "w", 0, 10.0, 100.0)
    done, nxt = complete_and_claim_next(store, claim, "a" * 64, "w", 0, LEASE, 200.0)
    assert done and nxt is not None and nxt.unit_index == 1
    units = store.units(run_id)
    assert units[0].state == UnitState.DONE and units[0].part_sha256 == "a" * 64
    assert units[1].state == UnitState.RUNNING


def test_the_last_unit_completes_and_claims_none(store: StateStore, run_id: str) -> None:
    planned(store, run_id, 1)
    claim = store.claim_next_unit(run_id, "w", 0, LEASE, 100.0)
    assert complete_and_claim_next(store, claim, "a" * 64, "w", 0, LEASE, 101.0) == (
        True, None)
    assert store.progress(run_id)[UnitState.DONE] == 1
    # completion happens once: a second call is fenced
    assert complete_and_claim_next(store, claim, "a" * 64, "w", 0, LEASE, 102.0) == (
        False, None)


def test_processes_draining_with_it_take_each_unit_once(
    store: StateStore, state_uri: str, run_id: str, pool
) -> None:
    drained_by_racers(store, state_uri, run_id, pool, race_complete_and_claim)
