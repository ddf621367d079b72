"""``docfleet list`` and ``docfleet delete`` through the real CLI, on every state store
(SQLite, and the Firestore and DynamoDB emulators) and every blob store."""

from __future__ import annotations

import json
import time
from pathlib import Path

from docfleet.blob import open_blob_store
from docfleet.core.models import RunSpec
from docfleet.state import open_state_store
from support.fleet import cli, start_worker, worker_env


def _work(state: str, out: str, run_id: str, log: Path, total: int = 6) -> None:
    proc = start_worker(worker_env(state, out, run_id, total, unit_size=3), log)
    assert proc.wait(120) == 0, log.read_text()


def test_list_shows_runs_and_delete_removes_state_and_outputs(
    tmp_path: Path, state_uri: str, run_id: str
) -> None:
    out = f"file://{tmp_path}/out"
    _work(state_uri, out, run_id, tmp_path / "a.log")
    started = RunSpec(run_id=f"{run_id}-live", total=4, unit_size=2, pack="bench")
    store = open_state_store(state_uri)
    assert store.create_run(started, "someone", time.time()).won  # PENDING: still live
    store.close()

    listed = cli("list", "--state", state_uri, "--json")
    assert listed.returncode == 0, listed.stderr
    rows = {r["run_id"]: r for r in json.loads(listed.stdout)}
    assert set(rows) == {run_id, f"{run_id}-live"}
    done = rows[run_id]
    assert done["state"] == "COMPLETED" and done["total"] == 6 and done["pack"] == "bench"
    assert done["units"] == {"PENDING": 0, "RUNNING": 0, "DONE": 2, "FAILED": 0}
    assert done["completed_at"] >= done["created_at"] > 0
    assert rows[f"{run_id}-live"]["completed_at"] is None
    text = cli("list", "--state", state_uri, env={"COLUMNS": "120"})
    assert run_id in text.stdout and "COMPLETED" in text.stdout

    refused = cli("delete", f"{run_id}-live", "--yes", "--state", state_uri, "--out", out)
    assert refused.returncode == 2 and "is PENDING" in refused.stderr
    assert "--force" in refused.stderr
    unconfirmed = cli("delete", run_id, "--state", state_uri, "--out", out)
    assert unconfirmed.returncode == 2 and "pass --yes" in unconfirmed.stderr
    assert (tmp_path / "out" / run_id / "manifest.json").exists()  # nothing deleted

    deleted = cli("delete", run_id, "--yes", "--state", state_uri, "--out", out)
    assert deleted.returncode == 0, deleted.stderr
    assert not list((tmp_path / "out" / run_id).rglob("*.*"))
    forced = cli("delete", f"{run_id}-live", "--yes", "--force", "--lease-seconds", "1",
                 "--state", state_uri, "--out", out)  # its (absent) workers' lease: 1 s
    assert "waiting 1s (a lease)" in forced.stderr
    assert forced.returncode == 0, forced.stderr
    assert json.loads(cli("list", "--state", state_uri, "--json").stdout) == []
    gone = cli("status", run_id, "--state", state_uri)
    assert gone.returncode == 2 and "does not exist" in gone.stderr
    again = cli("delete", run_id, "--yes", "--state", state_uri, "--out", out)
    assert again.returncode == 2 and "is neither in" in again.stderr
    # the run id is free again: a new run with other parameters is accepted
    _work(state_uri, out, run_id, tmp_path / "b.log", total=4)


def test_delete_removes_the_outputs_of_every_blob_store(
    tmp_path: Path, blob_uri: str, run_id: str
) -> None:
    state = f"sqlite:///{tmp_path}/s.db"
    _work(state, blob_uri, run_id, tmp_path / "a.log")
    blob = open_blob_store(blob_uri)
    assert f"{run_id}/manifest.json" in list(blob.list(f"{run_id}/"))
    deleted = cli("delete", run_id, "--yes", "--state", state, "--out", blob_uri)
    assert deleted.returncode == 0, deleted.stderr
    assert list(blob.list(f"{run_id}/")) == []
    assert "?" not in deleted.stdout  # URIs printed without their query (endpoints)
