"""The heartbeat against a real SQLite store: a renewal refused because the worker itself
just completed (or failed, or released) the unit is not a lost lease; a renewal refused
because the unit was taken away is one; a task's units renew on one heartbeat thread."""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

from docfleet.core.models import RunSpec
from docfleet.kernel.lease import Heartbeat, LeaseKeeper
from docfleet.kernel.planner import plan_units
from docfleet.state.sqlite.store import SQLiteStateStore


def _store(tmp_path: Path) -> SQLiteStateStore:
    store = SQLiteStateStore(tmp_path / "state.db")
    spec = RunSpec(run_id="r", total=2, unit_size=1, pack="bench")
    store.create_run(spec, "planner", time.time())
    store.put_units("r", plan_units(spec))
    assert store.mark_planned("r", "planner", time.time())
    return store


def test_a_renewal_refused_after_the_workers_own_completion_is_not_a_lost_lease(
    tmp_path: Path, caplog
) -> None:
    """Regression (found by tests/chaos storm): the heartbeat raced the completion and
    logged 'lost the lease … (the unit was reclaimed)' for a unit its worker had just
    completed."""
    store = _store(tmp_path)
    claim = store.claim_next_unit("r", "owner", 0, 30, time.time())
    assert claim is not None
    with caplog.at_level(logging.WARNING), \
            LeaseKeeper(store, claim, 30, 0.02, logging.getLogger("t")) as keeper:
        keeper.ending.set()
        assert store.complete_unit(claim, "sha", time.time())
        time.sleep(0.3)  # renewals keep firing (and being refused) until the keeper stops
        assert not keeper.lost.is_set()
    assert "lost the lease" not in caplog.text


def test_a_renewal_refused_because_the_unit_was_taken_is_a_lost_lease(tmp_path: Path) -> None:
    store = _store(tmp_path)
    claim = store.claim_next_unit("r", "owner", 0, 30, time.time())
    assert claim is not None
    with LeaseKeeper(store, claim, 30, 0.02, logging.getLogger("t")) as keeper:
        assert store.release_unit(claim, time.time())  # as a reclaim would
        assert keeper.lost.wait(5)


def test_the_keeper_counts_its_renewal_writes(tmp_path: Path) -> None:
    """The claim governor sizes a task's next slot by the renewals its last unit took."""
    store = _store(tmp_path)
    claim = store.claim_next_unit("r", "owner", 0, 30, time.time())
    assert claim is not None
    with LeaseKeeper(store, claim, 30, 0.05, logging.getLogger("t")) as keeper:
        deadline = time.monotonic() + 10
        while keeper.renewals < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
    renewed = keeper.renewals
    assert renewed >= 3
    time.sleep(0.2)
    assert keeper.renewals == renewed  # stopped: no renewal after the keeper ends
    stored = next(u for u in store.units("r") if u.index == claim.unit_index)
    assert stored.lease_expires_at > claim.lease_expires_at  # they were real writes


def test_a_tasks_units_share_one_heartbeat_thread(tmp_path: Path) -> None:
    """Unit after unit, the keepers renew on the task's one heartbeat thread (no thread
    started per unit); each keeper's renewals are real writes and end when it stops; a
    keeper that meets the heartbeat busy renews on a thread of its own."""
    store = _store(tmp_path)
    heartbeat = Heartbeat()
    threads: set[int] = set()
    for _ in range(2):
        claim = store.claim_next_unit("r", "owner", 0, 30, time.time())
        assert claim is not None
        with LeaseKeeper(store, claim, 30, 0.02, logging.getLogger("t"), heartbeat) as keeper:
            deadline = time.monotonic() + 10
            while keeper.renewals < 2 and time.monotonic() < deadline:
                time.sleep(0.01)
            threads.add(threading.active_count())
        renewed = keeper.renewals
        assert renewed >= 2
        time.sleep(0.1)
        assert keeper.renewals == renewed  # stopped: no renewal after the keeper ends
        stored = next(u for u in store.units("r") if u.index == claim.unit_index)
        assert stored.lease_expires_at > claim.lease_expires_at
        keeper.ending.set()
        assert store.complete_unit(keeper.claim, "sha", time.time())
    assert len(threads) == 1  # the same threads alive for both units: no thread per unit
    own = heartbeat.thread
    assert own is not None and own.is_alive() and own.name == "lease-keeper"
    heartbeat.close()
    own.join(5)
    assert not own.is_alive()  # close() ends the heartbeat thread
    heartbeat = Heartbeat()

    busy = _store(tmp_path / "busy")
    first, second = (busy.claim_next_unit("r", f"o{i}", i, 30, time.time()) for i in (0, 1))
    assert first is not None and second is not None
    log = logging.getLogger("t")
    with LeaseKeeper(busy, first, 30, 0.02, log, heartbeat) as a, \
            LeaseKeeper(busy, second, 30, 0.02, log, heartbeat) as b:
        deadline = time.monotonic() + 10
        while min(a.renewals, b.renewals) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
    assert min(a.renewals, b.renewals) >= 2  # both renewed, one on its own thread


def test_keepers_in_quick_succession_all_run_on_the_heartbeat_thread(tmp_path: Path) -> None:
    """A keeper's stop() returns only once the heartbeat is free again, so the next
    unit's keeper always finds it free: 50 one-instant units, one renewal thread."""
    store = SQLiteStateStore(tmp_path / "state.db")
    spec = RunSpec(run_id="r", total=50, unit_size=1, pack="bench")
    store.create_run(spec, "planner", time.time())
    store.put_units("r", plan_units(spec))
    assert store.mark_planned("r", "planner", time.time())
    heartbeat = Heartbeat()
    runners = set()
    for _ in range(50):
        claim = store.claim_next_unit("r", "owner", 0, 30, time.time())
        assert claim is not None
        with LeaseKeeper(store, claim, 30, 10, logging.getLogger("t"), heartbeat) as keeper:
            pass
        runners.add(keeper._runner)
    assert len(runners) == 1 and None not in runners
