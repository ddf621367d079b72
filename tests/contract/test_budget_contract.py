"""The fleet-budget contract (docs/design.md point 7): reserve → call → settle, on every state
store in tests/support/backends.py. The cap is never passed by spent + reserved."""

from __future__ import annotations

from budget_racers import race_reserve
from racers import race

from docfleet.state import StateStore
from docfleet.state.base import BudgetState


def test_unknown_run_has_an_empty_ledger(store: StateStore, run_id: str) -> None:
    assert store.budget_state(run_id) == BudgetState(0, 0, 0)


def test_reserve_fits_up_to_the_cap_exactly_and_refuses_past_it(
    store: StateStore, run_id: str
) -> None:
    assert store.reserve_budget(run_id, "a", 600, 1000, 1e12)
    assert not store.reserve_budget(run_id, "b", 401, 1000, 1e12)
    assert store.reserve_budget(run_id, "b", 400, 1000, 1e12)  # spent+reserved == cap is ok
    assert not store.reserve_budget(run_id, "c", 1, 1000, 1e12)
    assert store.budget_state(run_id) == BudgetState(0, 1000, 2)


def test_reserve_is_idempotent_per_reservation_id(store: StateStore, run_id: str) -> None:
    assert store.reserve_budget(run_id, "a", 300, 1000, 1e12)
    assert store.reserve_budget(run_id, "a", 300, 1000, 1e12)
    assert store.budget_state(run_id) == BudgetState(0, 300, 1)


def test_settle_releases_the_difference_and_adds_spend_per_model(
    store: StateStore, run_id: str
) -> None:
    assert store.reserve_budget(run_id, "a", 500, 1000, 1e12)
    assert store.settle_reservation(run_id, "a", {"m1": 120, "m2": 30})
    assert store.budget_state(run_id) == BudgetState(150, 0, 0)
    assert store.total_spend(run_id) == 150
    assert store.spend_by_model(run_id) == {"m1": 120, "m2": 30}
    # the released 350 is available again, the spent 150 is not
    assert store.reserve_budget(run_id, "b", 850, 1000, 1e12)
    assert not store.reserve_budget(run_id, "c", 1, 1000, 1e12)


def test_settled_spend_counts_against_the_cap_with_add_spend(
    store: StateStore, run_id: str
) -> None:
    store.add_spend(run_id, "m1", 900)
    assert not store.reserve_budget(run_id, "a", 101, 1000, 1e12)
    assert store.reserve_budget(run_id, "a", 100, 1000, 1e12)


def test_settling_a_released_reservation_still_records_the_spend(
    store: StateStore, run_id: str
) -> None:
    assert store.reserve_budget(run_id, "a", 500, 1000, 100.0)
    assert store.release_expired_reservations(run_id, 200.0) == 1
    assert not store.settle_reservation(run_id, "a", {"m1": 70})
    assert store.budget_state(run_id) == BudgetState(70, 0, 0)
    assert store.spend_by_model(run_id) == {"m1": 70}


def test_only_expired_reservations_are_released(store: StateStore, run_id: str) -> None:
    assert store.reserve_budget(run_id, "old", 400, 1000, 100.0)
    assert store.reserve_budget(run_id, "new", 400, 1000, 300.0)
    assert not store.reserve_budget(run_id, "x", 400, 1000, 1e12)
    assert store.release_expired_reservations(run_id, 200.0) == 1
    assert store.release_expired_reservations(run_id, 200.0) == 0
    assert store.budget_state(run_id) == BudgetState(0, 400, 1)
    assert store.reserve_budget(run_id, "x", 400, 1000, 1e12)


def test_budgets_of_two_runs_are_separate(store: StateStore, run_id: str) -> None:
    assert store.reserve_budget(run_id, "a", 1000, 1000, 1e12)
    assert store.reserve_budget(run_id + "-other", "a", 1000, 1000, 1e12)
    store.settle_reservation(run_id + "-other", "a", {"m": 10})
    assert store.budget_state(run_id) == BudgetState(0, 1000, 1)
    assert store.budget_state(run_id + "-other") == BudgetState(10, 0, 0)


def test_concurrent_reservations_across_processes_never_pass_the_cap(
    store: StateStore, state_uri: str, run_id: str, pool
) -> None:
    nano, cap = 10, 400  # 40 fit; 6 processes try 12 each = 72
    granted = race(pool, race_reserve,
                   [(state_uri, run_id, f"p{i}", 12, nano, cap) for i in range(6)])
    state = store.budget_state(run_id)
    assert sum(granted) * nano == state.spent_nano + state.reserved_nano
    assert state.spent_nano + state.reserved_nano <= cap
    assert sum(granted) == cap // nano  # the cap is used, not just respected
    assert store.total_spend(run_id) == state.spent_nano
