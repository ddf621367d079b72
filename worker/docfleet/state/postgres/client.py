"""The PostgreSQL store's plumbing: connections (one per task, one for the lease
heartbeat, each opened lazily and re-opened after a drop), the server-side timeouts and the
client's watchdog that gives up a connection whose server stopped answering, and the one
retry path (:mod:`docfleet.state.calls`: a refused, reset or timed-out connection, a
restarting server, a deadlock or serialisation failure retried, bounded and jittered; the
rest one clear line). :class:`PostgresClient` is the base of the store's coordination
(:mod:`.store`) and ledger (:mod:`.ledger`) halves."""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from docfleet.core import clock
from docfleet.core.errors import ConfigError, DocfleetError, MissingExtraError
from docfleet.core.retry import RetryPolicy, default_bound, one_line
from docfleet.state import opcount
from docfleet.state.calls import StoreCalls
from docfleet.state.postgres.instrument import Counted
from docfleet.state.postgres.schema import DEFAULT_SCHEMA, SCHEMA_NAME, ensure_schema

T = TypeVar("T")

#: Seconds the server may spend on one statement (and wait for one lock, a third of it).
DEFAULT_STATEMENT_TIMEOUT = 30.0
#: Seconds the client waits for an answer beyond the statement timeout before it gives
#: the connection up (the server, if alive, has cancelled the statement by then).
ANSWER_MARGIN = 2.0
#: The shortest client wait of a retry near the end of its window (and of a connect).
_MIN_ANSWER_WAIT = 2.0
#: The database's clock, epoch seconds; ``+ %(now)s`` shifts it to the caller's ``now``.
DB_NOW = "extract(epoch from now())::float8"


def _psycopg() -> Any:
    try:
        import psycopg
    except ImportError:
        raise MissingExtraError("the postgresql:// state store", "postgres") from None
    return psycopg


#: Server refusals at connect that a retry can outlive (a restart, a full server).
_TRANSIENT_FATAL = ("starting up", "shutting down", "in recovery", "too many clients",
                    "connection slots", "administrator command", "not yet accepting")


def _permanent_connect_error(exc: BaseException) -> bool:
    """Errors no retry fixes: a refused login, an unknown role or database, a parameter
    the server or libpq rejects. A refused, reset or timed-out connection is not one."""
    sqlstate = getattr(exc, "sqlstate", None) or ""
    if sqlstate.startswith("28") or sqlstate == "3D000":
        return True
    text = str(exc).lower()
    if "fatal:" in text:
        return not any(needle in text for needle in _TRANSIENT_FATAL)
    return "connection is bad" in text and "invalid" in text


class ServerSilentError(Exception):
    """The server did not answer a statement within the client's wait (it is stopped,
    or the network path to it is): the connection was given up. Transient."""


