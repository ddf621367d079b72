"""Real multi-process fleets on the embedded default (one SQLite file, file:// outputs),
with real signals: the coordination contract as a user's processes live it."""

from __future__ import annotations

import json
import signal
import time
from collections import Counter
from pathlib import Path

import pytest

from docfleet.core.models import UnitState
from docfleet.state import open_state_store
from support.fleet import (
    all_events,
    cli,
    events,
    named,
    start_fleet,
    start_worker,
    wait_all,
    wait_for_event,
    worker_env,
)

pytestmark = pytest.mark.fleet


@pytest.fixture
def uris(tmp_path: Path) -> tuple[str, str]:
    return f"sqlite:///{tmp_path / 'state.db'}", f"file://{tmp_path / 'out'}"


def assert_complete(state: str, out: str, run_id: str, units: int) -> None:
    store = open_state_store(state)
    progress = store.progress(run_id)
    assert progress[UnitState.DONE] == units == progress.total
    assert store.get_run(run_id).state.value == "COMPLETED"
    verified = cli("verify", run_id, "--out", out)
    assert verified.returncode == 0, verified.stderr
    root = json.loads(Path(out.removeprefix("file://"), run_id, "manifest.json").read_text())
    assert root["units"] == units and len(root["parts"]) == units


def test_cold_start_of_8_processes_plans_once_and_completes_each_unit_once(
    uris: tuple[str, str], run_id: str, tmp_path: Path
) -> None:
    state, out = uris
    env = worker_env(state, out, run_id, 400, unit_size=10, BENCH_DOC_MS=2)
    procs = start_fleet(env, 8, tmp_path / "logs")
    assert wait_all(procs, 120) == [0] * 8
    evts = all_events(tmp_path / "logs")
    assert len(named(evts, "plan.won")) == 1, "exactly one planner"
    waiting = named(evts, "plan.resumed") + named(evts, "plan.wait")
    assert len(waiting) == 7
    done = named(evts, "unit.done")
    assert sorted(e["unit"] for e in done) == list(range(40)), "every unit completed once"
    claims = [e["token"] for e in named(evts, "unit.claim")]
    assert len(claims) == len(set(claims)) == 40
    assert len(named(evts, "manifest.root")) == 1, "root written once"
    assert_complete(state, out, run_id, 40)


def test_a_sigkilled_workers_unit_is_reclaimed_and_the_run_completes(
    uris: tuple[str, str], run_id: str, tmp_path: Path
) -> None:
    state, out = uris
    env = worker_env(state, out, run_id, 60, unit_size=10, BENCH_DOC_MS=40, LEASE_SECONDS=2,
                     LINGER_SECONDS=8)
    logs = tmp_path / "logs"
    victim = start_worker({**env, "DOCFLEET_TASK_COUNT": "3"}, logs / "victim.log")
    claim = wait_for_event(logs / "victim.log", "unit.claim")
    peers = start_fleet(env, 2, logs, DOCFLEET_TASK_INDEX="1", DOCFLEET_TASK_COUNT="3")
    victim.send_signal(signal.SIGKILL)
    assert victim.wait(10) == -signal.SIGKILL
    assert wait_all(peers, 90) == [0, 0]
    evts = all_events(logs)
    reclaimed_by_peer = [e for e in named(evts, "unit.claim") if e["unit"] == claim["unit"]
                         and e["token"] != claim["token"]]
    assert reclaimed_by_peer, "a peer took over the killed worker's unit"
    unit = open_state_store(state).units(run_id)[claim["unit"]]
    assert unit.attempts == 2 and unit.state == UnitState.DONE
    assert_complete(state, out, run_id, 6)


def test_sigterm_releases_the_unit_at_once_for_a_peer(
    uris: tuple[str, str], run_id: str, tmp_path: Path
) -> None:
    state, out = uris
    env = worker_env(state, out, run_id, 40, unit_size=40, BENCH_DOC_MS=100, LEASE_SECONDS=60)
    first = start_worker(env, tmp_path / "first.log")
    claim = wait_for_event(tmp_path / "first.log", "unit.claim")
    sent = time.monotonic()
    first.send_signal(signal.SIGTERM)
    assert first.wait(10) == 143
    assert time.monotonic() - sent < 5
    assert named(events(tmp_path / "first.log"), "lease.release")
    unit = open_state_store(state).units(run_id)[0]
    assert unit.state == UnitState.PENDING and unit.attempts == 0
    # the lease was 60 s: a peer only gets the unit now because it was released
    peer = start_worker(env, tmp_path / "peer.log")
    taken = wait_for_event(tmp_path / "peer.log", "unit.claim", timeout=10)
    assert taken["unit"] == claim["unit"]
    assert peer.wait(60) == 0
    assert_complete(state, out, run_id, 1)


