"""The SQLite store's plumbing: one file shared by every local process, a connection per
thread, every write one ``BEGIN IMMEDIATE`` transaction (so a read-check-write is atomic
across processes), WAL mode and a busy timeout. Writers queue for the file in the kernel
first (:class:`WriterQueue`: ``flock`` on a sidecar ``<file>-writer``), so a waiter wakes
as the lock is released instead of sleeping through it in SQLite's busy handler (which
looks again after up to 100 ms: a late writer then wins over an early one, and a claim
waited 0.2-1 s at 8 processes). A lock held longer than the retry bound by anything else
raises :class:`StoreUnavailableError`; a failing disk or a file that is not a docfleet
store one clear line (:mod:`docfleet.state.calls`). :class:`SQLiteClient` is the base of
the store's coordination (:mod:`.store`) and ledger (:mod:`.ledger`) halves."""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, TypeVar

from docfleet.core.errors import (
    ConfigError,
    DocfleetError,
    RunNotFoundError,
    StoreUnavailableError,
)
from docfleet.core.retry import RetryPolicy
from docfleet.state import opcount
from docfleet.state.calls import StoreCalls
from docfleet.state.sqlite.instrument import attach

T = TypeVar("T")

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY,
    params TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    max_attempts INTEGER NOT NULL,
    state TEXT NOT NULL,
    planned INTEGER NOT NULL DEFAULT 0,
    planner TEXT NOT NULL,
    plan_heartbeat REAL NOT NULL,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS units (
    run_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    start INTEGER NOT NULL,
    count INTEGER NOT NULL,
    state TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    generation INTEGER NOT NULL DEFAULT 0,
    lease_owner TEXT,
    lease_expires_at REAL,
    last_error TEXT,
    claimed_at REAL,
    finished_at REAL,
    part_sha256 TEXT,
    worked_by TEXT,
    PRIMARY KEY (run_id, idx)
);
CREATE INDEX IF NOT EXISTS units_by_state ON units (run_id, state, idx);
CREATE TABLE IF NOT EXISTS spend (
    run_id TEXT NOT NULL,
    model TEXT NOT NULL,
    nano INTEGER NOT NULL,
    PRIMARY KEY (run_id, model)
);
CREATE TABLE IF NOT EXISTS quarantine (
    run_id TEXT NOT NULL,
    provider TEXT NOT NULL,
    PRIMARY KEY (run_id, provider)
);
CREATE TABLE IF NOT EXISTS finalizers (
    run_id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    expires_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS reservations (
    run_id TEXT NOT NULL,
    rid TEXT NOT NULL,
    nano INTEGER NOT NULL,
    expires_at REAL NOT NULL,
    PRIMARY KEY (run_id, rid)
);
"""


#: the database files this process opened, checkpointed at exit (:func:`_checkpoint_at_exit`)
_OPENED: set[Path] = set()


def _checkpoint_at_exit() -> None:
    """Fold the write-ahead log of every store this process opened into its database
    file, so that the file alone holds every committed write (a copy of it is complete)
    however the process leaves its connections: ``docfleet.cli.finish`` ends a command
    without the interpreter's teardown, which used to close them (the last close
    checkpoints). A fresh connection's checkpoint touches no other connection; a store
    still busy (a reader holding a snapshot) is left as it is, its log as durable."""
    for path in sorted(_OPENED):
        with contextlib.suppress(sqlite3.Error), \
                contextlib.closing(sqlite3.connect(path, timeout=1.0)) as conn:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


atexit.register(_checkpoint_at_exit)


def locked(exc: BaseException) -> bool:
    """Whether an SQLite error is another process holding the file (retried)."""
    msg = str(exc).lower()
    return isinstance(exc, sqlite3.OperationalError) and ("locked" in msg or "busy" in msg)


class WriterQueue:
    """The docfleet writers of one SQLite file wait their turn in the kernel: an exclusive
    ``flock`` on ``<file>-writer``, one open file per thread (closed with its thread's
    state, as the thread's connection is), held around each write transaction. A waiter
    sleeps without CPU and wakes when the holder releases (or dies: the kernel drops a
    dead process's lock). The queue only orders the waiters: SQLite's own write lock
    still makes each transaction atomic (a forked child sharing its parent's open file
    shares its turn, never the database's lock). A peer stopped inside a write (SIGSTOP)
    holds its peers until it continues or dies, as its SQLite write lock already did.
    When the sidecar cannot be opened (a read-only folder) writes take SQLite's busy wait
    alone."""

    def __init__(self, path: Path) -> None:
        self.path = path.with_name(path.name + "-writer")
        self._local = threading.local()

    def _file(self) -> IO[bytes] | None:
        if not hasattr(self._local, "file"):
            try:
                self._local.file = open(self.path, "ab")  # noqa: SIM115 - kept per thread
            except OSError:
                self._local.file = None
        file: IO[bytes] | None = self._local.file
        return file

    @contextmanager
    def turn(self) -> Iterator[None]:
        """Hold the file's writer turn for the block."""
        file = self._file()
        if file is None:
            yield
            return
        fcntl.flock(file.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(file.fileno(), fcntl.LOCK_UN)

    def close(self) -> None:
        """Close this thread's open file of the sidecar."""
        file = getattr(self._local, "file", None)
        if file is not None:
            file.close()
        with contextlib.suppress(AttributeError):
            del self._local.file


class SQLiteClient:
    """One SQLite state file: connections, schema, transactions and the retry path."""

    def __init__(
        self, path: str | Path, *, busy_timeout: float = 10.0, retry_seconds: float = 60.0,
        create: bool = True,
    ) -> None:
        """Open (``create``: create if missing, with its folders) the SQLite file at
        ``path``. Raises :class:`ConfigError` for a path that is a directory or a file that
        is not a docfleet SQLite state store, :class:`RunNotFoundError` when ``create`` is
        false and the file does not exist (read-only commands never create state), and
        :class:`StoreUnavailableError` (exit 4) for a full or failing disk."""
        self.path = Path(path)
        self.uri = f"sqlite:///{self.path}"
        self.busy_timeout = busy_timeout
        self.retry_seconds = retry_seconds
        self._local = threading.local()
        self._writers = WriterQueue(self.path)
        self._opcounts: Any = None  # set by docfleet.state.sqlite.instrument.instrument
        self._calls = StoreCalls(
            RetryPolicy(f"state store {self.uri}", locked, bound=retry_seconds,
                        maximum=1.0,
                        hint="another process holds the SQLite file; stop it or retry later"),
            self._translate, cleanup=self._rollback)
        if self.path.is_dir():
            raise ConfigError(f"state store {self.uri} is a directory, not a database file",
                              "name a file, e.g. sqlite:///.docfleet/state.db")
        if not create and not self.path.exists():
            raise RunNotFoundError(f"state store {self.uri} does not exist",
                                   "check --state / DOCFLEET_STATE (nothing was created)")
        if create:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise ConfigError(f"cannot create the folder of state store {self.uri}: "
                                  f"{exc.strerror or exc}", "check the path") from None
            self._retry(self._init_schema)
        else:
            self._retry(self._check_schema)
        _OPENED.add(self.path)
        opcount.maybe_instrument(self)

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(
                self.path, timeout=self.busy_timeout, isolation_level=None,
                check_same_thread=False,
            )
            conn.row_factory = sqlite3.Row
            conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout * 1000)}")
            conn.execute("PRAGMA synchronous = NORMAL")
            if self._opcounts is not None:
                attach(conn, self._opcounts)
            self._local.conn = conn
        return conn

    def _init_schema(self) -> None:
        conn = self._conn()
        mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
        if mode.lower() != "wal":
            conn.execute("PRAGMA journal_mode = WAL")
        with self._tx() as c:
            for stmt in SCHEMA.split(";"):
                if stmt.strip():
                    c.execute(stmt)

    def _check_schema(self) -> None:
        """A read-only open: the file must already be a docfleet state store. A file with
        no tables at all is one a task is creating this moment (or an empty file): it
        holds no run yet, :class:`RunNotFoundError`, not a wrong file."""
        names = {r[0] for r in self._conn().execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not names:
            raise RunNotFoundError(f"state store {self.uri} holds no runs yet",
                                   "check --state / DOCFLEET_STATE (nothing was created)")
        if not {"runs", "units"} <= names:
            raise ConfigError(f"state store {self.uri} is an SQLite file but not a docfleet "
                              "state store", "check --state / DOCFLEET_STATE")

    def _translate(self, exc: BaseException, op: str) -> DocfleetError | None:
        """The one-line error for an SQLite failure that retrying cannot fix."""
        if not isinstance(exc, sqlite3.Error):
            return None
        msg = str(exc)
        low = msg.lower()
        if "full" in low or "disk i/o" in low:
            return StoreUnavailableError(
                f"state store {self.uri} cannot write: {msg}",
                "free space on its disk (or fix the volume), then run the task again")
        if "not a database" in low or "malformed" in low:
            return ConfigError(f"state store {self.uri} is not an SQLite database ({msg})",
                               "check --state / DOCFLEET_STATE names a docfleet state file")
        if "readonly" in low or "unable to open" in low:
            return ConfigError(f"cannot open state store {self.uri}: {msg}",
                               "check the path exists and is writable")
        return StoreUnavailableError(f"state store {self.uri}: {msg}",
                                     "check the database file")

    def _rollback(self) -> None:
        """Before a permanent error is raised: leave no transaction open."""
        with contextlib.suppress(sqlite3.Error):
            if self._conn().in_transaction:
                self._conn().execute("ROLLBACK")

    def _retry(self, fn: Callable[[], T], op: str = "") -> T:
        """Run ``fn`` on the shared path (:class:`~docfleet.state.calls.StoreCalls`):
        'database is locked' is retried with backoff up to ``retry_seconds``, other
        SQLite failures raise their one-line :class:`DocfleetError`."""
        return self._calls.call(op, fn)

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        conn = self._conn()
        with self._writers.turn():
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def _write(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        def attempt() -> T:
            with self._tx() as conn:
                return fn(conn)

        return self._retry(attempt)

    def _read(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        return self._retry(lambda: fn(self._conn()))

    #: How often :meth:`wait_for_work` looks for a peer's commit (a local read, no I/O).
    CHANGE_POLL_SECONDS = 0.05

    def wait_for_work(self, run_id: str, timeout: float) -> bool:
        """Block up to ``timeout`` seconds until another connection commits to this file
        (``PRAGMA data_version`` moves: a peer's completion, release, reclaim or plan),
        looking every :attr:`CHANGE_POLL_SECONDS`; returns whether one did. Any commit
        ends the wait, of any run: the caller re-reads what it waits for. A commit made
        before this call started is not seen (the wait then runs to ``timeout``)."""
        deadline = time.monotonic() + max(0.0, float(timeout))
        conn = self._conn()

        def version() -> int:
            return self._retry(lambda: conn.execute("PRAGMA data_version").fetchone()[0])

        seen = version()
        while (left := deadline - time.monotonic()) > 0:
            time.sleep(min(self.CHANGE_POLL_SECONDS, left))
            if version() != seen:
                return True
        return False

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None
        self._writers.close()
