"""Issue 26 item 6: ``delete`` removes what it owns, and only that. Real processes.

- ``delete --force`` under running workers: every worker finds its run gone, says so in
  one line and exits 3 (no crash in finalize), and nothing it writes survives: once the
  workers have exited the run's outputs are gone, folders included (every state store);
- outputs whose root manifest is of a run the given store does not hold, or of another
  run under the same id, are refused in one line and left intact;
- ``delete --yes`` leaves no empty folders behind.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from support.fleet import cli, events, named, start_fleet, wait_all, worker_env

LEASE = 3.0


def _done_units(logs: Path) -> int:
    return len(named(events(*sorted(logs.glob("*.log"))), "unit.done"))


def test_delete_force_under_running_workers_stops_them_cleanly_and_leaves_nothing(
    tmp_path: Path, state_uri: str, run_id: str
) -> None:
    out_dir = tmp_path / "out"
    out = f"file://{out_dir}"
    env = worker_env(state_uri, out, run_id, 60, unit_size=4, BENCH_DOC_MS=150,
                     LEASE_SECONDS=LEASE, HEARTBEAT_SECONDS=LEASE / 3)
    logs = tmp_path / "logs"
    procs = start_fleet(env, 2, logs)
    deadline = time.monotonic() + 120
    while _done_units(logs) < 2:  # the fleet is mid-run: units done, others in hand
        assert time.monotonic() < deadline, "the fleet completed no unit"
        assert all(p.poll() is None for p in procs), "a worker exited early"
        time.sleep(0.1)
    deleted = cli("delete", run_id, "--yes", "--force", "--state", state_uri,
                  "--lease-seconds", str(LEASE))
    assert deleted.returncode == 0, deleted.stderr
    codes = wait_all(procs, timeout=120)
    for index, code in enumerate(codes):
        text = (logs / f"task-{index}.log").read_text()
        assert code == 3, f"task {index} exited {code}:\n{text}"
        assert "Traceback" not in text and "AssertionError" not in text, text
        gone = named(events(logs / f"task-{index}.log"), "run.gone")
        assert len(gone) == 1 and "\n" not in gone[0]["message"], gone
    # nothing a worker wrote outlives the delete: no file, no folder of the run
    assert not (out_dir / run_id).exists(), sorted(
        str(p.relative_to(out_dir)) for p in (out_dir / run_id).rglob("*"))
    listed = cli("list", "--state", state_uri, "--json")
    assert listed.returncode == 0 and json.loads(listed.stdout) == []


def test_delete_refuses_outputs_that_are_another_runs(tmp_path: Path, run_id: str,
                                                      blob_uri: str) -> None:
    """On every output store (file://, S3, GCS on their emulators): outputs whose root is
    not the given store's run are refused and left whole; the owner deletes them all."""
    from docfleet.blob import open_blob_store

    out = blob_uri
    blob = open_blob_store(out)
    first, second = f"sqlite:///{tmp_path}/a.db", f"sqlite:///{tmp_path}/b.db"
    assert start_fleet(worker_env(first, out, run_id, 4, unit_size=2), 1,
                       tmp_path / "a")[0].wait(120) == 0
    keys = {key: blob.get(key) for key in blob.list(f"{run_id}/")}
    assert keys
    # a store that does not hold the run
    empty = f"sqlite:///{tmp_path}/empty.db"
    assert cli("store", "init", empty).returncode == 0
    refused = cli("delete", run_id, "--yes", "--state", empty, "--out", out)
    assert refused.returncode == 2, (refused.stdout, refused.stderr)
    line = refused.stderr.strip()
    assert len(line.splitlines()) == 1 and "does not hold" in line, line
    # a store whose run of that id is another (another total): its root was refused
    assert start_fleet(worker_env(second, out, run_id, 6, unit_size=2), 1,
                       tmp_path / "b")[0].wait(120) == 1
    other = cli("delete", run_id, "--yes", "--state", second)
    assert other.returncode == 2 and "another run's" in other.stderr, other.stderr
    assert len(other.stderr.strip().splitlines()) == 1
    # run A's outputs are intact, byte for byte
    assert all(blob.get(key) == data for key, data in keys.items())
    assert cli("verify", run_id, "--state", first).returncode == 0
    # its own store deletes it, and leaves no empty folder behind
    mine = cli("delete", run_id, "--yes", "--state", first)
    assert mine.returncode == 0, mine.stderr
    assert list(blob.list(f"{run_id}/")) == []
    if out.startswith("file://"):
        out_dir = Path(out.removeprefix("file://"))
        assert not (out_dir / run_id).exists()
        assert out_dir.is_dir()  # the output root itself stays


def test_a_local_fleet_whose_run_is_deleted_exits_3(tmp_path: Path, run_id: str) -> None:
    """``docfleet run`` under ``delete --force``: its tasks stop, and so does the fleet,
    with exit 3 and the run shown as deleted."""
    import os
    import subprocess
    import sys

    from docfleet.core.errors import RunNotFoundError
    from docfleet.core.models import UnitState
    from docfleet.state import open_state_store

    state, out = f"sqlite:///{tmp_path}/state.db", f"file://{tmp_path}/out"
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOCFLEET_")}
    env.update(DOCFLEET_BENCH_DOC_MS="150", DOCFLEET_HEARTBEAT_SECONDS=str(LEASE / 3))
    fleet = subprocess.Popen(
        [sys.executable, "-m", "docfleet", "run", "--run-id", run_id, "--total", "60",
         "--unit-size", "4", "--pack", "bench", "--tasks", "2", "--state", state, "--out",
         out, "--lease-seconds", str(LEASE), "--log-dir", str(tmp_path / "logs")],
        env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while True:
        assert fleet.poll() is None, fleet.communicate()
        assert time.monotonic() < deadline, "the fleet completed no unit"
        try:
            store = open_state_store(state, create=False)
            done = store.progress(run_id)[UnitState.DONE]
            store.close()
        except RunNotFoundError:  # the state file is not created yet
            done = 0
        if done >= 2:
            break
        time.sleep(0.2)
    deleted = cli("delete", run_id, "--yes", "--force", "--state", state,
                  "--lease-seconds", str(LEASE))
    assert deleted.returncode == 0, deleted.stderr
    stdout, stderr = fleet.communicate(timeout=120)
    assert fleet.returncode == 3, (stdout, stderr)
    assert f"run {run_id}: deleted" in stderr, stderr
    assert "Traceback" not in stderr
    assert not (tmp_path / "out" / run_id).exists()
