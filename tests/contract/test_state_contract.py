"""The coordination contract (docs/design.md), run unchanged against every state store in
tests/support/backends.py. Times are passed explicitly, so lease expiry needs no sleeping."""

from __future__ import annotations

import time

import pytest
from racers import race, race_claims, race_create_run, race_spend

from docfleet.core.errors import RunConflictError, RunNotFoundError
from docfleet.core.models import RunSpec, RunState, UnitState
from docfleet.kernel.planner import plan_units
from docfleet.state import StateStore

LEASE = 30.0


def spec_for(run_id: str, total: int = 10, unit_size: int = 2, max_attempts: int = 3) -> RunSpec:
    return RunSpec(run_id=run_id, total=total, unit_size=unit_size, pack="bench",
                   max_attempts=max_attempts)


def planned(store: StateStore, run_id: str, **kw: int) -> RunSpec:
    spec = spec_for(run_id, **kw)
    now = time.time()
    assert store.create_run(spec, "planner", now).won
    store.put_units(run_id, plan_units(spec))
    assert store.mark_planned(run_id, "planner", now)
    return spec


# -- runs and planning --------------------------------------------------------------------
def test_create_run_has_one_winner_and_stores_the_spec(store: StateStore, run_id: str) -> None:
    spec = spec_for(run_id)
    first = store.create_run(spec, "a", 100.0)
    second = store.create_run(spec, "b", 101.0)
    assert first.won and not second.won
    assert second.run.planner == "a" and not second.run.planned
    assert second.run.spec == spec and second.run.fingerprint == spec.fingerprint()
    assert second.run.state == RunState.PENDING


def test_create_run_race_across_processes_has_exactly_one_winner(
    store: StateStore, state_uri: str, run_id: str, pool
) -> None:
    params = spec_for(run_id).parameters()
    results = race(pool, race_create_run, [(state_uri, params, f"p{i}") for i in range(8)])
    assert sorted(results) == [False] * 7 + [True]


def test_a_run_recreated_with_other_parameters_is_refused(store: StateStore, run_id: str) -> None:
    store.create_run(spec_for(run_id, total=10), "a", 1.0)
    with pytest.raises(RunConflictError, match="total"):
        store.create_run(spec_for(run_id, total=11), "b", 2.0)


def test_mark_planned_only_by_the_planner_and_moves_run_to_running(
    store: StateStore, run_id: str
) -> None:
    spec = spec_for(run_id)
    store.create_run(spec, "a", 1.0)
    store.put_units(run_id, plan_units(spec))
    assert not store.mark_planned(run_id, "intruder", 2.0)
    assert store.mark_planned(run_id, "a", 2.0)
    run = store.get_run(run_id)
    assert run is not None and run.planned and run.state == RunState.RUNNING
    assert not store.mark_planned(run_id, "a", 3.0)  # once


def test_a_stale_planner_is_taken_over_exactly_once(store: StateStore, run_id: str) -> None:
    store.create_run(spec_for(run_id), "dead", 100.0)
    assert not store.take_over_plan(run_id, "early", stale_before=99.0, now=120.0)
    assert store.take_over_plan(run_id, "b", stale_before=110.0, now=120.0)
    assert not store.take_over_plan(run_id, "c", stale_before=110.0, now=120.0)
    assert not store.touch_plan(run_id, "dead", 121.0)
    assert store.touch_plan(run_id, "b", 121.0)
    assert not store.mark_planned(run_id, "dead", 122.0)
    assert store.mark_planned(run_id, "b", 122.0)


def test_put_units_is_idempotent(store: StateStore, run_id: str) -> None:
    spec = planned(store, run_id)
    claim = store.claim_next_unit(run_id, "w", 0, LEASE, 10.0)
    assert claim is not None
    store.put_units(run_id, plan_units(spec))  # a planner taking over rewrites the plan
    units = store.units(run_id)
    assert [u.index for u in units] == list(range(5))
    assert units[claim.unit_index].state == UnitState.RUNNING
    assert [(u.start, u.count) for u in units] == [(0, 2), (2, 2), (4, 2), (6, 2), (8, 2)]


def test_uneven_last_unit(store: StateStore, run_id: str) -> None:
    planned(store, run_id, total=7, unit_size=3)
    assert [(u.start, u.count) for u in store.units(run_id)] == [(0, 3), (3, 3), (6, 1)]


def test_set_run_state_respects_expected_states(store: StateStore, run_id: str) -> None:
    planned(store, run_id)
    assert store.set_run_state(run_id, RunState.PAUSED, 5.0, expected=[RunState.RUNNING])
    assert not store.set_run_state(run_id, RunState.COMPLETED, 6.0, expected=[RunState.RUNNING])
    assert store.get_run(run_id).state == RunState.PAUSED
    assert store.set_run_state(run_id, RunState.RUNNING, 7.0)
    with pytest.raises(RunNotFoundError):
        store.set_run_state("no-such-run", RunState.PAUSED, 8.0)
    assert store.get_run("no-such-run") is None


