"""The lease-watch primitives (issue 12, item 6), on every state store: ``running_units``
lists RUNNING units with the lease as stored, and ``reclaim_stale_units`` moves a unit
only if it still holds the very lease that was observed — no clock is compared, so a
writer's skewed clock neither strands nor exposes a lease."""

from __future__ import annotations

import pytest

from docfleet.core.models import RunSpec, UnitState
from docfleet.kernel.lease import LeaseWatch
from docfleet.kernel.planner import plan_units
from docfleet.state import StateStore


def planned(store: StateStore, run_id: str, total: int, max_attempts: int = 3) -> None:
    spec = RunSpec(run_id, total, 1, "bench", max_attempts=max_attempts)
    assert store.create_run(spec, "p", 1.0).won
    store.put_units(run_id, plan_units(spec))
    assert store.mark_planned(run_id, "p", 1.0)


def test_running_units_lists_leases_as_stored(store: StateStore, run_id: str) -> None:
    planned(store, run_id, 3)
    a = store.claim_next_unit(run_id, "a", 0, 30.0, 100.0)
    b = store.claim_next_unit(run_id, "b", 0, 30.0, 3700.0)  # a clock an hour fast
    running = {u.index: u for u in store.running_units(run_id)}
    assert set(running) == {a.unit_index, b.unit_index}
    assert running[b.unit_index].lease_expires_at == pytest.approx(3730.0)
    assert all(u.state == UnitState.RUNNING for u in running.values())


def test_a_renewed_lease_is_never_reclaimed_as_stale(store: StateStore, run_id: str) -> None:
    planned(store, run_id, 1)
    claim = store.claim_next_unit(run_id, "w", 0, 30.0, 100.0)
    seen = store.running_units(run_id)
    assert store.renew_lease(claim, 30.0, 110.0) is not None  # renewed after the look
    assert store.reclaim_stale_units(run_id, seen, 3, 200.0) == 0
    assert store.units(run_id)[0].state == UnitState.RUNNING


def test_an_unrenewed_lease_is_reclaimed_whatever_its_expiry_says(
    store: StateStore, run_id: str
) -> None:
    """A dead task at +3600 s: its stored expiry is an hour ahead of everyone, yet the
    watcher that saw it unchanged for a lease reclaims it; its token is fenced after."""
    planned(store, run_id, 1, max_attempts=3)
    dead = store.claim_next_unit(run_id, "fast", 0, 30.0, 3700.0)
    ticks = iter([0.0, 31.0])
    watch = LeaseWatch(30.0, monotonic=lambda: next(ticks))
    assert watch.observe(store.running_units(run_id)) == []
    stale = watch.observe(store.running_units(run_id))
    assert [u.index for u in stale] == [dead.unit_index]
    assert store.reclaim_stale_units(run_id, stale, 3, 131.0) == 1
    unit = store.units(run_id)[0]
    assert unit.state == UnitState.PENDING and unit.lease_owner is None
    assert not store.complete_unit(dead, "s" * 64, 3800.0)
    assert store.reclaim_stale_units(run_id, stale, 3, 132.0) == 0  # idempotent


def test_a_stale_unit_on_its_last_attempt_fails_for_good(store: StateStore, run_id: str) -> None:
    planned(store, run_id, 1, max_attempts=1)
    store.claim_next_unit(run_id, "w", 0, 30.0, 100.0)
    assert store.reclaim_stale_units(run_id, store.running_units(run_id), 1, 200.0) == 1
    unit = store.units(run_id)[0]
    assert unit.state == UnitState.FAILED and "lease expired after 1" in unit.last_error
