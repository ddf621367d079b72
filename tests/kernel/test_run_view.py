"""What ``docfleet run`` and ``docfleet status`` show a user, through real processes: a
setup error before anything is planned, each task's fatal error with its index, failed
units by name, progress in documents that fits 80 columns (and plain lines off a
terminal), ``status --watch`` and ``run --dry-run``."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from support.fleet import cli, start_fleet, wait_all, worker_env

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


def _uris(tmp_path: Path) -> tuple[str, str]:
    return f"sqlite:///{tmp_path}/s.db", f"file://{tmp_path}/out"


def _run(tmp_path: Path, run_id: str, *args: str, env: dict[str, str] | None = None,
         timeout: float = 180):
    state, out = _uris(tmp_path)
    return cli("run", "--run-id", run_id, "--state", state, "--out", out,
               "--log-dir", str(tmp_path / "logs"), *args, env=env, timeout=timeout)


def _not_planned(tmp_path: Path, run_id: str) -> None:
    state, _ = _uris(tmp_path)
    status = cli("status", run_id, "--state", state)
    assert status.returncode == 2 and f"run '{run_id}' does not exist" in status.stderr


@pytest.mark.parametrize("command", ["run", "work"])
def test_a_missing_chromium_is_refused_before_the_run_is_planned(
    tmp_path: Path, run_id: str, command: str
) -> None:
    state, out = _uris(tmp_path)
    result = cli(command, "--run-id", run_id, "--total", "4", "--state", state, "--out", out,
                 env={"DOCFLEET_CHROMIUM_PATH": str(tmp_path / "no-chromium")})
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip().splitlines() == [
        f"error: no Chromium executable at {tmp_path / 'no-chromium'} (install Debian's "
        "chromium package or set DOCFLEET_CHROMIUM_PATH to it)"]
    _not_planned(tmp_path, run_id)


def test_a_catalogue_that_does_not_exist_is_refused_before_planning(
    tmp_path: Path, run_id: str
) -> None:
    result = _run(tmp_path, run_id, "--total", "4", "--option",
                  f"catalogue=file://{tmp_path}/nowhere/cat-1")
    assert result.returncode == 2
    assert "has no root manifest" in result.stderr and "Traceback" not in result.stderr
    _not_planned(tmp_path, run_id)


def test_each_tasks_fatal_error_is_on_screen_with_its_index(tmp_path: Path, run_id: str
                                                            ) -> None:
    """A Chromium that exists but cannot start: every task dies of it; the fleet says so
    once (with the task index), then that all tasks stopped of it, and exits 2."""
    result = _run(tmp_path, run_id, "--total", "4", "--tasks", "2",
                  env={"DOCFLEET_CHROMIUM_PATH": "/bin/false"})
    assert result.returncode == 2, result.stderr
    lines = result.stderr.splitlines()
    fatal = [line for line in lines if re.match(r"task [01] exited 2: cannot start Chromium "
                                                 r"at /bin/false", line)]
    assert len(fatal) == 1, result.stderr  # the same error is not repeated per task
    assert any(line.startswith("all 2 tasks stopped with: cannot start Chromium")
               for line in lines), result.stderr
    assert "Traceback" not in result.stderr


def test_run_and_status_name_the_failed_units(tmp_path: Path, run_id: str) -> None:
    result = _run(tmp_path, run_id, "--total", "40", "--pack", "bench", "--tasks", "2",
                  "--unit-size", "10", "--max-attempts", "1",
                  env={"DOCFLEET_BENCH_FAIL_INDEXES": "3,25", "DOCFLEET_POLL_SECONDS": "0.2"})
    assert result.returncode == 1, result.stderr
    for needle in ("unit 0 (documents 0-9) failed after 1 attempt(s): BenchDocumentError: "
                   "injected failure at document 3",
                   "unit 2 (documents 20-29) failed after 1 attempt(s): BenchDocumentError: "
                   "injected failure at document 25",
                   f"docfleet resume {run_id}", "20/40 docs, 2/4 units, 2 failed"):
        assert needle in result.stderr, result.stderr
    state, _ = _uris(tmp_path)
    info = json.loads(cli("status", run_id, "--state", state, "--json").stdout)
    assert info["failed_units"] == [
        {"index": 0, "documents": [0, 9], "attempts": 1,
         "error": "BenchDocumentError: injected failure at document 3"},
        {"index": 2, "documents": [20, 29], "attempts": 1,
         "error": "BenchDocumentError: injected failure at document 25"},
    ]
    assert info["documents_done"] == 20
    text = cli("status", run_id, "--state", state, env={"COLUMNS": "200"})
    assert "unit 2 (documents 20-29) failed after 1 attempt(s)" in text.stdout


def test_progress_off_a_terminal_is_plain_lines_in_documents(tmp_path: Path, run_id: str
                                                             ) -> None:
    result = _run(tmp_path, run_id, "--total", "30", "--pack", "bench", "--tasks", "2",
                  "--unit-size", "5", env={"DOCFLEET_POLL_SECONDS": "0.2"})
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    assert "\r" not in result.stderr and "\x1b[" not in result.stderr
    progress = [line for line in lines if re.match(
        rf"run {run_id}: \d+/30 docs, [\d.]+ doc/s, ETA (\d+:\d\d:\d\d|--:--); units", line)]
    assert progress and progress[-1].startswith(f"run {run_id}: 30/30 docs"), result.stderr
    assert f"output: file://{tmp_path}/out/{run_id}/manifest.json" in lines


def _run_on_a_terminal(args: list[str], columns: int, timeout: float = 120) -> str:
    """Run the CLI with stdout/stderr on a real pseudo-terminal ``columns`` wide."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOCFLEET_")}
    env.update(TERM="xterm-256color", DOCFLEET_POLL_SECONDS="0.2", DOCFLEET_BENCH_DOC_MS="20")
    env.pop("COLUMNS", None)
    env.pop("NO_COLOR", None)
    proc = subprocess.Popen([sys.executable, "-m", "docfleet", *args], stdin=slave,
                            stdout=slave, stderr=slave, env=env, close_fds=True)
    os.close(slave)
    chunks = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            data = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(10)
    os.close(master)
    assert proc.returncode == 0, b"".join(chunks).decode(errors="replace")
    return b"".join(chunks).decode(errors="replace")


