"""The lease watch beside the executor (``docfleet.kernel.rescue``, issue 26 items 2-3):
who looks (a small deterministic set of designated watchers, plus idle tasks only over a
bounded window), how often, and a real reclaim by the watch's own thread on SQLite."""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

import pytest

from docfleet.core.models import RunSpec, UnitState
from docfleet.kernel.planner import plan_units
from docfleet.kernel.rescue import (
    IDLE_WINDOW,
    MAX_WATCH_PERIOD,
    WATCHERS,
    LeaseRescuer,
    designated,
    watch_period,
)
from docfleet.state.sqlite.store import SQLiteStateStore

LOG = logging.getLogger("test.rescue")


@pytest.mark.parametrize("count", [1, 2, 3, 5, 7, 8, 100, 1001, 10_000])
def test_designated_watchers_are_few_deterministic_and_include_task_0(count: int) -> None:
    watchers = [i for i in range(count) if designated(i, count)]
    assert watchers[0] == 0
    assert 1 <= len(watchers) <= WATCHERS
    assert len(watchers) == min(WATCHERS, count)  # indexes 0, s, 2s… (stride s)
    assert watchers == [i for i in range(count) if designated(i, count)]  # no state


def test_the_watch_period_bounds_reclaim_to_lease_plus_eight_seconds() -> None:
    for lease in (3.0, 8.0, 30.0, 300.0):
        period = watch_period(lease)
        assert period <= MAX_WATCH_PERIOD and period <= lease / 3
        assert lease + 2 * period <= lease + 10.0


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def _rescuer(watcher: bool, clock: Clock, store: SQLiteStateStore | None = None,
             lease: float = 30.0) -> LeaseRescuer:
    return LeaseRescuer(store, "r", 3, lease, watcher, LOG,  # type: ignore[arg-type]
                        monotonic=clock)


def test_a_designated_watcher_looks_every_period_busy_or_idle() -> None:
    clock = Clock()
    r = _rescuer(True, clock)
    assert r.due()
    r._looked = clock.t
    clock.t += r.period - 0.01
    assert not r.due()
    clock.t += 0.02
    assert r.due()  # busy: no idle() call was made


def test_another_task_looks_only_idle_and_only_over_a_bounded_window() -> None:
    clock = Clock()
    r = _rescuer(False, clock)
    assert not r.due()  # busy
    r.idle(IDLE_WINDOW + 1)
    assert not r.due()  # too many RUNNING units: its look would read them all
    r.idle(IDLE_WINDOW)
    assert r.due()
    r._looked = clock.t
    clock.t += r.idle_period - 0.01
    assert not r.due()
    clock.t += 0.02
    assert r.due()
    r.busy()
    assert not r.due()


@pytest.mark.timing
def test_the_watch_thread_reclaims_a_dead_tasks_unit_within_lease_plus_two_looks(
        tmp_path: Path) -> None:
    """A real SQLite store; a unit claimed by a 'task' that never renews; the watch's
    thread reclaims it (PENDING again, no clock compared) and calls ``on_reclaim``."""
    lease = 1.5
    store = SQLiteStateStore(tmp_path / "state.db")
    spec = RunSpec(run_id="r", total=2, unit_size=1, pack="bench", max_attempts=3)
    store.create_run(spec, "planner", time.time())
    store.put_units("r", plan_units(spec))
    assert store.mark_planned("r", "planner", time.time())
    dead = store.claim_next_unit("r", "dead", 0, lease, time.time() + 3600)  # fast clock
    assert dead is not None
    woken = threading.Event()
    rescuer = LeaseRescuer(store, "r", 3, lease, True, LOG,
                           on_reclaim=lambda n: woken.set()).start()
    began = time.monotonic()
    try:
        assert woken.wait(30), "the watch never reclaimed the dead unit"
    finally:
        rescuer.stop()
    took = time.monotonic() - began
    # lease + two looks, and a generous allowance for a loaded machine's thread wake-ups
    assert took <= lease + 2 * rescuer.period + 5.0, took
    unit = next(u for u in store.units("r") if u.index == dead.unit_index)
    assert unit.state == UnitState.PENDING and unit.attempts == 1
    assert rescuer.reclaimed == 1 and rescuer.looks >= 2
    assert not store.complete_unit(dead, "s" * 64, time.time())  # fenced
    store.close()