def test_a_paused_stale_worker_is_fenced_and_its_peer_completes_the_unit(
    uris: tuple[str, str], run_id: str, tmp_path: Path
) -> None:
    state, out = uris
    env = worker_env(state, out, run_id, 10, unit_size=10, BENCH_DOC_MS=150, LEASE_SECONDS=1.5,
                     LINGER_SECONDS=6)  # the peer reclaims once it saw a lease go unrenewed
    stale = start_worker(env, tmp_path / "stale.log")
    claim = wait_for_event(tmp_path / "stale.log", "unit.claim")
    stale.send_signal(signal.SIGSTOP)  # a paused VM: no heartbeat, the lease runs out
    time.sleep(2.5)
    peer = start_worker(env, tmp_path / "peer.log")
    assert peer.wait(60) == 0
    stale.send_signal(signal.SIGCONT)
    assert stale.wait(60) == 0
    stale_events = events(tmp_path / "stale.log")
    assert named(stale_events, "lease.lost") or named(stale_events, "unit.fenced")
    assert not named(stale_events, "unit.done"), "the stale worker never completed the unit"
    done = named(events(tmp_path / "peer.log"), "unit.done")
    assert [e["unit"] for e in done] == [claim["unit"]]
    assert_complete(state, out, run_id, 1)


def test_a_poison_unit_fails_after_max_attempts_and_resume_completes_the_run(
    uris: tuple[str, str], run_id: str, tmp_path: Path
) -> None:
    state, out = uris
    env = worker_env(state, out, run_id, 50, unit_size=10, MAX_ATTEMPTS=2,
                     BENCH_FAIL_INDEXES="23")
    procs = start_fleet(env, 2, tmp_path / "logs")
    codes = wait_all(procs, 60)
    assert 1 in codes and set(codes) <= {0, 1}
    store = open_state_store(state)
    failed = [u for u in store.units(run_id) if u.state == UnitState.FAILED]
    assert [u.index for u in failed] == [2] and failed[0].attempts == 2
    assert "injected failure at document 23" in failed[0].last_error
    holes = [e for e in all_events(tmp_path / "logs") if e.get("event") == "unit.failed"]
    assert holes and holes[0]["unit"] == 2
    assert store.get_run(run_id).state.value == "FAILED"
    status = json.loads(cli("status", run_id, "--state", state, "--json").stdout)
    assert status["state"] == "FAILED" and status["units"]["FAILED"] == 1
    assert cli("verify", run_id, "--out", out).returncode == 1  # no root: not complete
    # the fault is fixed; resume returns the unit to the pool and a worker finishes the run
    resumed = cli("resume", run_id, "--state", state, "--out", out)
    assert resumed.returncode == 0 and "1 failed unit(s) reset" in resumed.stdout
    env.pop("DOCFLEET_BENCH_FAIL_INDEXES")
    assert start_worker(env, tmp_path / "after.log").wait(60) == 0
    assert_complete(state, out, run_id, 5)


def test_a_crashing_document_poisons_only_its_unit(
    uris: tuple[str, str], run_id: str, tmp_path: Path
) -> None:
    """A document that kills its process (like an OOM) is retried by new tasks, as an
    engine would restart them, until the unit is FAILED for good; the rest completes."""
    state, out = uris
    env = worker_env(state, out, run_id, 30, unit_size=10, MAX_ATTEMPTS=2, LEASE_SECONDS=1,
                     LINGER_SECONDS=3, BENCH_CRASH_INDEXES="15")
    codes = []
    for attempt in range(6):
        code = start_worker(env, tmp_path / f"attempt-{attempt}.log").wait(60)
        codes.append(code)
        if code != 137:
            break
    assert codes[:2] == [137, 137] and codes[-1] == 1
    units = open_state_store(state).units(run_id)
    assert Counter(u.state for u in units) == {UnitState.DONE: 2, UnitState.FAILED: 1}
    assert "lease expired after 2 attempts" in units[1].last_error


def test_pause_stops_claiming_and_status_reports_it(
    uris: tuple[str, str], run_id: str, tmp_path: Path
) -> None:
    state, out = uris
    env = worker_env(state, out, run_id, 30, unit_size=10, max_attempts=1)
    assert start_worker({**env, "DOCFLEET_BENCH_FAIL_INDEXES": "0,10,20"},
                        tmp_path / "w.log").wait(30) == 1
    assert cli("resume", run_id, "--state", state, "--out", out).returncode == 0
    assert cli("pause", run_id, "--state", state).returncode == 0
    assert start_worker(env, tmp_path / "paused.log").wait(30) == 0
    assert named(events(tmp_path / "paused.log"), "run.stopped")
    assert open_state_store(state).progress(run_id)[UnitState.PENDING] == 3
    assert json.loads(cli("status", run_id, "--state", state, "--json").stdout)["state"] == \
        "PAUSED"
    assert cli("resume", run_id, "--state", state, "--out", out).returncode == 0
    assert start_worker(env, tmp_path / "resumed.log").wait(30) == 0
    assert_complete(state, out, run_id, 3)
