"""Real multi-process fleets on the cloud backends, against their emulators: Firestore +
GCS and DynamoDB + S3. Real ``docfleet work`` processes, real signals, real outages
(the emulator process stopped with SIGSTOP, the GCS emulator killed and restarted) and
faults injected at the client (Firestore ABORTED, DynamoDB throttling)."""

from __future__ import annotations

import signal
import time
import uuid
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from docfleet.core.models import UnitState
from docfleet.state import open_state_store
from support import emulators
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


@dataclass
class Cloud:
    name: str
    state: str
    out: str
    state_emulator: emulators.Emulator
    blob_emulator: emulators.Emulator
    fault_env: str


@pytest.fixture(params=["firestore+gs", "dynamodb+s3"])
def cloud(request: pytest.FixtureRequest) -> Cloud:
    suffix = uuid.uuid4().hex[:10]
    if request.param == "firestore+gs":
        fs = request.getfixturevalue("firestore_emulator")
        gcs = request.getfixturevalue("gcs_emulator")
        return Cloud(request.param, emulators.firestore_uri(fs, f"fleet{suffix}-"),
                     emulators.make_gcs_bucket(gcs, f"fleet-{suffix}"), fs, gcs,
                     "DOCFLEET_FAULT_FIRESTORE_ABORTED")
    moto = request.getfixturevalue("moto_emulator")
    return Cloud(request.param, emulators.make_dynamodb_table(moto, f"fleet-{suffix}"),
                 emulators.make_s3_bucket(moto, f"fleet-{suffix}"), moto, moto,
                 "DOCFLEET_FAULT_DYNAMODB_THROTTLE")


def assert_each_unit_done_once(cloud: Cloud, run_id: str, units: int, logs: Path) -> None:
    """Every unit DONE, completed exactly once, one planner, one root, and verify passes."""
    evts = all_events(logs)
    assert len(named(evts, "plan.won")) == 1, "exactly one planner"
    done = Counter(e["unit"] for e in named(evts, "unit.done"))
    assert sorted(done) == list(range(units)), f"units never completed: {done}"
    assert set(done.values()) == {1}, f"units completed twice: {done}"
    assert len(named(evts, "manifest.root")) == 1, "root manifest written once"
    store = open_state_store(cloud.state)
    progress = store.progress(run_id)
    assert progress[UnitState.DONE] == units == progress.total
    assert store.get_run(run_id).state.value == "COMPLETED"
    verified = cli("verify", run_id, "--out", cloud.out)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "ok" in verified.stdout


def test_cold_start_of_6_with_one_sigkilled_mid_unit_completes_after_reclaim(
    cloud: Cloud, run_id: str, tmp_path: Path
) -> None:
    logs = tmp_path / "logs"
    env = worker_env(cloud.state, cloud.out, run_id, 60, unit_size=5, BENCH_DOC_MS=80,
                     LEASE_SECONDS=3, LINGER_SECONDS=15)
    procs = start_fleet(env, 6, logs)
    victim = procs[0]
    claim = wait_for_event(logs / "task-0.log", "unit.claim", timeout=60)
    victim.send_signal(signal.SIGKILL)
    assert victim.wait(10) == -signal.SIGKILL
    assert wait_all(procs[1:], 150) == [0] * 5
    evts = all_events(logs)
    victim_done = {e["unit"] for e in named(events(logs / "task-0.log"), "unit.done")}
    if claim["unit"] not in victim_done:  # killed mid-unit: a peer reclaimed and redid it
        again = [e for e in named(evts, "unit.claim")
                 if e["unit"] == claim["unit"] and e["token"] != claim["token"]]
        assert again, "the killed worker's unit was claimed again after its lease expired"
        assert named(evts, "lease.reclaim"), "a lingering peer reclaimed the expired lease"
    assert_each_unit_done_once(cloud, run_id, 12, logs)


def test_resume_then_a_fresh_worker_finishes_a_dead_fleets_run(
    cloud: Cloud, run_id: str, tmp_path: Path
) -> None:
    logs = tmp_path / "logs"
    env = worker_env(cloud.state, cloud.out, run_id, 20, unit_size=5, BENCH_DOC_MS=100,
                     LEASE_SECONDS=2, LINGER_SECONDS=0)
    only = start_worker(env, logs / "first.log")
    wait_for_event(logs / "first.log", "unit.claim", timeout=60)
    only.send_signal(signal.SIGKILL)
    only.wait(10)
    time.sleep(2.5)  # the dead worker's lease runs out
    resumed = cli("resume", run_id, "--state", cloud.state, "--out", cloud.out)
    assert resumed.returncode == 0, resumed.stderr
    assert "1 expired lease(s) reclaimed" in resumed.stdout
    fresh = start_worker(env, logs / "fresh.log")
    assert wait_all([fresh], 90) == [0]
    assert_each_unit_done_once(cloud, run_id, 4, logs)


def test_the_store_stopped_mid_run_then_back_loses_and_doubles_nothing(
    cloud: Cloud, run_id: str, tmp_path: Path
) -> None:
    logs = tmp_path / "logs"
    env = worker_env(cloud.state, cloud.out, run_id, 48, unit_size=4, BENCH_DOC_MS=60,
                     LEASE_SECONDS=12, LINGER_SECONDS=20)
    procs = start_fleet(env, 3, logs)
    deadline = time.monotonic() + 60
    while len(named(all_events(logs), "unit.done")) < 2:
        assert time.monotonic() < deadline, "no progress before the outage"
        time.sleep(0.1)
    cloud.state_emulator.freeze()  # the state store stops answering
    try:
        time.sleep(4)
    finally:
        cloud.state_emulator.thaw()
    if cloud.blob_emulator is not cloud.state_emulator:
        cloud.blob_emulator.restart()  # the GCS emulator goes away and comes back
    assert wait_all(procs, 150) == [0] * 3
    assert_each_unit_done_once(cloud, run_id, 12, logs)


def test_injected_contention_is_retried_and_the_run_completes(
    cloud: Cloud, run_id: str, tmp_path: Path
) -> None:
    logs = tmp_path / "logs"
    env = worker_env(cloud.state, cloud.out, run_id, 24, unit_size=4, BENCH_DOC_MS=10,
                     LEASE_SECONDS=10, **{cloud.fault_env: "0.3"})
    assert wait_all(start_fleet(env, 2, logs), 120) == [0, 0]
    assert_each_unit_done_once(cloud, run_id, 6, logs)


def test_contention_past_the_retry_bound_is_one_clear_error(
    cloud: Cloud, run_id: str, tmp_path: Path
) -> None:
    logs = tmp_path / "logs"
    env = worker_env(cloud.state, cloud.out, run_id, 8, unit_size=4, STORE_RETRY_SECONDS=3,
                     **{cloud.fault_env: "1.0"})
    started = time.monotonic()
    assert wait_all([start_worker(env, logs / "w.log")], 90) == [4]
    assert time.monotonic() - started < 60
    output = (logs / "w.log").read_text()
    assert "Traceback" not in output
    errors = [line for line in output.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, output
    expected = "Aborted" if "firestore" in cloud.name else "ProvisionedThroughputExceeded"
    assert expected in errors[0] and "injected fault" in errors[0], errors[0]
    assert "over 3s" in errors[0] or "in 3s" in errors[0], errors[0]
