"""Issue 12, items 5, 7 and 8: bad input and a failing environment give one clear line and
the right exit code, and leave nothing behind that looks planned or complete. Real
processes, real files, real kernel errors (a file-size limit makes writes fail as on a
full volume), real signals."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from docfleet.state import open_state_store
from support.errors import assert_one_line_error
from support.fleet import events, named, start_worker, wait_for_event, worker_env

PY = [sys.executable, "-m", "docfleet"]


def run(*args: str, cwd: Path, limit_bytes: int | None = None,
        env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if not k.startswith("DOCFLEET_")}
    base["DOCFLEET_PACK"] = "bench"

    # Writes past limit_bytes fail with EFBIG, as on a full volume. The limit is set by a
    # small interpreter that then execs docfleet, not by a preexec_fn: Python code between
    # fork and exec in this threaded (gRPC-loaded) parent is what subprocess warns against.
    cmd = [*PY, *args] if limit_bytes is None else [
        sys.executable, "-c", _LIMITED, str(limit_bytes), *args]
    return subprocess.run(cmd, cwd=cwd, env={**base, **(env or {})},
                          capture_output=True, text=True, timeout=120)


_LIMITED = ("import os, resource, sys; n = int(sys.argv[1]); "
            "resource.setrlimit(resource.RLIMIT_FSIZE, (n, n)); "
            "os.execv(sys.executable, [sys.executable, '-m', 'docfleet', *sys.argv[2:]])")


def one_line(result: subprocess.CompletedProcess, code: int, *needles: str) -> None:
    assert_one_line_error(result, *needles, code=code, alone=True)


def test_a_state_file_that_is_not_sqlite_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "s.db").write_bytes(b"this is a text file, not a database\n" * 50)
    for args in (["work", "--run-id", "r1", "--total", "4"], ["status", "r1"]):
        one_line(run(*args, "--state", "sqlite:///s.db", cwd=tmp_path), 2,
                 "is not an SQLite database")
    assert (tmp_path / "s.db").read_bytes().startswith(b"this is a text file")


def test_a_state_uri_that_is_a_directory_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    for args in (["work", "--run-id", "r1", "--total", "4"], ["status", "r1"]):
        one_line(run(*args, "--state", "sqlite:///d", cwd=tmp_path), 2, "is a directory")


def test_a_full_disk_under_the_state_db_is_exit_4_on_one_line(tmp_path: Path) -> None:
    result = run("work", "--run-id", "r1", "--total", "3000", "--unit-size", "1",
                 "--state", "sqlite:///s.db", "--out", "file://./out", cwd=tmp_path,
                 limit_bytes=8192)
    one_line(result, 4, "sqlite:///s.db", "cannot write")


@pytest.mark.parametrize("total", [str(2**63), "1e20", str(10**12)])
def test_an_impossible_total_is_refused_and_leaves_no_marker(tmp_path: Path, total: str) -> None:
    result = run("work", "--run-id", "r1", "--total", total, "--state", "sqlite:///s.db",
                 cwd=tmp_path)
    one_line(result, 2, "total")
    by_env = run("work", "--run-id", "r1", "--state", "sqlite:///s.db", cwd=tmp_path,
                 env={"DOCFLEET_TOTAL": total})
    one_line(by_env, 2, "total")
    if (tmp_path / "s.db").exists():
        assert open_state_store(f"sqlite:///{tmp_path}/s.db").get_run("r1") is None


def test_the_planning_cap_names_the_unit_size_to_use(tmp_path: Path) -> None:
    result = run("work", "--run-id", "r1", "--total", str(10**8), "--unit-size", "10",
                 "--state", "sqlite:///s.db", cwd=tmp_path)
    one_line(result, 2, "10,000,000 units", "at most 1,000,000", "--unit-size 100 ")
    assert not (tmp_path / "s.db").exists() or b"r1" not in (tmp_path / "s.db").read_bytes()


def test_an_output_uri_that_is_a_file_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "passwd").write_text("root:x:0:0::/root:/bin/sh\n")
    result = run("work", "--run-id", "r1", "--total", "4", "--state", "sqlite:///s.db",
                 "--out", f"file://{tmp_path}/passwd", cwd=tmp_path)
    one_line(result, 2, "is a file, not a directory")
    assert (tmp_path / "passwd").read_text() == "root:x:0:0::/root:/bin/sh\n"


def test_a_run_id_with_a_trailing_newline_is_refused(tmp_path: Path) -> None:
    result = run("work", "--total", "4", "--state", "sqlite:///s.db", cwd=tmp_path,
                 env={"DOCFLEET_RUN_ID": "r1\n"})
    one_line(result, 2, "run_id")


def test_an_sqlite_uri_with_a_host_is_refused(tmp_path: Path) -> None:
    result = run("work", "--run-id", "r1", "--total", "4", "--state", "sqlite://host/x.db",
                 cwd=tmp_path)
    one_line(result, 2, "host part")
    assert not (tmp_path / "host").exists() and not (tmp_path / "x.db").exists()


@pytest.mark.timing
def test_sigterm_during_planning_stops_within_2s_and_a_peer_takes_over(tmp_path: Path) -> None:
    state, out = f"sqlite:///{tmp_path}/s.db", f"file://{tmp_path}/out"
    env = worker_env(state, out, "bigplan", 100000, unit_size=1, LEASE_SECONDS=30)
    # small batches make the planner slow enough to be caught mid-plan
    planner = start_worker({**env, "DOCFLEET_FAULT_PLAN_BATCH": "5"}, tmp_path / "planner.log")
    wait_for_event(tmp_path / "planner.log", "plan.won", timeout=60)
    sent = time.monotonic()
    planner.send_signal(signal.SIGTERM)
    assert planner.wait(10) == 143
    assert time.monotonic() - sent < 2.0
    assert named(events(tmp_path / "planner.log"), "plan.handover")
    run_ = open_state_store(state).get_run("bigplan")
    assert run_ is not None and not run_.planned
    # the marker was handed over: a peer takes the plan at once, not a lease later
    peer = start_worker(env, tmp_path / "peer.log")
    try:
        wait_for_event(tmp_path / "peer.log", "plan.takeover", timeout=15)
        wait_for_event(tmp_path / "peer.log", "unit.claim", timeout=120)  # planned
    finally:
        peer.send_signal(signal.SIGTERM)
        peer.wait(30)
    store = open_state_store(state)
    assert store.get_run("bigplan").planned
    assert store.progress("bigplan").total == 100000


def test_a_failed_put_on_a_full_volume_leaves_no_tmp_file(tmp_path: Path) -> None:
    """A real EFBIG (the file-size limit) in FileBlobStore.put: an OSError, the old object
    intact, and no ``.tmp`` file left behind."""
    code = (
        "import resource, sys\n"
        "from docfleet.blob.file import FileBlobStore\n"
        "b = FileBlobStore(sys.argv[1])\n"
        "b.put('run/doc.pdf', b'old')\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))\n"
        "try:\n"
        "    b.put('run/doc.pdf', b'x' * 100000)\n"
        "except OSError as exc:\n"
        "    print('OSError', exc.errno)\n"
    )
    result = subprocess.run([sys.executable, "-c", code, str(tmp_path / "out")],
                            capture_output=True, text=True, timeout=60)
    assert result.stdout.startswith("OSError"), result.stdout + result.stderr
    assert (tmp_path / "out" / "run" / "doc.pdf").read_bytes() == b"old"
    assert not list((tmp_path / "out").rglob("*.tmp"))