class _Watchdog:
    """One thread per process that shuts down the socket of a statement left unanswered
    past its deadline: the blocked call then fails with a connection error at once (the
    socket stays open for its owner to close). Arming and disarming are two dict writes
    under a lock, cheap enough for every statement."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._armed: dict[int, tuple[float, int]] = {}  # key -> (deadline, socket fd)
        self._fired: set[int] = set()
        self._tick = 1.0
        self._thread: threading.Thread | None = None

    def arm(self, key: int, fd: int, seconds: float) -> None:
        with self._lock:
            self._armed[key] = (time.monotonic() + seconds, fd)
            self._fired.discard(key)
            self._tick = min(self._tick, max(0.05, seconds / 8))
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="pg-watchdog",
                                                daemon=True)
                self._thread.start()

    def disarm(self, key: int) -> bool:
        """Stop watching ``key``; returns whether its deadline fired meanwhile."""
        with self._lock:
            self._armed.pop(key, None)
            fired = key in self._fired
            self._fired.discard(key)
            return fired

    def _loop(self) -> None:
        import socket

        while True:
            time.sleep(self._tick)
            now = time.monotonic()
            with self._lock:
                for key, (deadline, fd) in list(self._armed.items()):
                    if now < deadline:
                        continue
                    del self._armed[key]
                    self._fired.add(key)
                    # a dup of the fd: the socket is shut down, not closed under its owner
                    with contextlib.suppress(OSError), socket.socket(fileno=os.dup(fd)) as sock:
                        sock.shutdown(socket.SHUT_RDWR)


_WATCHDOG = _Watchdog()


def _reset_watchdog_in_child() -> None:
    """A forked child has no watchdog thread (and maybe a lock held at the fork)."""
    global _WATCHDOG
    _WATCHDOG = _Watchdog()


os.register_at_fork(after_in_child=_reset_watchdog_in_child)


def postgres_transient(exc: BaseException) -> bool:
    """Whether ``exc`` is worth retrying: the connection (refused, reset, closed, timed
    out, server shutting down or starting up, a statement or lock timeout) or a
    transaction conflict (deadlock, serialisation)."""
    if isinstance(exc, ServerSilentError):
        return True
    psycopg = _psycopg()
    if isinstance(exc, psycopg.errors.TransactionRollback):
        return True
    if isinstance(exc, psycopg.OperationalError | psycopg.InterfaceError):
        return not _permanent_connect_error(exc)
    return False


class Connection:
    """One lazily opened connection, its lock, and its re-opening after a drop."""

    def __init__(self, store: PostgresClient, role: str) -> None:
        self.store = store
        self.role = role
        self.lock = threading.RLock()
        self.conn: Any = None

    def get(self, connect_timeout: float) -> Any:
        if self.conn is not None and (self.conn.closed or self.conn.broken):
            self.discard()
        if self.conn is None:
            self.conn = self.store._connect(self.role, connect_timeout)
        return self.conn

    def discard(self) -> None:
        conn, self.conn = self.conn, None
        if conn is not None:
            with contextlib.suppress(Exception):  # a broken connection may fail to close
                conn.close()


class PostgresClient:
    """One PostgreSQL schema: connections, timeouts, watchdog, retries. Safe to share
    between the threads of one task: each connection is used by one thread at a time."""

    def __init__(self, conninfo: str, *, schema: str = DEFAULT_SCHEMA, display_uri: str,
                 retry_seconds: float | None = None, connect_timeout: float = 10.0,
                 statement_timeout: float | None = None, create: bool = True) -> None:
        self._psycopg = _psycopg()
        if not SCHEMA_NAME.match(schema):
            raise ConfigError(f"state URI {display_uri!r}: '{schema}' is not a schema name",
                              "use ?schema= with letters, digits and _ (at most 48)")
        self._conninfo = conninfo
        self.schema = schema
        self.uri = display_uri
        self.channel = f"docfleet_{schema}".lower()
        self.connect_timeout = connect_timeout
        self.statement_timeout = (statement_timeout if statement_timeout is not None
                                  else DEFAULT_STATEMENT_TIMEOUT)
        #: how long the client waits for any answer before giving the connection up
        self.answer_timeout = self.statement_timeout + ANSWER_MARGIN
        self.retry_seconds = retry_seconds if retry_seconds is not None else default_bound()
        self._calls = StoreCalls(RetryPolicy(
            f"state store {display_uri}", postgres_transient, bound=self.retry_seconds,
            hint="check that the PostgreSQL server is up and reachable, or raise "
                 "DOCFLEET_STORE_RETRY_SECONDS",
        ), self._translate)
        self._main = Connection(self, "main")
        self._beat = Connection(self, "heartbeat")
        self._listening = False
        self._create = create
        self._opcounts: Any = None  # set by docfleet.state.postgres.instrument.instrument
        opcount.maybe_instrument(self)  # DOCFLEET_STORE_OPS: count this store's statements
        self._call("open", self._main, self._ensure_schema)

    # -- plumbing ---------------------------------------------------------------------
    def _connect(self, role: str, connect_timeout: float | None = None) -> Any:
        """A new autocommit session (raises psycopg's errors). ``connect_timeout``
        bounds the whole connect, a server that accepts but never answers included; the
        session's search path and server-side timeouts are then set in one round trip
        (a SET, not startup ``options``, which connection poolers refuse), under the
        watchdog."""
        psycopg = self._psycopg
        wait = self.connect_timeout if connect_timeout is None else connect_timeout
        conn = psycopg.connect(
            self._conninfo, autocommit=True, connect_timeout=max(2, round(wait)),
            application_name=f"docfleet-{role}", keepalives=1, keepalives_idle=10,
            keepalives_interval=3, keepalives_count=3, tcp_user_timeout=30000,
        )
        ms = max(1, int(self.statement_timeout * 1000))
        setup = psycopg.sql.SQL(
            "SET search_path TO {}; SET statement_timeout = {}; SET lock_timeout = {};"
            " SET idle_in_transaction_session_timeout = {}").format(
            psycopg.sql.Identifier(self.schema), psycopg.sql.Literal(ms),
            psycopg.sql.Literal(max(1, ms // 3)), psycopg.sql.Literal(ms))
        key = id(conn)
        _WATCHDOG.arm(key, conn.fileno(), max(_MIN_ANSWER_WAIT, wait))
        try:
            conn.execute(setup)
        except BaseException as exc:
            silent = _WATCHDOG.disarm(key)
            with contextlib.suppress(Exception):
                conn.close()
            if silent:
                raise ServerSilentError(f"no answer from the server within {wait:.0f}s of "
                                        "connecting (stopped or unreachable)") from exc
            raise
        _WATCHDOG.disarm(key)
        if role == "main":
            self._listening = False
        return conn

    def _call(self, op: str, holder: Connection, fn: Callable[[Any], T],
              wait: float = 0.0) -> T:
        """Run ``fn(connection)`` under the retry policy; a dropped connection is re-opened
        on the next attempt. Each attempt waits for the server at most
        :attr:`answer_timeout` (+ ``wait``, a wait ``fn`` itself asks for), and no longer
        than what is left of the retry window: a stopped server costs ``retry_seconds``
        and a :class:`StoreUnavailableError`, never a hang. A permanent error becomes one
        clear line."""
        psycopg = self._psycopg
        started = time.monotonic()
        key = id(holder)

        def attempt() -> T:
            left = self.retry_seconds - (time.monotonic() - started)
            budget = max(_MIN_ANSWER_WAIT, min(self.answer_timeout, left))
            with holder.lock:
                conn = holder.get(min(self.connect_timeout, budget))
                _WATCHDOG.arm(key, conn.fileno(), budget + wait)
                try:
                    result = fn(conn if self._opcounts is None else Counted(conn, self._opcounts))
                except psycopg.Error as exc:
                    silent = _WATCHDOG.disarm(key)
                    if silent or conn.closed or conn.broken:
                        holder.discard()
                    if silent:
                        raise ServerSilentError(
                            f"no answer from the server within {budget + wait:.0f}s "
                            "(stopped or unreachable); connection given up") from exc
                    raise
                if _WATCHDOG.disarm(key):  # fired just as the answer came: reconnect next
                    holder.discard()
                return result

        return self._calls.call(op, attempt, started=started)

    def _translate(self, exc: BaseException, op: str) -> DocfleetError | None:
        """A psycopg error no retry fixes as one line: a refused login (or unknown role,
        database, parameter) as :class:`ConfigError`, any other as :class:`DocfleetError`."""
        psycopg = self._psycopg
        if not isinstance(exc, psycopg.Error):
            return None
        if isinstance(exc, psycopg.OperationalError) and _permanent_connect_error(exc):
            return ConfigError(
                f"state store {self.uri} refused the connection: {one_line(exc)}",
                "check the user, database, password (URI, PGPASSWORD or ~/.pgpass) and "
                "the URI's parameters")
        return DocfleetError(f"state store {self.uri} {op} failed: {one_line(exc)}",
                             "check the schema and the user's privileges")

    def _run(self, op: str, fn: Callable[[Any], T]) -> T:
        return self._call(op, self._main, fn)

    def _tx(self, op: str, fn: Callable[[Any], T]) -> T:
        """``fn`` inside one transaction (retried whole)."""
        def body(conn: Any) -> T:
            with conn.transaction():
                return fn(conn)

        return self._run(op, body)

    def _ensure_schema(self, conn: Any) -> None:
        """Create or migrate the schema, idempotently, one process at a time."""
        ensure_schema(conn, self._psycopg, self.schema, self.uri, create=self._create)

    def schema_version(self) -> int:
        """The schema version the database records."""
        row = self._run("schema_version", lambda c: c.execute(
            "SELECT value FROM meta WHERE key = 'schema_version'").fetchone())
        return int(row[0]) if row else 0

    @staticmethod
    def _at(t: float) -> float:
        """``t`` (caller's clock) as an offset from the caller's clock now: the SQL adds
        it to the database's ``now()``."""
        return t - clock.now()

    def _notify(self, conn: Any, run_id: str) -> None:
        conn.execute("SELECT pg_notify(%s, %s)", (self.channel, run_id))

    def close(self) -> None:
        for holder in (self._main, self._beat):
            with holder.lock:
                holder.discard()

