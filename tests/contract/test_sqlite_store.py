"""What the SQLite store alone has: its writers queue for the file in the kernel (a
write waits for a peer's writer turn and goes through the moment it ends), and a unit's
completion and the next claim are one write transaction."""

from __future__ import annotations

import fcntl
import gc
import os
import threading
import time
from pathlib import Path

from docfleet.core.models import RunSpec
from docfleet.kernel.planner import plan_units
from docfleet.state.optional import CompletesAndClaims
from docfleet.state.sqlite.store import SQLiteStateStore


def _planned(path: Path, total: int = 3) -> SQLiteStateStore:
    store = SQLiteStateStore(path)
    spec = RunSpec(run_id="r", total=total, unit_size=1, pack="bench")
    store.create_run(spec, "planner", time.time())
    store.put_units("r", plan_units(spec))
    assert store.mark_planned("r", "planner", time.time())
    return store


def test_a_write_waits_for_a_peers_writer_turn_and_then_goes_through(tmp_path: Path) -> None:
    store = _planned(tmp_path / "s.db")
    sidecar = tmp_path / "s.db-writer"
    assert sidecar.exists()
    peer = os.open(sidecar, os.O_RDWR)  # another open file: as another process holds it
    fcntl.flock(peer, fcntl.LOCK_EX)
    got: list[object] = []
    writer = threading.Thread(
        target=lambda: got.append(store.claim_next_unit("r", "w", 0, 30, time.time())))
    writer.start()
    writer.join(0.5)
    assert writer.is_alive() and not got  # queued behind the peer's turn
    fcntl.flock(peer, fcntl.LOCK_UN)
    writer.join(10)
    os.close(peer)
    assert not writer.is_alive() and got and got[0] is not None


def test_completion_and_next_claim_are_one_transaction(tmp_path: Path) -> None:
    store = _planned(tmp_path / "s.db")
    assert isinstance(store, CompletesAndClaims)
    first = store.claim_next_unit("r", "w", 0, 30, time.time())
    assert first is not None
    statements: list[str] = []
    store._conn().set_trace_callback(statements.append)
    done, nxt = store.complete_and_claim_next(first, "a" * 64, "w", 1, 30, time.time())
    store._conn().set_trace_callback(None)
    assert done and nxt is not None and nxt.unit_index == 1
    assert statements.count("BEGIN IMMEDIATE") == statements.count("COMMIT") == 1
    # fenced: a completion with a stale token claims nothing
    assert store.complete_and_claim_next(first, "a" * 64, "w", 2, 30, time.time()) == (
        False, None)
    assert [u.state.value for u in store.units("r")] == ["DONE", "RUNNING", "PENDING"]


def test_a_finished_threads_writer_file_is_closed(tmp_path: Path) -> None:
    """Each thread queues through its own open file of the sidecar; when the thread ends
    its file is closed with it (no descriptor left per short-lived writer thread)."""
    store = _planned(tmp_path / "s.db", total=8)
    sidecar = str(tmp_path / "s.db-writer")

    def open_sidecars() -> int:
        fds = Path("/proc/self/fd")
        return sum(1 for fd in fds.iterdir() if os.path.realpath(fd) == sidecar)

    before = open_sidecars()
    for i in range(4):
        writer = threading.Thread(
            target=lambda i=i: store.claim_next_unit("r", f"w{i}", i, 30, time.time()))
        writer.start()
        writer.join(10)
    gc.collect()
    assert open_sidecars() == before
    assert sum(u.state.value == "RUNNING" for u in store.units("r")) == 4
