"""``docfleet launch`` against a local fake of the Cloud Run Admin API (REST transport,
anonymous credentials, 127.0.0.1 only). With ``start_tasks`` the fake also plays Cloud
Run and starts the execution's tasks as real ``docfleet work`` processes, so ``--wait``
follows a real run in the state store."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from support.fake_cloud_run import FakeCloudRun
from support.needs import require

PROJECT, REGION = "docfleet-test", "europe-west1"


@pytest.fixture(autouse=True)
def _gcp_extra() -> None:
    require(importlib.util.find_spec("google.cloud.run_v2") is not None,
            "google-cloud-run (the gcp extra)")


def _launch(fake: FakeCloudRun, tmp: Path, *args: str, timeout: float = 180,
            **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items()
            if not k.startswith(("DOCFLEET_", "GOOGLE_", "CLOUDSDK_"))}
    base.update(NO_GCE_CHECK="true", DOCFLEET_CLOUD_RUN_ENDPOINT=fake.url,
                DOCFLEET_CLOUD_RUN_PROJECT=PROJECT, DOCFLEET_CLOUD_RUN_REGION=REGION,
                DOCFLEET_STATE=f"sqlite:///{tmp / 'state.db'}")
    base.update(env)
    base = {k: v for k, v in base.items() if v != "" or k not in env}  # "" = unset
    return subprocess.run([sys.executable, "-m", "docfleet", "launch", *args], env=base,
                          cwd=tmp, capture_output=True, text=True, timeout=timeout)


def _job_env(tmp: Path) -> dict[str, str]:
    """What Terraform puts on the job (modules/gcp settings_env), made local."""
    return {"DOCFLEET_STATE": f"sqlite:///{tmp / 'state.db'}",
            "DOCFLEET_OUT": f"file://{tmp / 'out'}", "DOCFLEET_LOG_FORMAT": "json",
            "DOCFLEET_POLL_SECONDS": "0.2", "DOCFLEET_LEASE_SECONDS": "10",
            "DOCFLEET_PACK": "bench"}


def test_launch_sends_a_run_job_request_and_prints_the_execution(tmp_path: Path) -> None:
    with FakeCloudRun({"docfleet": _job_env(tmp_path)}, tmp_path) as fake:
        proc = _launch(fake, tmp_path, "--tasks", "7", "--run-id", "r1", "--total", "500",
                       "--unit-size", "10", "--option", "seller_count=3",
                       "--env", "OTEL_SERVICE_NAME=docfleet-r1", "--task-timeout", "900")
    assert proc.returncode == 0, proc.stderr
    assert not fake.errors
    [request] = fake.requests
    assert (request["project"], request["region"], request["job"]) == (PROJECT, REGION,
                                                                      "docfleet")
    body = request["body"]
    assert body["overrides"]["taskCount"] == 7
    assert body["overrides"]["timeout"] == "900s"
    env = {e["name"]: e["value"] for e in body["overrides"]["containerOverrides"][0]["env"]}
    assert env == {"DOCFLEET_RUN_ID": "r1", "DOCFLEET_TOTAL": "500", "DOCFLEET_UNIT_SIZE": "10",
                   "DOCFLEET_OPTIONS": '{"seller_count": 3}',
                   "OTEL_SERVICE_NAME": "docfleet-r1"}
    execution = proc.stdout.strip()
    assert execution.startswith(f"projects/{PROJECT}/locations/{REGION}/jobs/docfleet/"
                                "executions/docfleet-")


def test_launch_wait_follows_a_real_run_to_completion(tmp_path: Path) -> None:
    with FakeCloudRun({"docfleet": _job_env(tmp_path)}, tmp_path, start_tasks=True) as fake:
        proc = _launch(fake, tmp_path, "--tasks", "3", "--run-id", "cr1", "--total", "30",
                       "--unit-size", "5", "--wait", "--interval", "0.3",
                       "--wait-timeout", "150")
        codes = [t.wait(60) for t in fake.tasks]
    logs = "\n".join(p.read_text()[-800:] for p in tmp_path.glob("*-task-*.log"))
    assert proc.returncode == 0, f"{proc.stdout}\n{proc.stderr}\n{logs}"
    assert codes == [0, 0, 0], logs
    assert "run cr1: COMPLETED" in proc.stderr
    assert (tmp_path / "out" / "cr1" / "manifest.json").is_file()


def test_launch_wait_exits_1_when_units_fail(tmp_path: Path) -> None:
    with FakeCloudRun({"docfleet": _job_env(tmp_path)}, tmp_path, start_tasks=True) as fake:
        proc = _launch(fake, tmp_path, "--tasks", "2", "--run-id", "cr2", "--total", "20",
                       "--unit-size", "5", "--env", "DOCFLEET_BENCH_FAIL_INDEXES=7",
                       "--env", "DOCFLEET_MAX_ATTEMPTS=1", "--wait", "--interval", "0.3",
                       "--wait-timeout", "150")
        codes = sorted(t.wait(60) for t in fake.tasks)
    assert proc.returncode == 1, f"{proc.stdout}\n{proc.stderr}"
    assert "run cr2: FAILED" in proc.stderr
    assert 1 in codes


def test_launch_of_a_missing_job_is_a_clear_error(tmp_path: Path) -> None:
    with FakeCloudRun({"docfleet": {}}, tmp_path) as fake:
        proc = _launch(fake, tmp_path, "--tasks", "2", "--run-id", "r", "--job", "nope")
    assert proc.returncode == 2
    assert "Cloud Run job projects/docfleet-test/locations/europe-west1/jobs/nope does not " \
           "exist" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_launch_needs_a_run_id_and_a_region(tmp_path: Path) -> None:
    with FakeCloudRun({"docfleet": {}}, tmp_path) as fake:
        no_run = _launch(fake, tmp_path, "--tasks", "2")
        no_region = _launch(fake, tmp_path, "--tasks", "2", "--run-id", "r",
                            DOCFLEET_CLOUD_RUN_REGION="")
    assert no_run.returncode == 2 and "no run id given" in no_run.stderr
    assert no_region.returncode == 2 and "project/region" in no_region.stderr
    assert not fake.requests


def test_missing_gcp_extra_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from docfleet.core.errors import MissingExtraError
    from docfleet.ops import launch

    monkeypatch.setitem(sys.modules, "google.cloud.run_v2", None)
    with pytest.raises(MissingExtraError, match=r"docfleet\[gcp\]"):
        launch.jobs_client()


def test_launch_wait_without_state_follows_the_jobs_own_store(tmp_path: Path) -> None:
    """No --state and no DOCFLEET_STATE: --wait reads the job's DOCFLEET_STATE (GetJob),
    never a new local SQLite file."""
    with FakeCloudRun({"docfleet": _job_env(tmp_path)}, tmp_path, start_tasks=True) as fake:
        proc = _launch(fake, tmp_path, "--tasks", "2", "--run-id", "cr3", "--total", "10",
                       "--unit-size", "5", "--wait", "--interval", "0.3",
                       "--wait-timeout", "150", DOCFLEET_STATE="")
        [t.wait(60) for t in fake.tasks]
    assert proc.returncode == 0, f"{proc.stdout}\n{proc.stderr}"
    assert f"following sqlite:///{tmp_path / 'state.db'} (the job's DOCFLEET_STATE)" \
        in proc.stderr
    assert "run cr3: COMPLETED" in proc.stderr
    assert not (tmp_path / ".docfleet").exists()  # no local store was made up


def test_launch_wait_refuses_a_job_without_a_state_setting(tmp_path: Path) -> None:
    with FakeCloudRun({"docfleet": {}}, tmp_path) as fake:
        proc = _launch(fake, tmp_path, "--tasks", "1", "--run-id", "r", "--wait",
                       DOCFLEET_STATE="")
    assert proc.returncode == 2
    assert "sets no DOCFLEET_STATE to follow (pass --state URI" in proc.stderr