# -- claims -------------------------------------------------------------------------------
def test_claim_stamps_a_lease_and_counts_an_attempt(store: StateStore, run_id: str) -> None:
    planned(store, run_id)
    claim = store.claim_next_unit(run_id, "w1", 0, LEASE, 100.0)
    assert claim is not None
    assert (claim.unit_index, claim.start, claim.count, claim.attempts) == (0, 0, 2, 1)
    assert claim.lease_expires_at == pytest.approx(100.0 + LEASE)
    assert claim.token.startswith("w1")
    unit = store.units(run_id)[0]
    assert unit.state == UnitState.RUNNING and unit.lease_owner == claim.token
    assert unit.worked_by == "w1"


def test_claim_starts_at_the_hint_and_wraps_around(store: StateStore, run_id: str) -> None:
    planned(store, run_id)
    got = [store.claim_next_unit(run_id, "w", 3, LEASE, 1.0) for _ in range(5)]
    indexes = [c.unit_index for c in got if c is not None]
    assert sorted(indexes) == [0, 1, 2, 3, 4]
    assert indexes[0] >= 3  # the scan starts at the hint
    assert store.claim_next_unit(run_id, "w", 3, LEASE, 1.0) is None


def test_claim_on_unknown_or_empty_run_returns_none(store: StateStore, run_id: str) -> None:
    assert store.claim_next_unit(run_id, "w", 0, LEASE, 1.0) is None


def test_tokens_are_unique_per_claim_even_for_the_same_owner(
    store: StateStore, run_id: str
) -> None:
    planned(store, run_id, total=2, unit_size=2)
    first = store.claim_next_unit(run_id, "w", 0, LEASE, 1.0)
    assert store.release_unit(first, 2.0)
    second = store.claim_next_unit(run_id, "w", 0, LEASE, 3.0)
    assert second.unit_index == first.unit_index and second.token != first.token
    assert not store.complete_unit(first, "x" * 64, 4.0)  # the old claim is stale
    assert store.complete_unit(second, "x" * 64, 4.0)


