"""Progress counters and the finalizer lease (issue 18), on every state store: counters
kept by the transitions are exact at rest, reading them costs the same whatever the run's
size, and at most one task holds a live finalizer lease."""

from __future__ import annotations

import time
from collections import Counter

from racers import race, race_claims

from docfleet.core.models import RunSpec, UnitState
from docfleet.kernel.planner import plan_units
from docfleet.state import StateStore, open_state_store
from docfleet.state.opcount import OpCounts, instrument

LEASE = 30.0


def planned(store: StateStore, run_id: str, total: int, unit_size: int = 1,
            max_attempts: int = 2) -> RunSpec:
    spec = RunSpec(run_id=run_id, total=total, unit_size=unit_size, pack="bench",
                   max_attempts=max_attempts)
    assert store.create_run(spec, "planner", 1.0).won
    store.put_units(run_id, plan_units(spec))
    assert store.mark_planned(run_id, "planner", 1.0)
    return spec


def assert_exact(store: StateStore, run_id: str) -> None:
    truth = Counter(u.state for u in store.units(run_id))
    assert store.progress(run_id).counts == {s: n for s, n in truth.items() if n}


def test_counters_are_exact_at_rest_after_every_transition(store: StateStore,
                                                             run_id: str) -> None:
    planned(store, run_id, total=20)
    assert store.progress(run_id).counts == {UnitState.PENDING: 20}
    claims = [store.claim_next_unit(run_id, f"w{i}", i * 4, LEASE, 10.0) for i in range(5)]
    assert all(c is not None for c in claims)
    assert_exact(store, run_id)
    done, failing, released, renewed, _abandoned = claims
    assert store.complete_unit(done, "a" * 64, 11.0)
    assert not store.complete_unit(done, "a" * 64, 11.5)  # stale: nothing moves twice
    assert store.fail_unit(failing, "boom", 2, 12.0)  # attempt 1 of 2: back to PENDING
    assert store.release_unit(released, 12.0)
    assert store.renew_lease(renewed, LEASE, 12.0) is not None
    assert_exact(store, run_id)
    # the abandoned and renewed leases run out; a reclaim returns both to the pool
    assert store.reclaim_expired_units(run_id, 2, 100.0) == 2
    assert_exact(store, run_id)
    # a unit failing its last attempt is FAILED; reset and reopen bring units back
    again = store.claim_next_unit(run_id, "w", failing.unit_index, LEASE, 101.0)
    assert again is not None and again.attempts == 2
    assert store.fail_unit(again, "boom", 2, 102.0)
    assert store.progress(run_id)[UnitState.FAILED] == 1
    assert_exact(store, run_id)
    assert store.reset_failed_units(run_id, 103.0) == 1
    assert store.reopen_units(run_id, [done.unit_index], "outputs missing", 104.0) == 1
    assert store.progress(run_id).counts == {UnitState.PENDING: 20}
    assert_exact(store, run_id)
    # the lease watch's reclaim (leases a reader saw go unrenewed) moves the counters too
    held = [store.claim_next_unit(run_id, f"s{i}", 16 + i, LEASE, 105.0) for i in range(2)]
    assert all(h is not None for h in held)
    assert_exact(store, run_id)
    assert store.reclaim_stale_units(run_id, store.running_units(run_id), 5, 106.0) == 2
    assert store.progress(run_id).counts == {UnitState.PENDING: 20}
    assert_exact(store, run_id)


def test_counters_stay_exact_when_processes_race_to_claim(
    store: StateStore, state_uri: str, run_id: str, pool
) -> None:
    planned(store, run_id, total=24)
    taken = race(pool, race_claims, [(state_uri, run_id, f"w{i}", i * 3) for i in range(8)])
    assert sum(len(t) for t in taken) == 24
    assert store.progress(run_id).counts == {UnitState.DONE: 24}
    assert_exact(store, run_id)


def test_one_live_finalizer_lease_at_a_time(store: StateStore, run_id: str) -> None:
    planned(store, run_id, total=2)
    assert store.claim_finalizer(run_id, "a", 10.0, 100.0)
    assert not store.claim_finalizer(run_id, "b", 10.0, 105.0)
    assert store.claim_finalizer(run_id, "a", 10.0, 108.0)  # renewed to 118
    assert not store.claim_finalizer(run_id, "b", 10.0, 117.0)
    assert store.claim_finalizer(run_id, "b", 10.0, 119.0)  # a's lease ran out
    assert not store.claim_finalizer(run_id, "a", 10.0, 120.0)


def _progress_cost(store: StateStore, run_id: str) -> dict[str, float]:
    counts = OpCounts()
    instrument(store, counts)
    store.progress(run_id)
    return counts.totals()


def test_reading_progress_costs_the_same_for_10_and_300_units(
    state_uri: str, run_id: str
) -> None:
    small, large = open_state_store(state_uri), open_state_store(state_uri)
    try:
        planned(small, run_id + "-s", total=10)
        planned(large, run_id + "-l", total=300)
        for store, rid in ((small, run_id + "-s"), (large, run_id + "-l")):
            for i in range(3):
                claim = store.claim_next_unit(rid, "w", i, LEASE, time.time())
                assert claim is not None and store.complete_unit(claim, "b" * 64, time.time())
        cost_small = _progress_cost(small, run_id + "-s")
        cost_large = _progress_cost(large, run_id + "-l")
    finally:
        small.close()
        large.close()
    assert cost_small["requests"] >= 1
    assert cost_large["requests"] == cost_small["requests"]
    assert cost_large["read_units"] == cost_small["read_units"]
    if "sqlite" not in state_uri:  # SQL counts are allowed to walk the index
        assert cost_large["items_read"] == cost_small["items_read"]
