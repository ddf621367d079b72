"""The fleet write-rate governor with real processes on the Firestore emulator: a fleet
under a tiny ramp (``?ramp=10``: 10 writes/s) keeps its measured write rate under it and
still completes the run; the same fleet with ``?ramp=off`` writes faster than that (so
the measurement can see an overshoot); a planner under a ramp paces its batches. Writes
are counted from the tasks' own JSON logs: a claim and a completion are two writes each
(the unit document and its counter shard), a lease renewal one."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from docfleet.state import open_state_store
from support import emulators
from support.fleet import all_events, named, start_fleet, wait_all, worker_env

pytestmark = [pytest.mark.fleet, pytest.mark.timing]

TASKS, UNITS, RAMP = 4, 24, 10.0
#: One document of 1.2 s per unit, renewed every 0.5 s: 2 renewals, 6 writes a unit.
SETTINGS = {"unit_size": 1, "lease_seconds": 3, "heartbeat_seconds": 0.5,
            "log_level": "DEBUG", "DOCFLEET_BENCH_DOC_MS": 1200}
WRITES = {"unit.claim": 2, "lease.renew": 1, "unit.done": 2}


def _when(event: dict) -> float:
    return datetime.strptime(event["time"], "%Y-%m-%dT%H:%M:%S.%fZ").timestamp()


def fleet_writes(firestore_emulator: emulators.Emulator, tmp_path: Path, run_id: str,
                 ramp: str) -> tuple[list[float], list[dict]]:
    """Run the fleet to the end; the time of every unit write it made, and its events."""
    state = emulators.firestore_uri(firestore_emulator, f"{run_id}-") + f"&ramp={ramp}"
    out = f"file://{tmp_path / 'out'}"
    logs = tmp_path / "logs"
    env = worker_env(state, out, run_id, UNITS, **SETTINGS)
    codes = wait_all(start_fleet(env, TASKS, logs), timeout=300)
    evts = all_events(logs)
    assert codes == [0] * TASKS, [e.get("message") for e in evts
                                   if e.get("severity") == "ERROR"]
    store = open_state_store(state)
    try:
        assert store.get_run(run_id).state.value == "COMPLETED"
    finally:
        store.close()
    writes = sorted(_when(e) for name, n in WRITES.items() for e in named(evts, name)
                    for _ in range(n))
    return writes, evts


def test_a_fleet_under_a_tiny_ramp_keeps_its_writes_under_it_and_completes(
        firestore_emulator: emulators.Emulator, tmp_path: Path, run_id: str) -> None:
    writes, evts = fleet_writes(firestore_emulator, tmp_path / "ramp", run_id, f"{RAMP:g}")
    assert len(named(evts, "ramp.governor")) == TASKS  # every task governs itself
    assert len(named(evts, "unit.done")) == UNITS
    span = writes[-1] - writes[0]
    assert len(writes) / span <= RAMP, (len(writes), span)  # the whole run, on average
    # any window: the ramp's share plus at most one unit's writes per task (a task's
    # slot may start just inside the window: the governor spaces claims, not writes)
    per_unit = len(writes) / UNITS
    width = 6.0
    for i, start in enumerate(writes):
        inside = sum(1 for w in writes[i:] if w < start + width)
        assert inside <= RAMP * width + TASKS * per_unit, (start - writes[0], inside)


def test_the_same_fleet_with_the_ramp_off_writes_faster_than_the_ramp(
        firestore_emulator: emulators.Emulator, tmp_path: Path, run_id: str) -> None:
    writes, evts = fleet_writes(firestore_emulator, tmp_path / "off", run_id, "off")
    assert not named(evts, "ramp.governor")
    assert len(writes) / (writes[-1] - writes[0]) > RAMP * 1.3


def test_a_planner_under_a_ramp_paces_its_batches_and_the_run_completes(
        firestore_emulator: emulators.Emulator, tmp_path: Path, run_id: str) -> None:
    """60 units in batches of 40 under ?ramp=10: after its first batch the planner waits
    40 / 9 s (90% of 10 writes/s), longer than the 3 s lease, heartbeating as it waits,
    so the waiting peer never takes the plan over; then the run completes."""
    state = emulators.firestore_uri(firestore_emulator, f"{run_id}-") + "&ramp=10"
    logs = tmp_path / "logs"
    env = worker_env(state, f"file://{tmp_path / 'out'}", run_id, 60, unit_size=1,
                     lease_seconds=3, DOCFLEET_FAULT_PLAN_BATCH=40)
    codes = wait_all(start_fleet(env, 2, logs), timeout=300)
    evts = all_events(logs)
    assert codes == [0, 0], [e.get("message") for e in evts if e.get("severity") == "ERROR"]
    won, landed = named(evts, "plan.won"), named(evts, "plan.landed")
    assert len(won) == 1 and len(landed) == 1 and not named(evts, "plan.takeover")
    assert _when(landed[0]) - _when(won[0]) >= 40 / 9 - 0.1
    assert len(named(evts, "unit.done")) == 60