def test_concurrent_claims_across_processes_take_each_unit_once(
    store: StateStore, state_uri: str, run_id: str, pool
) -> None:
    planned(store, run_id, total=200, unit_size=1)
    results = race(pool, race_claims,
                   [(state_uri, run_id, f"w{i}", i * 200 // 6) for i in range(6)])
    taken = [t for r in results for t in r]
    units = [int(t.split("|")[0]) for t in taken]
    assert sorted(units) == list(range(200)), "every unit claimed exactly once"
    assert len({t.split("|")[1] for t in taken}) == 200, "one token per claim"
    assert store.progress(run_id)[UnitState.DONE] == 200


# -- fencing ------------------------------------------------------------------------------
def test_renew_extends_a_live_lease_and_is_fenced(store: StateStore, run_id: str) -> None:
    planned(store, run_id)
    claim = store.claim_next_unit(run_id, "w", 0, LEASE, 100.0)
    renewed = store.renew_lease(claim, LEASE, 110.0)
    assert renewed is not None and renewed.token == claim.token
    assert renewed.lease_expires_at == pytest.approx(110.0 + LEASE)
    forged = type(claim)(**{**claim.__dict__, "token": claim.token + "-forged"})
    assert store.renew_lease(forged, LEASE, 111.0) is None


def test_a_reclaimed_workers_writes_are_all_refused(store: StateStore, run_id: str) -> None:
    planned(store, run_id, total=2, unit_size=2)
    stale = store.claim_next_unit(run_id, "slow", 0, 10.0, 100.0)
    assert store.reclaim_expired_units(run_id, 3, now=111.0) == 1
    fresh = store.claim_next_unit(run_id, "fast", 0, LEASE, 112.0)
    assert fresh is not None and fresh.unit_index == stale.unit_index
    assert store.renew_lease(stale, LEASE, 113.0) is None
    assert not store.complete_unit(stale, "s" * 64, 113.0)
    assert not store.fail_unit(stale, "boom", 3, 113.0)
    assert not store.release_unit(stale, 113.0)
    assert store.complete_unit(fresh, "f" * 64, 114.0)
    unit = store.units(run_id)[0]
    assert unit.state == UnitState.DONE and unit.part_sha256 == "f" * 64
    assert not store.complete_unit(fresh, "f" * 64, 115.0)  # completion happens once


def test_release_returns_the_unit_at_once_without_counting_an_attempt(
    store: StateStore, run_id: str
) -> None:
    planned(store, run_id, total=2, unit_size=2)
    claim = store.claim_next_unit(run_id, "w", 0, LEASE, 1.0)
    assert store.release_unit(claim, 2.0)
    unit = store.units(run_id)[0]
    assert unit.state == UnitState.PENDING and unit.attempts == 0 and unit.lease_owner is None
    again = store.claim_next_unit(run_id, "peer", 0, LEASE, 2.5)
    assert again is not None and again.attempts == 1


# -- attempts, reclaim, failure -----------------------------------------------------------
def test_reclaim_only_touches_expired_leases(store: StateStore, run_id: str) -> None:
    planned(store, run_id, total=4, unit_size=2)
    store.claim_next_unit(run_id, "short", 0, 10.0, 100.0)
    store.claim_next_unit(run_id, "long", 0, 100.0, 100.0)
    assert store.reclaim_expired_units(run_id, 3, now=105.0) == 0
    assert store.reclaim_expired_units(run_id, 3, now=111.0) == 1
    states = [u.state for u in store.units(run_id)]
    assert states == [UnitState.PENDING, UnitState.RUNNING]


def test_a_unit_reclaimed_too_often_fails_for_good(store: StateStore, run_id: str) -> None:
    planned(store, run_id, total=1, unit_size=1, max_attempts=2)
    t = 100.0
    for _ in range(2):
        assert store.claim_next_unit(run_id, "crashy", 0, 10.0, t) is not None
        t += 20.0
        assert store.reclaim_expired_units(run_id, 2, now=t) == 1
    unit = store.units(run_id)[0]
    assert unit.state == UnitState.FAILED
    assert "lease expired" in (unit.last_error or "")
    assert store.claim_next_unit(run_id, "w", 0, LEASE, t) is None


def test_fail_unit_retries_then_fails_for_good_with_its_last_error(
    store: StateStore, run_id: str
) -> None:
    planned(store, run_id, total=1, unit_size=1, max_attempts=2)
    first = store.claim_next_unit(run_id, "w", 0, LEASE, 1.0)
    assert store.fail_unit(first, "boom 1", 2, 2.0)
    assert store.units(run_id)[0].state == UnitState.PENDING
    second = store.claim_next_unit(run_id, "w", 0, LEASE, 3.0)
    assert second.attempts == 2
    assert store.fail_unit(second, "boom 2", 2, 4.0)
    unit = store.units(run_id)[0]
    assert unit.state == UnitState.FAILED and unit.last_error == "boom 2"
    progress = store.progress(run_id)
    assert progress[UnitState.FAILED] == 1 and progress.drained and not progress.done


def test_reset_failed_units_returns_them_to_the_pool(store: StateStore, run_id: str) -> None:
    planned(store, run_id, total=1, unit_size=1, max_attempts=1)
    claim = store.claim_next_unit(run_id, "w", 0, LEASE, 1.0)
    store.fail_unit(claim, "poison", 1, 2.0)
    assert store.reset_failed_units(run_id, 3.0) == 1
    unit = store.units(run_id)[0]
    assert unit.state == UnitState.PENDING and unit.attempts == 0
    assert store.claim_next_unit(run_id, "w", 0, LEASE, 4.0) is not None


def test_reopen_units_puts_done_units_back(store: StateStore, run_id: str) -> None:
    planned(store, run_id, total=4, unit_size=2)
    for _ in range(2):
        claim = store.claim_next_unit(run_id, "w", 0, LEASE, 1.0)
        store.complete_unit(claim, "a" * 64, 2.0)
    assert store.reopen_units(run_id, [1], "shard deleted", 3.0) == 1
    units = store.units(run_id)
    assert [u.state for u in units] == [UnitState.DONE, UnitState.PENDING]
    assert units[1].part_sha256 is None


def test_progress_counts_units_by_state(store: StateStore, run_id: str) -> None:
    planned(store, run_id)
    c = store.claim_next_unit(run_id, "w", 0, LEASE, 1.0)
    store.complete_unit(c, "a" * 64, 2.0)
    store.claim_next_unit(run_id, "w", 0, LEASE, 3.0)
    p = store.progress(run_id)
    assert p.as_dict() == {"PENDING": 3, "RUNNING": 1, "DONE": 1, "FAILED": 0}
    assert p.total == 5 and not p.drained


# -- spend and quarantine -----------------------------------------------------------------
def test_spend_rollup_is_exact_per_model_and_in_total(store: StateStore, run_id: str) -> None:
    planned(store, run_id)
    store.add_spend(run_id, "model-a", 1_500_000_001)
    store.add_spend(run_id, "model-b", 7)
    store.add_spend(run_id, "model-a", 2)
    assert store.spend_by_model(run_id) == {"model-a": 1_500_000_003, "model-b": 7}
    assert store.total_spend(run_id) == 1_500_000_010
    assert store.total_spend("other-run") == 0


def test_spend_from_many_processes_adds_up_exactly(
    store: StateStore, state_uri: str, run_id: str, pool
) -> None:
    planned(store, run_id)
    race(pool, race_spend, [(state_uri, run_id, f"m{i % 2}", 10, 1_000 + i) for i in range(4)])
    assert store.total_spend(run_id) == sum(10 * (1_000 + i) for i in range(4))
    assert store.spend_by_model(run_id) == {"m0": 10 * 1000 + 10 * 1002,
                                            "m1": 10 * 1001 + 10 * 1003}


def test_quarantine_set_is_idempotent_and_per_run(store: StateStore, run_id: str) -> None:
    planned(store, run_id)
    store.quarantine_providers(run_id, ["openai/x"])
    store.quarantine_providers(run_id, ["openai/x", "anthropic/y"])
    assert store.quarantined_providers(run_id) == {"openai/x", "anthropic/y"}
    assert store.quarantined_providers("other-run") == set()
