"""Issue 26 item 5: ``run`` and ``work`` exit 1 when the run ends FAILED because its root
manifest was refused (README "Exit codes"), as ``status --wait`` does: the task that
refused it, a task started later on the FAILED run, and a local fleet. Real processes,
the FAILED run on every state store (the cloud ones on their emulators), a real output
directory."""

from __future__ import annotations

from pathlib import Path

from support.fleet import cli, events, named, start_worker, worker_env


def test_work_and_run_exit_1_on_a_run_whose_root_was_refused(
    tmp_path: Path, run_id: str, state_uri: str
) -> None:
    out = f"file://{tmp_path}/out"
    first, second = f"sqlite:///{tmp_path}/a.db", state_uri
    # run A completes; run B (same id and outputs, another store, another total) finds
    # A's root at its key: its finalizer refuses it and the run is FAILED
    a = start_worker(worker_env(first, out, run_id, 4, unit_size=2), tmp_path / "a.log")
    assert a.wait(120) == 0, (tmp_path / "a.log").read_text()
    b = start_worker(worker_env(second, out, run_id, 6, unit_size=2), tmp_path / "b.log")
    assert b.wait(120) == 1, (tmp_path / "b.log").read_text()
    assert named(events(tmp_path / "b.log"), "manifest.gap")
    waited = cli("status", run_id, "--state", second, "--wait", "--interval", "0.2")
    assert waited.returncode == 1 and "FAILED" in waited.stdout, waited.stdout
    # a task started on the FAILED run finds nothing to do: it exits 1 too, saying why
    again = start_worker(worker_env(second, out, run_id, unit_size=2), tmp_path / "c.log")
    assert again.wait(120) == 1, (tmp_path / "c.log").read_text()
    assert "FAILED" in (tmp_path / "c.log").read_text()
    # and so does a local fleet on it
    fleet = cli("run", "--run-id", run_id, "--tasks", "2", "--state", second,
                "--log-dir", str(tmp_path / "logs"), cwd=tmp_path)
    assert fleet.returncode == 1, (fleet.stdout, fleet.stderr)
    assert "FAILED" in fleet.stderr
