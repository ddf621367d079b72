"""Exports leave no native thread behind: the interpreter exits 0 after them.

The abort this holds off ("terminate called without an active exception", SIGABRT, exit
134 after a successful export) came from Arrow's dataset-scanner thread pool, which
``pq.read_table(io.BytesIO(...))`` starts and which was still running when the
interpreter finalised. ``read_shard`` decodes on the calling thread; the first test
counts the process's OS threads (``/proc/self/task``, but jemalloc's lazily started
background thread) around it, which is exact and
does not depend on timing, the second runs real exports in their own processes.

Beyond the threads we know of, a finished command never reaches the interpreter's native
teardown at all (``docfleet.cli.finish``): the third test plants a native teardown that
aborts (a C ``__cxa_atexit`` handler calling ``abort()``, which runs where the C++ static
destructors of a thread pool run) and holds that the command's own exit code comes out —
the same plant aborts a plain interpreter, the control."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from exportlib import Run, bench_run

from support.fleet import cli

_COUNT_THREADS = """
import io, os
import pyarrow as pa, pyarrow.parquet as pq
from docfleet.dataset.shards import read_shard, shard_bytes
data = shard_bytes(pa.schema([("a", pa.int64()), ("b", pa.string())]),
                   [{"a": i, "b": str(i)} for i in range(5000)])
def threads():  # jemalloc's background thread starts lazily and is harmless
    comm = (open(f"/proc/self/task/{t}/comm").read().strip() for t in os.listdir("/proc/self/task"))
    return sum(name != "jemalloc_bg_thd" for name in comm)
before = threads()
for _ in range(20):
    assert read_shard(data).num_rows == 5000
ours = threads()
pq.read_table(io.BytesIO(data))
print(before, ours, threads(), flush=True)
os._exit(0)  # the control's scanner pool is still running: its teardown may abort
"""


def test_reading_a_shard_starts_no_native_thread() -> None:
    done = subprocess.run([sys.executable, "-c", _COUNT_THREADS], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    before, ours, scanner = map(int, done.stdout.split())
    assert ours == before, f"read_shard left {ours - before} native thread(s) running"
    # the control: the scanner path does start a pool (what used to abort at exit)
    assert scanner > before


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> Run:
    return bench_run(tmp_path_factory)


def test_exports_exit_cleanly_in_their_own_process(bench: Run, tmp_path: Path) -> None:
    for i in range(3):
        for to in (f"parquet://{tmp_path / f'pq{i}'}", f"duckdb:///{tmp_path / f'x{i}.duckdb'}"):
            done = cli("export", bench.run_id, "--state", bench.state, "--out", bench.out,
                       "--to", to, timeout=300)
            assert "terminate called" not in done.stderr, done.stderr
            assert done.returncode == 0, f"{to}: exit {done.returncode}\n{done.stderr}"


_NATIVE_TEARDOWN_ABORTS = """import ctypes
libc = ctypes.CDLL(None)
libc.__cxa_atexit(ctypes.cast(libc.abort, ctypes.c_void_p), None, None)
"""


def test_a_finished_command_never_runs_the_native_teardown(tmp_path: Path) -> None:
    (tmp_path / "sitecustomize.py").write_text(_NATIVE_TEARDOWN_ABORTS)
    env = {"PYTHONPATH": str(tmp_path), "PYTHONFAULTHANDLER": ""}
    control = subprocess.run([sys.executable, "-c", "print('done')"], capture_output=True,
                             text=True, env={**os.environ, **env}, timeout=60)
    assert control.stdout == "done\n" and control.returncode == -6, (
        "the control: a plain interpreter's teardown aborts with this plant")
    ok = cli("--version", env=env)
    assert ok.returncode == 0 and "version" in ok.stdout, ok.stderr
    refused = cli("status", "nope", "--state", f"sqlite:///{tmp_path}/none.db", env=env)
    assert refused.returncode == 2, refused.stderr  # a bad input keeps its own code
    assert "does not exist" in refused.stderr and "Aborted" not in refused.stderr


def test_a_finished_command_leaves_its_writes_in_the_sqlite_file(tmp_path: Path) -> None:
    """Without the interpreter's teardown no connection closes the SQLite store, so its
    write-ahead log is folded into the file at exit (``state/sqlite/client.py``): a copy
    of the database file alone (as an operator backs it up) holds the finished run."""
    import shutil
    import sqlite3

    state = tmp_path / "state.db"
    done = cli("run", "--run-id", "wal", "--total", "6", "--tasks", "2", "--pack", "bench",
               "--unit-size", "2", "--state", f"sqlite:///{state}",
               "--out", f"file://{tmp_path / 'out'}", cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    shutil.copy(state, tmp_path / "copy.db")  # the file alone, not its -wal
    with sqlite3.connect(tmp_path / "copy.db") as conn:
        assert conn.execute("SELECT state FROM runs WHERE run_id = 'wal'").fetchone() == (
            "COMPLETED",)
        assert conn.execute("SELECT COUNT(*) FROM units WHERE state = 'DONE'").fetchone() == (3,)
