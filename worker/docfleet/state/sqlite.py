"""The embedded default state store: one SQLite file shared by every local process.

Every write is one ``BEGIN IMMEDIATE`` transaction, so a claim's read-check-write is
atomic across processes. As on every backend, a claim never reclaims by comparing its own
clock with a lease's expiry (a task with a fast clock would steal live leases); an idle
worker reclaims a dead peer's unit once it has itself seen the lease go unrenewed for a
whole lease (:class:`docfleet.kernel.lease.LeaseWatch`). WAL mode and a busy
timeout let many processes share the file; a lock held longer than the retry bound
raises :class:`StoreUnavailableError`.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from docfleet.core.errors import (
    ConfigError,
    DocfleetError,
    RunNotFoundError,
    StoreUnavailableError,
)
from docfleet.core.models import (
    Claim,
    Progress,
    Run,
    RunSpec,
    RunState,
    Unit,
    UnitState,
    claim_token,
)
from docfleet.core.uris import ParsedURI
from docfleet.state import rules
from docfleet.state.base import TOTAL_SPEND_KEY, BudgetState, CreateResult, check_fingerprint

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

_UNIT_COLUMNS = (
    "run_id, idx, start, count, state, attempts, generation, lease_owner, lease_expires_at,"
    " last_error, claimed_at, finished_at, part_sha256, worked_by"
)


def _reclaim_sql(where: str, *, not_renewed: bool) -> str:
    """The UPDATE that reclaims the RUNNING units ``where`` selects: back to PENDING, or
    FAILED with the lease-expired error on their last attempt (docfleet.state.rules)."""
    final = "attempts", ":max_attempts"
    error = rules.sql_lease_expired_error("attempts", "lease_owner", not_renewed=not_renewed)
    return (f"UPDATE units SET state = {rules.sql_after_attempt(*final)},"
            f" last_error = {rules.sql_if_final(*final, error, 'last_error')},"
            f" finished_at = {rules.sql_if_final(*final, ':now', 'finished_at')},"
            f" lease_owner = NULL, lease_expires_at = NULL WHERE {where}")


# Expired leases, judged by the caller's clock (resume).
_RECLAIM_SQL = _reclaim_sql("run_id = :run_id AND state = 'RUNNING' AND lease_expires_at < :now",
                            not_renewed=False)
# Leases the caller saw unrenewed for a whole lease (docfleet.kernel.lease.LeaseWatch).
_RECLAIM_STALE_SQL = _reclaim_sql(
    "run_id = :run_id AND idx = :idx AND state = 'RUNNING' AND lease_expires_at = :seen"
    " AND (:owner IS NULL OR lease_owner = :owner)", not_renewed=True)


class SQLiteStateStore:
    """:class:`~docfleet.state.base.StateStore` over one SQLite file."""

    #: A claim picks and takes its unit inside one write lock: it never loses a race.
    lost_races = 0

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
        self._opcounts: Any = None  # set by docfleet.state.opcount.instrument
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
        from docfleet.state import opcount

        opcount.maybe_instrument(self)

    # -- plumbing ---------------------------------------------------------------------
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
                from docfleet.state import opcount

                opcount.attach_sqlite(conn, self._opcounts)
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
        """A read-only open: the file must already be a docfleet state store."""
        row = self._conn().execute(
            "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name IN "
            "('runs', 'units')").fetchone()
        if row[0] != 2:
            raise ConfigError(f"state store {self.uri} is an SQLite file but not a docfleet "
                              "state store", "check --state / DOCFLEET_STATE")

    def _error(self, exc: sqlite3.Error) -> DocfleetError:
        """The one-line error for an SQLite failure that retrying cannot fix."""
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

    def _retry(self, fn: Callable[[], T]) -> T:
        """Run ``fn``, retrying 'database is locked' with backoff up to ``retry_seconds``.
        Other SQLite failures raise their one-line :class:`DocfleetError` (:meth:`_error`)."""
        deadline = time.monotonic() + self.retry_seconds
        delay = 0.05
        while True:
            try:
                return fn()
            except sqlite3.Error as exc:
                msg = str(exc).lower()
                if not isinstance(exc, sqlite3.OperationalError) or (
                        "locked" not in msg and "busy" not in msg):
                    with contextlib.suppress(sqlite3.Error):
                        if self._conn().in_transaction:
                            self._conn().execute("ROLLBACK")
                    raise self._error(exc) from None
                if time.monotonic() >= deadline:
                    raise StoreUnavailableError(
                        f"state store {self.uri} stayed locked for {self.retry_seconds:.0f}s",
                        "another process holds the SQLite file; stop it or retry later",
                    ) from exc
                time.sleep(delay)
                delay = min(delay * 2, 1.0)

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        conn = self._conn()
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

    # -- runs -------------------------------------------------------------------------
    def create_run(self, spec: RunSpec, planner: str, now: float) -> CreateResult:
        fingerprint = spec.fingerprint()

        def tx(conn: sqlite3.Connection) -> CreateResult:
            row = conn.execute("SELECT * FROM runs WHERE run_id = ?", (spec.run_id,)).fetchone()
            if row is not None:
                run = Run.from_record(row)
                check_fingerprint(run, spec)
                return CreateResult(False, run)
            conn.execute(
                "INSERT INTO runs (run_id, params, fingerprint, max_attempts, state, planned,"
                " planner, plan_heartbeat, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?, ?)",
                (spec.run_id, json.dumps(spec.parameters(), sort_keys=True), fingerprint,
                 spec.max_attempts, RunState.PENDING.value, planner, now, now, now),
            )
            row = conn.execute("SELECT * FROM runs WHERE run_id = ?", (spec.run_id,)).fetchone()
            return CreateResult(True, Run.from_record(row))

        return self._write(tx)

    def take_over_plan(self, run_id: str, planner: str, stale_before: float, now: float) -> bool:
        return self._write(lambda c: c.execute(
            "UPDATE runs SET planner = ?, plan_heartbeat = ?, updated_at = ?"
            " WHERE run_id = ? AND planned = 0 AND plan_heartbeat < ?",
            (planner, now, now, run_id, stale_before),
        ).rowcount == 1)

    def touch_plan(self, run_id: str, planner: str, now: float) -> bool:
        return self._write(lambda c: c.execute(
            "UPDATE runs SET plan_heartbeat = ? WHERE run_id = ? AND planner = ? AND planned = 0",
            (now, run_id, planner),
        ).rowcount == 1)

    def put_units(self, run_id: str, units: Iterable[Unit]) -> None:
        rows = [(run_id, u.index, u.start, u.count, UnitState.PENDING.value) for u in units]

        def tx(conn: sqlite3.Connection) -> None:
            conn.executemany(
                "INSERT OR IGNORE INTO units (run_id, idx, start, count, state)"
                " VALUES (?, ?, ?, ?, ?)",
                rows,
            )

        self._write(tx)

    def mark_planned(self, run_id: str, planner: str, now: float) -> bool:
        return self._write(lambda c: c.execute(
            "UPDATE runs SET planned = 1, state = CASE WHEN state = 'PENDING' THEN 'RUNNING'"
            " ELSE state END, updated_at = ? WHERE run_id = ? AND planner = ? AND planned = 0",
            (now, run_id, planner),
        ).rowcount == 1)

    def get_run(self, run_id: str) -> Run | None:
        row = self._read(
            lambda c: c.execute("SELECT * FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        )
        return Run.from_record(row) if row else None

    def list_runs(self) -> list[Run]:
        rows = self._read(lambda c: c.execute("SELECT * FROM runs ORDER BY run_id").fetchall())
        return [Run.from_record(row) for row in rows]

    def delete_run(self, run_id: str) -> bool:
        def tx(conn: sqlite3.Connection) -> bool:
            for table in ("units", "spend", "quarantine", "reservations", "finalizers"):
                conn.execute(f"DELETE FROM {table} WHERE run_id = ?", (run_id,))
            return conn.execute("DELETE FROM runs WHERE run_id = ?", (run_id,)).rowcount == 1

        return self._write(tx)

    def set_run_state(
        self, run_id: str, state: RunState, now: float, expected: Iterable[RunState] | None = None
    ) -> bool:
        allowed = [s.value for s in expected] if expected is not None else None

        def tx(conn: sqlite3.Connection) -> bool:
            row = conn.execute("SELECT state FROM runs WHERE run_id = ?", (run_id,)).fetchone()
            if row is None:
                raise RunNotFoundError(f"run '{run_id}' does not exist in {self.uri}")
            if row["state"] == state.value or (allowed is not None and row["state"] not in allowed):
                return False
            conn.execute(
                "UPDATE runs SET state = ?, updated_at = ? WHERE run_id = ?",
                (state.value, now, run_id),
            )
            return True

        return self._write(tx)

    # -- units ------------------------------------------------------------------------
    def claim_next_unit(
        self, run_id: str, owner: str, hint: int, lease_seconds: float, now: float
    ) -> Claim | None:
        def tx(conn: sqlite3.Connection) -> Claim | None:
            max_row = conn.execute(
                "SELECT max_attempts FROM runs WHERE run_id = ?", (run_id,)
            ).fetchone()
            if max_row is None:
                return None
            row = conn.execute(
                "SELECT idx, start, count, attempts, generation FROM units"
                " WHERE run_id = ? AND state = 'PENDING' AND idx >= ? ORDER BY idx LIMIT 1",
                (run_id, hint),
            ).fetchone() or conn.execute(
                "SELECT idx, start, count, attempts, generation FROM units"
                " WHERE run_id = ? AND state = 'PENDING' ORDER BY idx LIMIT 1",
                (run_id,),
            ).fetchone()
            if row is None:
                return None
            generation = row["generation"] + 1
            token = claim_token(owner, row["idx"], generation)
            expires = now + lease_seconds
            conn.execute(
                "UPDATE units SET state = 'RUNNING', attempts = attempts + 1, generation = ?,"
                " lease_owner = ?, lease_expires_at = ?, claimed_at = ?, worked_by = ?"
                " WHERE run_id = ? AND idx = ? AND state = 'PENDING'",
                (generation, token, expires, now, owner, run_id, row["idx"]),
            )
            return Claim(
                run_id=run_id, unit_index=row["idx"], start=row["start"], count=row["count"],
                token=token, attempts=row["attempts"] + 1, lease_expires_at=expires,
            )

        return self._write(tx)

    def _fenced(self, claim: Claim, sql: str, params: tuple[Any, ...]) -> bool:
        return self._write(lambda c: c.execute(
            sql + " WHERE run_id = ? AND idx = ? AND state = 'RUNNING' AND lease_owner = ?",
            (*params, claim.run_id, claim.unit_index, claim.token),
        ).rowcount == 1)

    def renew_lease(self, claim: Claim, lease_seconds: float, now: float) -> Claim | None:
        expires = now + lease_seconds
        if not self._fenced(claim, "UPDATE units SET lease_expires_at = ?", (expires,)):
            return None
        return Claim(**{**claim.__dict__, "lease_expires_at": expires})

    def complete_unit(self, claim: Claim, part_sha256: str, now: float) -> bool:
        return self._fenced(
            claim,
            "UPDATE units SET state = 'DONE', part_sha256 = ?, finished_at = ?,"
            " lease_owner = NULL, lease_expires_at = NULL, last_error = NULL",
            (part_sha256, now),
        )

    def fail_unit(self, claim: Claim, error: str, max_attempts: int, now: float) -> bool:
        return self._fenced(
            claim,
            f"UPDATE units SET state = {rules.sql_after_attempt('attempts', '?')},"
            f" finished_at = {rules.sql_if_final('attempts', '?', '?', 'finished_at')},"
            " last_error = ?, lease_owner = NULL, lease_expires_at = NULL",
            (max_attempts, max_attempts, now, rules.cut_error(error)),
        )

    def release_unit(self, claim: Claim, now: float) -> bool:
        return self._fenced(
            claim,
            "UPDATE units SET state = 'PENDING',"
            f" attempts = {rules.sql_released_attempts('attempts')},"
            " lease_owner = NULL, lease_expires_at = NULL",
            (),
        )

    def reclaim_expired_units(self, run_id: str, max_attempts: int, now: float) -> int:
        return self._write(lambda c: c.execute(
            _RECLAIM_SQL, {"run_id": run_id, "now": now, "max_attempts": max_attempts}
        ).rowcount)

    def running_units(self, run_id: str) -> list[Unit]:
        rows = self._read(lambda c: c.execute(
            "SELECT idx, start, count, attempts, lease_owner, lease_expires_at FROM units"
            " WHERE run_id = ? AND state = 'RUNNING' ORDER BY idx", (run_id,)).fetchall())
        return [Unit(run_id, r["idx"], r["start"], r["count"], UnitState.RUNNING,
                     attempts=r["attempts"], lease_owner=r["lease_owner"],
                     lease_expires_at=r["lease_expires_at"]) for r in rows]

    def reclaim_stale_units(
        self, run_id: str, stale: Iterable[Unit], max_attempts: int, now: float
    ) -> int:
        rows = [{"run_id": run_id, "idx": u.index, "seen": u.lease_expires_at,
                 "owner": u.lease_owner, "max_attempts": max_attempts, "now": now}
                for u in stale]
        if not rows:
            return 0
        return self._write(lambda c: c.executemany(_RECLAIM_STALE_SQL, rows).rowcount)

    def reset_failed_units(self, run_id: str, now: float) -> int:
        return self._write(lambda c: c.execute(
            "UPDATE units SET state = 'PENDING', attempts = 0, finished_at = NULL"
            " WHERE run_id = ? AND state = 'FAILED'",
            (run_id,),
        ).rowcount)

    def reopen_units(self, run_id: str, indexes: Iterable[int], reason: str, now: float) -> int:
        rows = [(rules.cut_error(reason), run_id, i) for i in indexes]
        return self._write(lambda c: c.executemany(
            "UPDATE units SET state = 'PENDING', attempts = 0, finished_at = NULL,"
            " part_sha256 = NULL, last_error = ? WHERE run_id = ? AND idx = ?"
            f" AND state IN {rules.sql_states(rules.REOPENABLE)}",
            rows,
        ).rowcount)

    def progress(self, run_id: str) -> Progress:
        rows = self._read(lambda c: c.execute(
            "SELECT state, COUNT(*) AS n FROM units WHERE run_id = ? GROUP BY state", (run_id,)
        ).fetchall())
        return Progress({UnitState(r["state"]): r["n"] for r in rows})

    def claim_finalizer(self, run_id: str, owner: str, lease_seconds: float, now: float
                        ) -> bool:
        return self._write(lambda c: c.execute(
            "INSERT INTO finalizers (run_id, owner, expires_at) VALUES (?, ?, ?)"
            " ON CONFLICT (run_id) DO UPDATE SET owner = excluded.owner,"
            " expires_at = excluded.expires_at"
            " WHERE finalizers.owner = excluded.owner OR finalizers.expires_at < ?",
            (run_id, owner, now + lease_seconds, now),
        ).rowcount == 1)

    def units(self, run_id: str) -> list[Unit]:
        rows = self._read(lambda c: c.execute(
            f"SELECT {_UNIT_COLUMNS} FROM units WHERE run_id = ? ORDER BY idx", (run_id,)
        ).fetchall())
        return [
            Unit(
                run_id=r["run_id"], index=r["idx"], start=r["start"], count=r["count"],
                state=UnitState(r["state"]), attempts=r["attempts"], generation=r["generation"],
                lease_owner=r["lease_owner"], lease_expires_at=r["lease_expires_at"],
                last_error=r["last_error"], claimed_at=r["claimed_at"],
                finished_at=r["finished_at"], part_sha256=r["part_sha256"],
                worked_by=r["worked_by"],
            )
            for r in rows
        ]

    # -- spend and quarantine ---------------------------------------------------------
    def add_spend(self, run_id: str, model: str, nano_dollars: int) -> None:
        def tx(conn: sqlite3.Connection) -> None:
            conn.executemany(
                "INSERT INTO spend (run_id, model, nano) VALUES (?, ?, ?)"
                " ON CONFLICT (run_id, model) DO UPDATE SET nano = nano + excluded.nano",
                [(run_id, model, int(nano_dollars)), (run_id, TOTAL_SPEND_KEY, int(nano_dollars))],
            )

        self._write(tx)

    def total_spend(self, run_id: str) -> int:
        row = self._read(lambda c: c.execute(
            "SELECT nano FROM spend WHERE run_id = ? AND model = ?", (run_id, TOTAL_SPEND_KEY)
        ).fetchone())
        return int(row["nano"]) if row else 0

    def spend_by_model(self, run_id: str) -> dict[str, int]:
        rows = self._read(lambda c: c.execute(
            "SELECT model, nano FROM spend WHERE run_id = ? AND model != ?",
            (run_id, TOTAL_SPEND_KEY),
        ).fetchall())
        return {r["model"]: int(r["nano"]) for r in rows}

    def quarantine_providers(self, run_id: str, providers: Iterable[str]) -> None:
        rows = [(run_id, p) for p in providers]
        self._write(lambda c: c.executemany(
            "INSERT OR IGNORE INTO quarantine (run_id, provider) VALUES (?, ?)", rows
        ))

    def quarantined_providers(self, run_id: str) -> set[str]:
        rows = self._read(lambda c: c.execute(
            "SELECT provider FROM quarantine WHERE run_id = ?", (run_id,)
        ).fetchall())
        return {r["provider"] for r in rows}

    # -- fleet budget -----------------------------------------------------------------
    def reserve_budget(
        self, run_id: str, reservation_id: str, nano: int, cap_nano: int, expires_at: float
    ) -> bool:
        """One ``BEGIN IMMEDIATE`` transaction: read spent + reserved, insert if it fits."""

        def tx(conn: sqlite3.Connection) -> bool:
            if conn.execute(
                "SELECT 1 FROM reservations WHERE run_id = ? AND rid = ?",
                (run_id, reservation_id),
            ).fetchone():
                return True
            spent = conn.execute(
                "SELECT COALESCE(SUM(nano), 0) FROM spend WHERE run_id = ? AND model = ?",
                (run_id, TOTAL_SPEND_KEY),
            ).fetchone()[0]
            reserved = conn.execute(
                "SELECT COALESCE(SUM(nano), 0) FROM reservations WHERE run_id = ?", (run_id,)
            ).fetchone()[0]
            if int(spent) + int(reserved) + int(nano) > int(cap_nano):
                return False
            conn.execute(
                "INSERT INTO reservations (run_id, rid, nano, expires_at) VALUES (?, ?, ?, ?)",
                (run_id, reservation_id, int(nano), expires_at),
            )
            return True

        return self._write(tx)

    def settle_reservation(
        self, run_id: str, reservation_id: str, spend: Mapping[str, int]
    ) -> bool:
        total = sum(int(v) for v in spend.values())
        rows = [(run_id, m, int(v)) for m, v in spend.items()] + [(run_id, TOTAL_SPEND_KEY, total)]

        def tx(conn: sqlite3.Connection) -> bool:
            held = conn.execute(
                "DELETE FROM reservations WHERE run_id = ? AND rid = ?", (run_id, reservation_id)
            ).rowcount == 1
            conn.executemany(
                "INSERT INTO spend (run_id, model, nano) VALUES (?, ?, ?)"
                " ON CONFLICT (run_id, model) DO UPDATE SET nano = nano + excluded.nano",
                rows,
            )
            return held

        return self._write(tx)

    def release_expired_reservations(self, run_id: str, now: float) -> int:
        return self._write(lambda c: c.execute(
            "DELETE FROM reservations WHERE run_id = ? AND expires_at < ?", (run_id, now)
        ).rowcount)

    def budget_state(self, run_id: str) -> BudgetState:
        def read(conn: sqlite3.Connection) -> BudgetState:
            spent = conn.execute(
                "SELECT COALESCE(SUM(nano), 0) FROM spend WHERE run_id = ? AND model = ?",
                (run_id, TOTAL_SPEND_KEY),
            ).fetchone()[0]
            row = conn.execute(
                "SELECT COALESCE(SUM(nano), 0), COUNT(*) FROM reservations WHERE run_id = ?",
                (run_id,),
            ).fetchone()
            return BudgetState(int(spent), int(row[0]), int(row[1]))

        return self._read(read)

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None



def open_sqlite_store(parsed: ParsedURI, *, create: bool = True) -> SQLiteStateStore:
    """Open ``sqlite:///relative/path`` or ``sqlite:////absolute/path`` (SQLAlchemy's
    convention). Raises :class:`ConfigError` for a URI with a host part or that names no
    file; with ``create=False``, :class:`RunNotFoundError` for a file that does not exist."""
    if parsed.netloc:
        raise ConfigError(
            f"state URI {parsed.raw!r} has a host part ({parsed.netloc!r}); SQLite is a local file",
            "use sqlite:///relative/state.db or sqlite:////absolute/state.db",
        )
    path = parsed.path[1:]
    if not path or path.endswith("/"):
        raise ConfigError(
            f"state URI {parsed.raw!r} names no database file",
            "use sqlite:///relative/state.db or sqlite:////absolute/state.db",
        )
    return SQLiteStateStore(path, create=create)
