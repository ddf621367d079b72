"""Plan takeover whatever the planner's clock: a planner whose clock runs an hour fast and
dies mid-plan leaves a heartbeat in every honest reader's future; a waiting peer must
still take the plan over about one lease later (it watches the heartbeat value stand
still on its own monotonic clock), on every state store. Real processes, real SIGKILL."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from docfleet.core.models import Run, RunSpec, RunState
from docfleet.kernel import planner as planner_mod
from docfleet.kernel.planner import QuietPlanner
from docfleet.state import open_state_store
from support.fleet import events, named, start_worker, wait_for_event, worker_env


def _run(planner: str, heartbeat: float) -> Run:
    return Run(spec=RunSpec(run_id="r", total=4, unit_size=1, pack="bench"), fingerprint="f",
               state=RunState.PENDING, planned=False, planner=planner,
               plan_heartbeat=heartbeat, created_at=0.0, updated_at=0.0)


def test_a_heartbeat_in_the_future_goes_stale_once_it_stands_still(
        monkeypatch: pytest.MonkeyPatch) -> None:
    tick = [100.0]
    monkeypatch.setattr(planner_mod.time, "monotonic", lambda: tick[0])
    quiet = QuietPlanner(stale_seconds=5.0)
    future = 1_000_000.0 + 3600
    assert quiet.stale_before(_run("p", future), 1_000_000.0) is None  # first sight
    tick[0] += 4.9
    assert quiet.stale_before(_run("p", future), 1_000_004.9) is None
    tick[0] += 0.2  # unmoved for 5.1 s of this task's clock: stale, CAS on the value seen
    stale = quiet.stale_before(_run("p", future), 1_000_005.1)
    assert stale is not None and future < stale < future + 0.01


def test_a_moving_heartbeat_keeps_its_planner_and_an_old_one_is_stale_at_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    tick = [0.0]
    monkeypatch.setattr(planner_mod.time, "monotonic", lambda: tick[0])
    quiet = QuietPlanner(stale_seconds=5.0)
    for step in range(10):  # the planner touches every 2 s, far in the future: live
        tick[0] += 2.0
        assert quiet.stale_before(_run("p", 9e9 + step), 100.0 + tick[0]) is None
    # a new planner resets the watch
    assert quiet.stale_before(_run("q", 9e9 + 9), 200.0) is None
    # a heartbeat older than the lease by this clock (or 0: a hand-over) is stale now
    assert QuietPlanner(5.0).stale_before(_run("p", 0.0), 1000.0) == 995.0
    assert QuietPlanner(5.0).stale_before(_run("p", 990.0), 1000.0) == 995.0


def test_a_fast_clock_planner_killed_mid_plan_is_taken_over_within_a_lease(
        state_uri: str, tmp_path: Path) -> None:
    out = f"file://{tmp_path}/out"
    lease = 3
    env = worker_env(state_uri, out, "skewplan", 100_000, unit_size=1, LEASE_SECONDS=lease)
    # small batches keep the planner mid-plan; its clock is an hour fast
    planner = start_worker({**env, "DOCFLEET_FAULT_PLAN_BATCH": "5",
                            "DOCFLEET_FAULT_CLOCK_SKEW_SECONDS": "3600"},
                           tmp_path / "planner.log")
    wait_for_event(tmp_path / "planner.log", "plan.won", timeout=120)
    time.sleep(0.5)  # a few batches and heartbeats land
    planner.send_signal(signal.SIGKILL)
    planner.wait(10)
    store = open_state_store(state_uri)
    seen = store.get_run("skewplan")
    assert seen is not None and not seen.planned
    if state_uri.startswith("postgresql"):  # one database clock: no future heartbeat
        assert seen.plan_heartbeat < time.time() + 60
    else:  # the dead planner's heartbeat lies an hour in this reader's future
        assert seen.plan_heartbeat > time.time() + 3000
    store.close()
    peer = start_worker(env, tmp_path / "peer.log")
    began = time.monotonic()
    try:
        wait_for_event(tmp_path / "peer.log", "plan.takeover", timeout=60)
        took = time.monotonic() - began
    finally:
        peer.send_signal(signal.SIGTERM)
        peer.wait(60)
    # one lease of standing still, plus start-up; an hour before this fix
    assert took < 60
    assert named(events(tmp_path / "peer.log"), "plan.wait")
