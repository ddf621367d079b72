"""``list_runs`` and ``delete_run`` (docfleet list / delete), on every state store in
tests/support/backends.py: a run's marker, units, spend and quarantine all go; idempotent; other
runs untouched; the run id is free again."""

from __future__ import annotations

import time

from docfleet.core.models import RunSpec, RunState
from docfleet.kernel.planner import plan_units
from docfleet.state import StateStore


def _planned(store: StateStore, run_id: str, total: int = 6) -> RunSpec:
    spec = RunSpec(run_id=run_id, total=total, unit_size=2, pack="bench")
    now = time.time()
    assert store.create_run(spec, "p", now).won
    store.put_units(run_id, plan_units(spec))
    assert store.mark_planned(run_id, "p", now)
    return spec


def test_list_and_delete_runs(store: StateStore, run_id: str) -> None:
    assert store.list_runs() == []
    _planned(store, f"{run_id}-a")
    _planned(store, f"{run_id}-b", total=4)
    store.add_spend(f"{run_id}-a", "m", 7)
    store.quarantine_providers(f"{run_id}-a", ["openai"])
    assert store.claim_finalizer(f"{run_id}-a", "old", 3600.0, time.time())
    runs = store.list_runs()
    assert [r.run_id for r in runs] == [f"{run_id}-a", f"{run_id}-b"]
    assert runs[0].state == RunState.RUNNING and runs[1].spec.total == 4

    assert store.delete_run(f"{run_id}-a") is True
    assert store.get_run(f"{run_id}-a") is None
    assert store.units(f"{run_id}-a") == []
    assert store.total_spend(f"{run_id}-a") == 0
    assert store.quarantined_providers(f"{run_id}-a") == set()
    assert [r.run_id for r in store.list_runs()] == [f"{run_id}-b"]
    assert len(store.units(f"{run_id}-b")) == 2  # the other run is untouched
    assert store.delete_run(f"{run_id}-a") is False  # idempotent

    other = RunSpec(run_id=f"{run_id}-a", total=3, unit_size=1, pack="bench")
    assert store.create_run(other, "q", time.time()).won  # the id is free again
    # and so is its finalizer lease: the deleted run's holder left nothing behind
    assert store.claim_finalizer(f"{run_id}-a", "new", 30.0, time.time())
