"""The embedded default state store: one SQLite file shared by every local process.

Coordination here (:class:`SQLiteCoordination`), the ledger in :mod:`.ledger`, the
connection, schema and retry path in :mod:`.client`; :class:`SQLiteStateStore` is both.
Every write is one ``BEGIN IMMEDIATE`` transaction, so a claim's read-check-write is
atomic across processes. As on every backend, a claim never reclaims by comparing its own
clock with a lease's expiry (a task with a fast clock would steal live leases); an idle
worker reclaims a dead peer's unit once it has itself seen the lease go unrenewed for a
whole lease (:class:`docfleet.kernel.lease.LeaseWatch`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from typing import Any

from docfleet.core.errors import ConfigError, RunNotFoundError
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
from docfleet.state import codecs, rules
from docfleet.state.base import CreateResult, check_fingerprint
from docfleet.state.sqlite.client import SQLiteClient
from docfleet.state.sqlite.ledger import SQLiteLedger

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


class SQLiteCoordination(SQLiteClient):
    """:class:`~docfleet.state.base.CoordinationStore` over one SQLite file."""

    #: A claim picks and takes its unit inside one write lock: it never loses a race.
    lost_races = 0

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
                (spec.run_id, spec.record(), fingerprint,
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
        return self._write(lambda c: self._claim(c, run_id, owner, hint, lease_seconds, now))

    def complete_and_claim_next(self, claim: Claim, part_sha256: str, owner: str,
                                hint: int, lease_seconds: float, now: float
                                ) -> tuple[bool, Claim | None]:
        """``complete_unit`` and, only if it applied, ``claim_next_unit``, in one write
        transaction (``CompletesAndClaims``): one turn of the file's writer lock and one
        commit per unit instead of two. Nothing is answered over a network, so no retry
        meets a half-applied call: a transaction that did not commit changed nothing."""
        def tx(conn: sqlite3.Connection) -> tuple[bool, Claim | None]:
            if not self._complete(conn, claim, part_sha256, now):
                return False, None
            return True, self._claim(conn, claim.run_id, owner, hint, lease_seconds, now)

        return self._write(tx)

    @staticmethod
    def _claim(conn: sqlite3.Connection, run_id: str, owner: str, hint: int,
               lease_seconds: float, now: float) -> Claim | None:
        """The claim of :meth:`claim_next_unit`, inside the caller's transaction."""
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

    @staticmethod
    def _fenced_sql(conn: sqlite3.Connection, claim: Claim, sql: str,
                    params: tuple[Any, ...]) -> bool:
        return conn.execute(
            sql + " WHERE run_id = ? AND idx = ? AND state = 'RUNNING' AND lease_owner = ?",
            (*params, claim.run_id, claim.unit_index, claim.token),
        ).rowcount == 1

    def _fenced(self, claim: Claim, sql: str, params: tuple[Any, ...]) -> bool:
        return self._write(lambda c: self._fenced_sql(c, claim, sql, params))

    def renew_lease(self, claim: Claim, lease_seconds: float, now: float) -> Claim | None:
        expires = now + lease_seconds
        if not self._fenced(claim, "UPDATE units SET lease_expires_at = ?", (expires,)):
            return None
        return codecs.renewed(claim, expires)

    def complete_unit(self, claim: Claim, part_sha256: str, now: float) -> bool:
        return self._write(lambda c: self._complete(c, claim, part_sha256, now))

    @classmethod
    def _complete(cls, conn: sqlite3.Connection, claim: Claim, part_sha256: str,
                  now: float) -> bool:
        """The fenced completion of :meth:`complete_unit`, inside the caller's
        transaction."""
        return cls._fenced_sql(
            conn, claim,
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
        return [codecs.running_unit(run_id, r["idx"], start=r["start"], count=r["count"],
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
        return [codecs.unit_from_record(run_id, dict(r)) for r in rows]

class SQLiteStateStore(SQLiteCoordination, SQLiteLedger):
    """:class:`~docfleet.state.base.StateStore` over one SQLite file."""


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

