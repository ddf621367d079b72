"""``complete_and_claim_units`` (docfleet.state.optional.CompletesAndClaimsUnits), run
against every state store: PostgreSQL's own single statement, and the default (one
``complete_unit`` per completion, then ``claim_next_unit`` per claim) on the others.
Completions first: claims are made only when every completion applied."""

from __future__ import annotations

import pytest
from racers import race_batches
from test_complete_and_claim_contract import drained_by_racers, planned

from docfleet.core.models import UnitState
from docfleet.state import StateStore
from docfleet.state.optional import complete_and_claim_units, start_unit

LEASE = 30.0


def test_a_batch_claims_up_to_want_units_from_the_hint(store: StateStore, run_id: str) -> None:
    planned(store, run_id, 6)
    applied, claims = complete_and_claim_units(store, run_id, [], "w", 2, 3, LEASE, 100.0)
    assert applied == []
    assert [c.unit_index for c in claims] == [2, 3, 4]
    assert len({c.token for c in claims}) == 3 and all(c.token.startswith("w") for c in claims)
    # an attempt is spent when work starts (start_unit), never by being claimed ahead
    started = [start_unit(store, c, 100.5)[1] for c in claims]
    assert all(c is not None and c.attempts == 1 and c.charged for c in started)
    assert all(u.attempts == 1 for u in store.units(run_id) if u.index in (2, 3, 4))
    assert all(c.lease_expires_at == pytest.approx(100.0 + LEASE) for c in claims)
    units = {u.index: u for u in store.units(run_id)}
    for c in claims:
        assert units[c.unit_index].state == UnitState.RUNNING
        assert units[c.unit_index].lease_owner == c.token
        assert units[c.unit_index].worked_by == "w"
    assert [units[i].state for i in (0, 1, 5)] == [UnitState.PENDING] * 3
    # each claim of a batch is a claim like any other: renewable, completable
    assert store.renew_lease(claims[0], LEASE, 101.0) is not None


def test_it_completes_the_batch_and_claims_the_next_never_a_completed_unit(
    store: StateStore, run_id: str
) -> None:
    planned(store, run_id, 5)
    _, first = complete_and_claim_units(store, run_id, [], "w", 0, 2, LEASE, 100.0)
    applied, nxt = complete_and_claim_units(
        store, run_id, [(first[0], "a" * 64), (first[1], "b" * 64)], "w", 0, 4, LEASE, 101.0)
    assert applied == [True, True]
    assert sorted(c.unit_index for c in nxt) == [2, 3, 4], "wraps past the completed ones"
    units = store.units(run_id)
    assert [(u.state, u.part_sha256) for u in units[:2]] == [
        (UnitState.DONE, "a" * 64), (UnitState.DONE, "b" * 64)]
    assert all(u.state == UnitState.RUNNING for u in units[2:])
    # the pool is empty: completing the last three claims nothing; each completes once
    done = [(c, "c" * 64) for c in nxt]
    assert complete_and_claim_units(store, run_id, done, "w", 0, 4, LEASE, 102.0) == (
        [True] * 3, [])
    assert store.progress(run_id)[UnitState.DONE] == 5
    assert complete_and_claim_units(store, run_id, done[:1], "w", 0, 4, LEASE, 103.0) == (
        [False], [])


def test_a_fenced_completion_claims_nothing_and_the_others_still_complete(
    store: StateStore, run_id: str
) -> None:
    planned(store, run_id, 4)
    _, (stale, kept) = complete_and_claim_units(store, run_id, [], "slow", 0, 2, 10.0, 100.0)
    assert store.renew_lease(kept, 60.0, 105.0) is not None  # only the other one lapses
    assert store.reclaim_expired_units(run_id, 3, now=111.0) == 1
    fresh = store.claim_next_unit(run_id, "fast", 0, LEASE, 112.0)
    assert fresh is not None and fresh.unit_index == stale.unit_index
    applied, claims = complete_and_claim_units(
        store, run_id, [(stale, "s" * 64), (kept, "k" * 64)], "slow", 0, 2, LEASE, 113.0)
    assert (applied, claims) == ([False, True], [])
    units = store.units(run_id)
    assert units[stale.unit_index].lease_owner == fresh.token
    assert units[kept.unit_index].state == UnitState.DONE
    assert [u.state for u in units[2:]] == [UnitState.PENDING] * 2, "nothing was claimed"


def test_want_zero_only_completes(store: StateStore, run_id: str) -> None:
    planned(store, run_id, 3)
    _, claims = complete_and_claim_units(store, run_id, [], "w", 0, 1, LEASE, 100.0)
    assert complete_and_claim_units(
        store, run_id, [(claims[0], "a" * 64)], "w", 0, 0, LEASE, 101.0) == ([True], [])
    assert store.progress(run_id)[UnitState.PENDING] == 2


def test_processes_draining_in_batches_take_each_unit_once(
    store: StateStore, state_uri: str, run_id: str, pool
) -> None:
    drained_by_racers(store, state_uri, run_id, pool, race_batches)
