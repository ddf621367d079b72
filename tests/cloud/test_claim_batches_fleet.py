"""Batches with real ``docfleet work`` processes on a real PostgreSQL server: a fleet of
short units records them with far fewer commits than one unit at a time
(``DOCFLEET_CLAIM_BATCH_SECONDS=0``) and completes with every unit done once; a task
SIGTERMed mid-batch records its finished units and gives back the unstarted ones at once,
so no unit waits for a lease or burns a second attempt."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import psycopg
import pytest

from docfleet.state import open_state_store
from support import emulators
from support.fleet import all_events, named, start_fleet, wait_all, wait_for_event, worker_env

pytestmark = [pytest.mark.fleet]

UNITS = 240
#: units of one 5 ms document; a lease long enough that a unit left behind would show
SETTINGS = {"unit_size": 1, "lease_seconds": 30, "DOCFLEET_BENCH_DOC_MS": 5}


def _commits(server: emulators.PostgresServer) -> int:
    time.sleep(0.3)  # closed sessions flush their statistics
    with psycopg.connect(server.dsn, autocommit=True) as conn:
        return int(conn.execute("SELECT xact_commit FROM pg_stat_database"
                                " WHERE datname = current_database()").fetchone()[0])


def _fleet(server: emulators.PostgresServer, tmp_path: Path, run_id: str,
           **extra: object) -> tuple[int, list[dict]]:
    """Run a 2-task fleet to the end: the server's commits, the tasks' events."""
    state = server.uri(run_id.replace("-", "_"))
    env = worker_env(state, f"file://{tmp_path / 'out'}", run_id, UNITS, **SETTINGS, **extra)
    before = _commits(server)
    codes = wait_all(start_fleet(env, 2, tmp_path / "logs"), timeout=240)
    evts = all_events(tmp_path / "logs")
    assert codes == [0, 0], [e.get("message") for e in evts if e.get("severity") == "ERROR"]
    store = open_state_store(state)
    try:
        assert store.get_run(run_id).state.value == "COMPLETED"
        assert all(u.attempts == 1 for u in store.units(run_id))
    finally:
        store.close()
    return _commits(server) - before, evts


def test_batched_claims_cost_no_more_commits_than_one_at_a_time(
        postgres_server: emulators.PostgresServer, tmp_path: Path, run_id: str) -> None:
    batched, evts = _fleet(postgres_server, tmp_path / "batched", run_id)
    assert len(named(evts, "unit.done")) == UNITS
    single, _ = _fleet(postgres_server, tmp_path / "single", run_id + "-1",
                       claim_batch_seconds=0)
    # one unit at a time is a commit per unit (its completion claims the next). A batch
    # claims up to 16 units in one statement, but since an attempt is spent when work on
    # a unit starts (issue 26 item 4: start_unit, which also records the batch's finished
    # units) it too commits about once per unit: batches no longer save commits, and
    # must not cost more than a small margin (the claim statements themselves)
    assert single >= UNITS
    assert batched <= single * 1.3 + 20, (batched, single)


def test_a_task_stopped_mid_batch_hands_its_units_back_at_once(
        postgres_server: emulators.PostgresServer, tmp_path: Path, run_id: str) -> None:
    state = postgres_server.uri(run_id.replace("-", "_"))
    env = worker_env(state, f"file://{tmp_path / 'out'}", run_id, UNITS,
                     **{**SETTINGS, "DOCFLEET_BENCH_DOC_MS": 40})
    logs = tmp_path / "logs"
    procs = start_fleet(env, 2, logs)
    wait_for_event(logs / "task-0.log", "unit.done", timeout=60)
    time.sleep(0.3)  # well inside a batch of ~1 s of units
    procs[0].send_signal(signal.SIGTERM)
    began = time.monotonic()
    codes = wait_all(procs, timeout=240)
    assert codes == [143, 0], codes
    evts = all_events(logs)
    stopped = [e for e in named(evts, "lease.release")
               if e.get("unit") is not None]
    assert stopped, "the stopped task gave units back"
    store = open_state_store(state)
    try:
        assert store.get_run(run_id).state.value == "COMPLETED"
        units = store.units(run_id)
        # nothing waited for a lease to run out: no unit took a second attempt
        assert all(u.attempts == 1 for u in units), [u for u in units if u.attempts != 1]
    finally:
        store.close()
    assert time.monotonic() - began < SETTINGS["lease_seconds"]