def test_progress_on_an_80_column_terminal_fits_and_shows_rate_and_eta(
    tmp_path: Path, run_id: str
) -> None:
    state, out = _uris(tmp_path)
    text = _run_on_a_terminal(
        ["run", "--run-id", run_id, "--total", "60", "--pack", "bench", "--tasks", "2",
         "--unit-size", "5", "--state", state, "--out", out,
         "--log-dir", str(tmp_path / "logs")], columns=80)
    screen = [ANSI.sub("", part) for line in text.split("\n") for part in line.split("\r")]
    screen = [line.rstrip() for line in screen if line.strip()]
    wide = [line for line in screen if len(line) > 80
            and not line.startswith(("output: ", "logs: "))]  # a long path may wrap
    assert not wide, wide
    bars = [line for line in screen if re.search(r"\d+/60 docs +[\d.]+ doc/s +ETA ", line)]
    assert bars, screen
    assert any("60/60 docs" in line for line in bars), bars
    summary = f"run {run_id}: COMPLETED, 60/60 docs, 12/12 units"
    assert any(line.startswith(summary) for line in screen), screen


def test_status_watch_refreshes_until_the_run_ends(tmp_path: Path, run_id: str) -> None:
    state, out = _uris(tmp_path)
    env = worker_env(state, out, run_id, 40, unit_size=4, DOCFLEET_BENCH_DOC_MS="250")
    procs = start_fleet(env, 2, tmp_path / "logs")
    try:
        deadline = time.monotonic() + 30
        while cli("status", run_id, "--state", state).returncode != 0:
            assert time.monotonic() < deadline, "the run was never planned"
            time.sleep(0.2)
        watched = cli("status", run_id, "--state", state, "--out", out, "--watch",
                      "--interval", "0.2")
    finally:
        wait_all(procs)
    assert watched.returncode == 0, watched.stderr
    lines = watched.stdout.splitlines()
    assert len(lines) >= 2, lines  # it refreshed while the run progressed
    assert lines[-1].startswith(f"run {run_id}: COMPLETED, 40/40 documents"), lines


def test_dry_run_prints_the_plan_and_writes_nothing(tmp_path: Path, run_id: str) -> None:
    result = _run(tmp_path, run_id, "--total", "1000", "--tasks", "4", "--dry-run")
    assert result.returncode == 0, result.stderr
    text = result.stdout
    assert "12 units of 84 (last 76), 4 tasks" in text, text
    assert "new: would be planned" in text
    assert re.search(r"estimate: \d+ pages, [\d.]+ MB, CPU \d+m \d\ds", text), text
    assert all(len(line) <= 80 for line in text.splitlines()
               if not line.startswith(("  state ", "  out ")))  # tmp paths are long
    assert not (tmp_path / "s.db").exists() and not (tmp_path / "out").exists()


def test_dry_run_of_a_stored_run_checks_its_parameters(tmp_path: Path, run_id: str) -> None:
    done = _run(tmp_path, run_id, "--total", "10", "--pack", "bench", "--tasks", "1")
    assert done.returncode == 0, done.stderr
    same = _run(tmp_path, run_id, "--total", "10", "--pack", "bench", "--tasks", "1",
                "--dry-run")
    assert "exists (COMPLETED), same parameters" in same.stdout, same.stdout + same.stderr
    assert "publishes no measured cost" in same.stdout
    other = _run(tmp_path, run_id, "--total", "12", "--pack", "bench", "--dry-run")
    assert other.returncode == 2 and "already exists with other parameters" in other.stderr
