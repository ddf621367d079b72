"""The PostgreSQL state store: ``postgresql://USER@HOST:PORT/DB?schema=S`` (psycopg 3).

* **One clock.** Leases, plan heartbeats and reservation expiries are judged by the
  database's ``now()``, so writers' clock skew does not matter. The protocol's ``now``
  arguments are read *relative to the caller's own clock* (:func:`docfleet.core.clock.now`):
  the store works at ``db_now() + (now - clock.now())``, which is the database's clock for a
  live caller and keeps an explicit clock (the contract suite's) meaningful. Times handed
  back (claims, runs, units) are converted to the caller's clock the same way.
* **Claims** are one statement: ``SELECT … FOR UPDATE SKIP LOCKED`` from the task's hint
  (wrapping around), taking an expired lease first (reclaim inside the claim; a unit out of
  attempts goes FAILED in the same statement). A claim never waits on a peer's lock and
  never loses a race. Renew, complete, fail and release are conditional on the claim token.
  :meth:`PostgresStateStore.complete_and_claim_next` completes a unit and claims the next
  in one statement (one round trip, one commit: a pair used to be two of each), and
  :meth:`PostgresStateStore.complete_and_claim_units` does so for a batch: the K
  completions (fenced each on its own token, passed as arrays) and, only if all applied,
  up to K claims (expired leases first, then from the hint, each its own token, one
  stated expiry) in one statement, so short units cost one round trip and one commit per
  K (``bench/claims.py --batch``).
* **Ledger** (:mod:`.ledger`): the spend rollup per (run, model) and a per-run ``ledger``
  row (settled total and reserved sum). A reservation locks that row, so concurrent
  reservations serialise and spent + reserved never passes the cap.
* **Connections** (:mod:`.client`): one per task, plus one for the lease heartbeat
  (``renew_lease``), each opened lazily and re-opened after a drop. A transient error
  (connection refused or reset, server shutting down, deadlock, serialisation failure, a
  timeout below) is retried bounded and jittered (:mod:`docfleet.state.calls`) for
  ``retry_seconds``, then
  :class:`StoreUnavailableError` (exit 4).
* **Timeouts**, so that a stopped server (SIGSTOP, a frozen VM: the kernel still accepts
  and acknowledges, nobody answers) never hangs a task: a connect timeout; TCP
  keepalives; on the server ``statement_timeout``, ``lock_timeout`` and
  ``idle_in_transaction_session_timeout`` (``?statement_timeout=SECONDS``, default
  :data:`DEFAULT_STATEMENT_TIMEOUT`); and on the client a watchdog that shuts the socket
  of a statement left unanswered past that timeout (+ :data:`ANSWER_MARGIN`), capped by
  what is left of the retry window. A statement whose answer was lost may still have been
  applied when the server resumes: a completion retried after a lost answer counts its
  own applied completion, and a claim retried after one returns the units the lost attempt
  took (found by their exact stated expiry) instead of leaving them RUNNING for a lease;
  a batch is never claimed twice.
* **Schema** (:mod:`.schema`) ``S`` (default ``docfleet``) is created at first use under an
  advisory lock, idempotently, and versioned in ``S.meta`` (:data:`SCHEMA_VERSION`,
  :data:`MIGRATIONS`).
* **Idle waiting**: transitions that put work back in the pool ``NOTIFY`` the schema's
  channel; :meth:`PostgresStateStore.wait_for_work` ``LISTEN``s instead of sleeping.

The password comes from the URI, ``PGPASSWORD`` or ``~/.pgpass`` (libpq's rules) and never
appears in :attr:`PostgresStateStore.uri`, logs or errors.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

from docfleet.core import clock
from docfleet.core.durations import uri_seconds
from docfleet.core.errors import ConfigError, RunNotFoundError
from docfleet.core.models import Claim, Progress, Run, RunSpec, RunState, Unit, UnitState
from docfleet.core.uris import ParsedURI
from docfleet.state import codecs, rules
from docfleet.state.base import CreateResult, check_fingerprint
from docfleet.state.codecs import claim_from_row as _claim_from_row
from docfleet.state.postgres.client import DB_NOW as _DB_NOW
from docfleet.state.postgres.client import Connection, PostgresClient
from docfleet.state.postgres.ledger import PostgresLedger
from docfleet.state.postgres.schema import DEFAULT_SCHEMA, SCHEMA_VERSION

__all__ = ["SCHEMA_VERSION", "PostgresStateStore", "display_uri", "open_postgres_store"]

#: Query parameters that are docfleet's, not libpq's.
_OWN_PARAMS = ("schema", "retry_seconds", "statement_timeout")
# The unit transition rules (docfleet.state.rules) as this dialect's SQL.
_FINAL = rules.sql_is_final_attempt("e.attempts", "run.max_attempts")
_AFTER = rules.sql_after_attempt("u.attempts", "%(max)s")
_EXPIRED_ERROR = rules.sql_if_final("u.attempts", "%(max)s", rules.sql_lease_expired_error(
    "u.attempts", "u.lease_owner"), "u.last_error")
_STALE_ERROR = rules.sql_if_final("u.attempts", "%(max)s", rules.sql_lease_expired_error(
    "u.attempts", "u.lease_owner", not_renewed=True), "u.last_error")


def _complete_set(sha: str) -> str:
    """The completion as a fenced SET, its part from the SQL expression ``sha``."""
    return (f"state = 'DONE', part_sha256 = {sha}, finished_at = {_DB_NOW} + %(now)s,"
            " lease_owner = NULL, lease_expires_at = NULL, lease_deadline = NULL,"
            " last_error = NULL")


#: complete_unit's SET
_COMPLETE_SET = _complete_set("%(sha)s")


def _claim_statement(completions: str = "") -> str:
    """The claim (see the module docstring): one statement, never waits on a lock.

    Plain (``""``), it claims one unit and returns its row (``idx, start, count,
    attempts, token``) or none. With ``"one"`` it first completes the unit ``%(idx)s``
    fenced on ``%(token)s``, claims only if that completion applied (never the unit it
    completed) and returns one row: the completions applied (0 or 1) and the claim's
    columns (NULL when nothing was claimed). With ``"batch"`` it first completes each
    unit of the arrays ``%(idxs)s``, ``%(tokens)s``, ``%(shas)s``, fenced on its token,
    and claims up to ``%(want)s`` units only if every completion applied (never a unit of
    the batch); it returns one row per claim, in the order claimed (expired leases by
    deadline, then PENDING units from the hint upwards, then below it), each led by the
    tokens whose completion applied; a single row with NULL claim columns when nothing
    was claimed. (``"one"`` is ``"batch"`` of one completion and ``want = 1`` without the
    arrays: those cost the client ~40 µs of CPU a call, most of a one-unit call's.)"""
    done, only, other, limit = "", "", "", "1"
    if completions == "one":
        done = (f"done AS (UPDATE units SET {_COMPLETE_SET} WHERE run_id = %(run)s"
                " AND idx = %(idx)s AND state = 'RUNNING' AND lease_owner = %(token)s"
                " RETURNING idx),")
        only = " AND EXISTS (SELECT 1 FROM done)"
        other = " AND e.idx <> %(idx)s"
    elif completions == "batch":
        done = (f"done AS (UPDATE units u SET {_complete_set('c.sha')}"
                " FROM unnest(%(idxs)s::int[], %(tokens)s::text[], %(shas)s::text[])"
                " AS c(idx, token, sha) WHERE u.run_id = %(run)s"
                " AND u.idx = ANY(%(idxs)s::int[]) AND u.idx = c.idx"
                " AND u.state = 'RUNNING' AND u.lease_owner = c.token RETURNING c.token),")
        # a repeated completion applies once, so it too keeps the batch from claiming
        only = " AND %(want)s > 0 AND (SELECT count(*) FROM done) = cardinality(%(idxs)s::int[])"
        other = " AND e.idx <> ALL(%(idxs)s::int[])"
        limit = "%(want)s"
    claim = f"""
WITH {done}
run AS (SELECT max_attempts FROM runs WHERE run_id = %(run)s),
t AS (SELECT {_DB_NOW} + %(now)s AS now),
spent AS (
    SELECT e.idx FROM units e, run, t
    WHERE e.run_id = %(run)s AND e.state = 'RUNNING'
      AND e.lease_deadline < {_DB_NOW} + %(now)s
      AND {_FINAL}{other}{only}
    FOR UPDATE OF e SKIP LOCKED
),
failed AS (
    UPDATE units u SET state = 'FAILED',
        last_error = {rules.sql_lease_expired_error("u.attempts", "u.lease_owner")},
        finished_at = t.now, lease_owner = NULL, lease_expires_at = NULL, lease_deadline = NULL
    FROM spent, t WHERE u.run_id = %(run)s AND u.idx = spent.idx
),
expired AS (
    SELECT e.idx, e.lease_deadline FROM units e, run, t
    WHERE e.run_id = %(run)s AND e.state = 'RUNNING'
      AND e.lease_deadline < {_DB_NOW} + %(now)s
      AND NOT ({_FINAL}){other}{only}
    ORDER BY e.lease_deadline LIMIT {limit} FOR UPDATE OF e SKIP LOCKED
),
above AS (
    SELECT idx FROM units WHERE run_id = %(run)s AND state = 'PENDING' AND idx >= %(hint)s{only}
    ORDER BY idx LIMIT {limit} FOR UPDATE SKIP LOCKED
),
below AS (
    SELECT idx FROM units WHERE run_id = %(run)s AND state = 'PENDING' AND idx < %(hint)s{only}
    ORDER BY idx LIMIT {limit} FOR UPDATE SKIP LOCKED
),
pick AS (
    SELECT idx, 0 AS k, lease_deadline AS o FROM expired
    UNION ALL SELECT idx, 1, idx::float8 FROM above
    UNION ALL SELECT idx, 2, idx::float8 FROM below
    LIMIT {limit}
)"""
    claimed = """UPDATE units u SET state = 'RUNNING', attempts = u.attempts + 1,
    generation = u.generation + 1,
    lease_owner = %(owner)s || '#u' || u.idx || '.g' || (u.generation + 1),
    lease_expires_at = %(stated)s, lease_deadline = t.now + %(lease)s, claimed_at = t.now,
    worked_by = %(owner)s
FROM pick, t, run
WHERE u.run_id = %(run)s AND u.idx = pick.idx
RETURNING u.idx, u.start, u.count, u.attempts, u.lease_owner"""
    if not completions:
        return f"{claim}\n{claimed}\n"
    if completions == "batch":
        # an attempt is spent when work starts: only the batch's first claim (worked at
        # once) is charged here; the units claimed ahead are charged by start_unit
        claim += (",\nranked AS (SELECT idx, k, o, row_number() OVER (ORDER BY k, o) AS r"
                  " FROM pick)")
        claimed = (claimed.replace("attempts = u.attempts + 1",
                                   "attempts = u.attempts + (pick.r = 1)::int")
                   .replace("FROM pick, t, run", "FROM ranked pick, t, run"))
        return (f"{claim},\nclaimed AS ({claimed}, pick.k, pick.o, pick.r)\n"
                "SELECT d.tokens, c.idx, c.start, c.count, c.attempts, c.lease_owner, c.r"
                " FROM (SELECT array_agg(token) AS tokens FROM done) d"
                " LEFT JOIN claimed c ON true ORDER BY c.k, c.o\n")
    if completions == "one":
        return (f"{claim},\nclaimed AS ({claimed})\n"
                "SELECT d.n, c.idx, c.start, c.count, c.attempts, c.lease_owner"
                " FROM (SELECT count(*) AS n FROM done) d LEFT JOIN claimed c ON true\n")
    raise ValueError(f"unknown claim statement {completions!r}")


_CLAIM_SQL = _claim_statement()
#: complete_and_claim_next: the completion and the next claim in one statement.
_COMPLETE_AND_CLAIM_SQL = _claim_statement("one")
#: complete_and_claim_units: a batch of completions and the next claims in one statement.
_COMPLETE_AND_CLAIM_UNITS_SQL = _claim_statement("batch")


def _first_of(tokens: list[str], hit: Iterable[str]) -> list[bool]:
    """Per token, whether it is in ``hit`` and not an earlier token's repeat (a completion
    given twice applies once, as two calls of ``complete_unit`` would)."""
    found, seen, flags = set(hit), set(), []
    for token in tokens:
        flags.append(token in found and token not in seen)
        seen.add(token)
    return flags


# Claims retried after a lost answer: the lost attempt, applied when the server resumed,
# is known by its exact stated expiry (the same float in every attempt of one call). In
# the order a claim from the hint takes them.
_OWN_CLAIM_SQL = """
SELECT idx, start, count, attempts, lease_owner FROM units
WHERE run_id = %(run)s AND state = 'RUNNING' AND worked_by = %(owner)s
  AND lease_expires_at = %(stated)s
ORDER BY idx < %(hint)s, idx
"""

_RECLAIM_SQL = f"""
WITH t AS (SELECT {_DB_NOW} + %(now)s AS now),
e AS (
    SELECT x.idx FROM units x, t
    WHERE x.run_id = %(run)s AND x.state = 'RUNNING' AND x.lease_deadline < t.now
    FOR UPDATE OF x SKIP LOCKED
)
UPDATE units u SET
    state = {_AFTER},
    last_error = {_EXPIRED_ERROR},
    finished_at = {rules.sql_if_final("u.attempts", "%(max)s", "t.now", "u.finished_at")},
    lease_owner = NULL, lease_expires_at = NULL, lease_deadline = NULL
FROM e, t WHERE u.run_id = %(run)s AND u.idx = e.idx
RETURNING u.state
"""

#: A claim token: ``OWNER#uIDX.gGENERATION`` (the claim statement writes it).
_TOKEN = re.compile(r"^(.*)#u\d+\.g(\d+)$")

_FENCE = (" WHERE run_id = %(run)s AND idx = %(idx)s AND state = 'RUNNING'"
          " AND lease_owner = %(token)s")

#: start_unit: a batch's finished units recorded and the next unit's attempt spent.
_START_SQL = f"""
WITH done AS (UPDATE units u SET {_complete_set('c.sha')}
    FROM unnest(%(idxs)s::int[], %(tokens)s::text[], %(shas)s::text[]) AS c(idx, token, sha)
    WHERE u.run_id = %(run)s AND u.idx = ANY(%(idxs)s::int[]) AND u.idx = c.idx
      AND u.state = 'RUNNING' AND u.lease_owner = c.token RETURNING c.token),
started AS (UPDATE units SET attempts = %(charged)s{_FENCE} RETURNING idx)
SELECT (SELECT array_agg(token) FROM done), (SELECT count(*) FROM started)
"""

# Times read back are shifted to the caller's clock: column - db now (+ local, in Python).
_RUN_SELECT = f"""
SELECT run_id, params, fingerprint, state, planned, planner,
    plan_heartbeat - {_DB_NOW} AS plan_heartbeat, created_at - {_DB_NOW} AS created_at,
    updated_at - {_DB_NOW} AS updated_at
FROM runs WHERE run_id = %s
"""
_UNIT_SELECT = f"""
SELECT run_id, idx, start, count, state, attempts, generation, lease_owner,
    lease_expires_at, last_error,
    claimed_at - {_DB_NOW} AS claimed_at, finished_at - {_DB_NOW} AS finished_at,
    part_sha256, worked_by
FROM units WHERE run_id = %s ORDER BY idx
"""


class PostgresCoordination(PostgresClient):
    """:class:`~docfleet.state.base.CoordinationStore` over one PostgreSQL schema."""

    #: A claim skips locked rows instead of racing for them: it never loses a race.
    lost_races = 0

    # -- runs -------------------------------------------------------------------------
    def _run_from_row(self, row: Any, local: float) -> Run:
        record = dict(zip(("run_id", "params", "fingerprint", "state", "planned", "planner",
                           "plan_heartbeat", "created_at", "updated_at"), row, strict=True))
        for key in ("plan_heartbeat", "created_at", "updated_at"):
            record[key] = float(record[key]) + local
        return Run.from_record(record)

    def _get_run(self, conn: Any, run_id: str) -> Run | None:
        local = clock.now()
        row = conn.execute(_RUN_SELECT, (run_id,)).fetchone()
        return self._run_from_row(row, local) if row else None

    def create_run(self, spec: RunSpec, planner: str, now: float) -> CreateResult:
        params = spec.record()

        def body(conn: Any) -> CreateResult:
            won = conn.execute(
                "INSERT INTO runs (run_id, params, fingerprint, max_attempts, state, planned,"
                " planner, plan_heartbeat, created_at, updated_at)"
                f" SELECT %(run)s, %(params)s, %(fp)s, %(max)s, %(state)s, false, %(planner)s,"
                f" t, t, t FROM (SELECT {_DB_NOW} + %(now)s AS t) x"
                " ON CONFLICT (run_id) DO NOTHING RETURNING 1",
                {"run": spec.run_id, "params": params, "fp": spec.fingerprint(),
                 "max": spec.max_attempts, "state": RunState.PENDING.value,
                 "planner": planner, "now": self._at(now)},
            ).fetchone() is not None
            run = self._get_run(conn, spec.run_id)
            assert run is not None
            if not won:
                check_fingerprint(run, spec)
            return CreateResult(won, run)

        return self._run("create_run", body)

    def take_over_plan(self, run_id: str, planner: str, stale_before: float, now: float) -> bool:
        return self._run("take_over_plan", lambda c: c.execute(
            f"UPDATE runs SET planner = %(p)s, plan_heartbeat = {_DB_NOW} + %(now)s,"
            f" updated_at = {_DB_NOW} + %(now)s"
            f" WHERE run_id = %(run)s AND NOT planned AND plan_heartbeat < {_DB_NOW} + %(stale)s",
            {"p": planner, "now": self._at(now), "run": run_id, "stale": self._at(stale_before)},
        ).rowcount == 1)

    def touch_plan(self, run_id: str, planner: str, now: float) -> bool:
        return self._run("touch_plan", lambda c: c.execute(
            f"UPDATE runs SET plan_heartbeat = {_DB_NOW} + %(now)s"
            " WHERE run_id = %(run)s AND planner = %(p)s AND NOT planned",
            {"now": self._at(now), "run": run_id, "p": planner},
        ).rowcount == 1)

    def put_units(self, run_id: str, units: Iterable[Unit]) -> None:
        rows = [(u.index, u.start, u.count) for u in units]
        if not rows:
            return
        idx, start, count = (list(col) for col in zip(*rows, strict=True))
        self._run("put_units", lambda c: c.execute(
            "INSERT INTO units (run_id, idx, start, count, state)"
            " SELECT %s, i, s, n, 'PENDING' FROM unnest(%s::int[], %s::bigint[], %s::int[])"
            " AS x(i, s, n) ORDER BY i ON CONFLICT (run_id, idx) DO NOTHING",
            (run_id, idx, start, count),
        ))

    def mark_planned(self, run_id: str, planner: str, now: float) -> bool:
        def body(conn: Any) -> bool:
            ok = conn.execute(
                "UPDATE runs SET planned = true, state = CASE WHEN state = 'PENDING'"
                f" THEN 'RUNNING' ELSE state END, updated_at = {_DB_NOW} + %(now)s"
                " WHERE run_id = %(run)s AND planner = %(p)s AND NOT planned",
                {"now": self._at(now), "run": run_id, "p": planner},
            ).rowcount == 1
            if ok:
                self._notify(conn, run_id)
            return ok

        return self._run("mark_planned", body)

    def get_run(self, run_id: str) -> Run | None:
        return self._run("get_run", lambda c: self._get_run(c, run_id))

    def set_run_state(
        self, run_id: str, state: RunState, now: float, expected: Iterable[RunState] | None = None
    ) -> bool:
        allowed = [s.value for s in expected] if expected is not None else None

        def body(conn: Any) -> bool:
            changed = conn.execute(
                f"UPDATE runs SET state = %(state)s, updated_at = {_DB_NOW} + %(now)s"
                " WHERE run_id = %(run)s AND state <> %(state)s"
                " AND (%(allowed)s::text[] IS NULL OR state = ANY(%(allowed)s::text[]))",
                {"state": state.value, "now": self._at(now), "run": run_id,
                 "allowed": allowed},
            ).rowcount == 1
            if not changed and conn.execute(
                "SELECT 1 FROM runs WHERE run_id = %s", (run_id,)
            ).fetchone() is None:
                raise RunNotFoundError(f"run '{run_id}' does not exist in {self.uri}")
            return changed

        return self._run("set_run_state", body)

    # -- units ------------------------------------------------------------------------
    def claim_next_unit(
        self, run_id: str, owner: str, hint: int, lease_seconds: float, now: float
    ) -> Claim | None:
        params = {"run": run_id, "owner": owner, "hint": hint, "lease": float(lease_seconds),
                  "now": self._at(now), "stated": now + lease_seconds}
        tried: list[bool] = []

        def body(conn: Any) -> Any:
            if tried:  # an attempt failed: its claim may have been applied all the same
                row = conn.execute(_OWN_CLAIM_SQL, params).fetchone()
                if row is not None:
                    return row
            tried.append(True)
            return conn.execute(_CLAIM_SQL, params).fetchone()

        return _claim_from_row(run_id, self._run("claim_next_unit", body), now + lease_seconds)

    def _fenced(self, op: str, claim: Claim, set_sql: str, params: dict[str, Any],
                holder: Connection | None = None, notify: str | None = None,
                applied: Callable[[Any], bool] | None = None) -> bool:
        """One fenced update. Refused on an attempt after a failed one, ``applied``
        says whether the failed attempt had in fact gone through."""
        values = {**params, "run": claim.run_id, "idx": claim.unit_index,
                  "token": claim.token}
        returning = f" RETURNING {notify}" if notify else ""
        tried: list[bool] = []

        def body(conn: Any) -> bool:
            retry = bool(tried)
            tried.append(True)
            row = conn.execute(f"UPDATE units SET {set_sql}{_FENCE}{returning}",
                               values)
            if row.rowcount != 1:
                return retry and applied is not None and applied(conn)
            if notify and row.fetchone()[0]:
                self._notify(conn, claim.run_id)
            return True

        return self._call(op, holder or self._main, body)

    def renew_lease(self, claim: Claim, lease_seconds: float, now: float) -> Claim | None:
        """Fenced; runs on the heartbeat's own connection."""
        if not self._fenced("renew_lease", claim,
                            f"lease_expires_at = %(stated)s,"
                            f" lease_deadline = {_DB_NOW} + %(now)s + %(lease)s",
                            {"now": self._at(now), "lease": float(lease_seconds),
                             "stated": now + lease_seconds},
                            holder=self._beat):
            return None
        return codecs.renewed(claim, now + lease_seconds)

    @staticmethod
    def _completed_by(conn: Any, completions: list[tuple[Claim, str]]) -> list[bool]:
        """Per completion, whether its claim itself completed its unit with this part (DONE
        by the claim's generation and owner): a lost answer's completion, found on the
        retry. One query for the lot."""
        if not completions:
            return []
        marks = [_TOKEN.match(claim.token) for claim, _ in completions]
        hit = {row[0] for row in conn.execute(
            "SELECT c.token FROM unnest(%(idxs)s::int[], %(tokens)s::text[], %(shas)s::text[],"
            " %(gens)s::int[], %(owners)s::text[]) AS c(idx, token, sha, gen, owner)"
            " JOIN units u ON u.run_id = %(run)s AND u.idx = c.idx"
            " WHERE u.state = 'DONE' AND u.part_sha256 = c.sha AND u.generation = c.gen"
            " AND u.worked_by = c.owner",
            {"run": completions[0][0].run_id,
             "idxs": [claim.unit_index for claim, _ in completions],
             "tokens": [claim.token for claim, _ in completions],
             "shas": [sha for _, sha in completions],
             "gens": [int(m.group(2)) if m else None for m in marks],
             "owners": [m.group(1) if m else None for m in marks]}).fetchall()}
        return _first_of([claim.token for claim, _ in completions], hit)

    def complete_unit(self, claim: Claim, part_sha256: str, now: float) -> bool:
        """Fenced, once. An attempt retried after a lost answer also counts the claim's
        own completion that the lost attempt applied (DONE by this claim's generation
        and owner, with this part)."""
        return self._fenced(
            "complete_unit", claim, _COMPLETE_SET, {"sha": part_sha256, "now": self._at(now)},
            applied=lambda conn: self._completed_by(conn, [(claim, part_sha256)])[0],
        )

    def complete_and_claim_units(self, run_id: str, completions: Sequence[tuple[Claim, str]],
                                 owner: str, hint: int, want: int, lease_seconds: float,
                                 now: float) -> tuple[list[bool], list[Claim]]:
        """Each completion of ``completions`` (fenced on its own token) and then, only if
        every one applied, a claim of up to ``want`` units, in ONE statement (one round
        trip, one commit): see :class:`docfleet.state.optional.CompletesAndClaimsUnits`.
        The claims are made as :meth:`claim_next_unit` makes one (expired leases first,
        then PENDING from ``hint`` upwards, then below), each with its own token and the
        stated expiry ``now + lease_seconds``, in the order claimed. A retry after a lost
        answer first looks for the lost attempt's claims (by their stated expiry: then
        every completion applied too, in the same statement; in the order from the hint),
        then for its completions alone (then, if all applied, it claims by itself), else
        it runs the statement again: it never claims a second batch. Raises
        ``ValueError`` for a completion of another run."""
        done = list(completions)
        if any(claim.run_id != run_id for claim, _ in done):
            raise ValueError(f"complete_and_claim_units: every completion must be of run "
                             f"'{run_id}' (one call per run)")
        want = max(0, int(want))
        tokens = [claim.token for claim, _ in done]
        params = {"run": run_id, "idxs": [claim.unit_index for claim, _ in done],
                  "tokens": tokens, "shas": [sha for _, sha in done], "owner": owner,
                  "hint": hint, "want": want, "lease": float(lease_seconds),
                  "now": self._at(now), "stated": now + lease_seconds}
        tried: list[bool] = []

        def statement(conn: Any, values: dict[str, Any]) -> tuple[list[bool], list[Any]]:
            rows = conn.execute(_COMPLETE_AND_CLAIM_UNITS_SQL, values).fetchall()
            return (_first_of(values["tokens"], rows[0][0] or []),
                    [row[1:] for row in rows if row[1] is not None])

        def body(conn: Any) -> tuple[list[bool], list[Any]]:
            if tried:  # an attempt failed: it may have been applied all the same
                rows = conn.execute(_OWN_CLAIM_SQL, params).fetchall()
                if rows:
                    return [True] * len(done), rows
                applied = self._completed_by(conn, done)
                if any(applied):
                    if not all(applied) or not want:
                        return applied, []
                    plain = {**params, "idxs": [], "tokens": [], "shas": []}
                    return applied, statement(conn, plain)[1]
            tried.append(True)
            return statement(conn, params)

        applied, rows = self._run("complete_and_claim_units", body)
        expires = now + lease_seconds
        claims = []
        for row in rows:
            claim = _claim_from_row(run_id, row[:5], expires)
            if claim is not None:
                # the statement says which claim it charged (the first); a lost answer's
                # claims found on the retry are all taken as uncharged: start_unit may
                # then charge the first twice (rare: only after a lost answer), never none
                claims.append(replace(claim, charged=len(row) > 5 and row[5] == 1))
        return applied, claims

    def start_unit(self, claim: Claim, now: float,
                   completions: Sequence[tuple[Claim, str]] = ()
                   ) -> tuple[list[bool], Claim | None]:
        """Spend the attempt of a unit claimed ahead (``claim.charged`` false) as work on
        it starts, and record the batch's finished units ``completions``, in ONE
        statement: each completion fenced on its own token, the start fenced on
        ``claim``'s with ``attempts = claim.attempts + 1`` (so a retry after a lost answer
        charges once; its completions are found as ``complete_unit`` finds them). The
        claim, charged, or ``None`` if its unit is no longer this claim's. See
        :class:`docfleet.state.optional.StartsUnits`."""
        done = list(completions)
        tokens = [c.token for c, _ in done]
        charged = claim.attempts + (0 if claim.charged else 1)
        params = {"run": claim.run_id, "idx": claim.unit_index, "token": claim.token,
                  "charged": charged, "now": self._at(now),
                  "idxs": [c.unit_index for c, _ in done], "tokens": tokens,
                  "shas": [sha for _, sha in done]}
        tried: list[bool] = []

        def body(conn: Any) -> tuple[list[bool], bool]:
            retry = bool(tried)
            tried.append(True)
            hit, started = conn.execute(_START_SQL, params).fetchone()
            applied = _first_of(tokens, hit or [])
            if retry and not all(applied):  # a lost answer's completions applied then
                before = self._completed_by(conn, [d for d, ok in zip(done, applied,
                                                                       strict=True) if not ok])
                it = iter(before)
                applied = [ok or next(it) for ok in applied]
            return applied, started == 1

        applied, started = self._run("start_unit", body)
        return applied, (replace(claim, attempts=charged, charged=True) if started else None)

    def complete_and_claim_next(self, claim: Claim, part_sha256: str, owner: str, hint: int,
                                lease_seconds: float, now: float
                                ) -> tuple[bool, Claim | None]:
        """:meth:`complete_unit` and, only if it applied, :meth:`claim_next_unit`, in one
        statement (one round trip, one commit): see
        :class:`docfleet.state.optional.CompletesAndClaims`; the same outcome as
        :meth:`complete_and_claim_units` of this one completion and ``want = 1``, by the
        same statement without arrays. A retry after a lost answer first looks for the
        lost attempt's claim (by its stated expiry: then the completion applied too, in
        the same statement), then for its completion alone (then it claims by itself),
        else it runs the statement again."""
        params = {"run": claim.run_id, "idx": claim.unit_index, "token": claim.token,
                  "sha": part_sha256, "owner": owner, "hint": hint,
                  "lease": float(lease_seconds), "now": self._at(now),
                  "stated": now + lease_seconds}
        tried: list[bool] = []

        def body(conn: Any) -> tuple[bool, Any]:
            if tried:  # an attempt failed: it may have been applied all the same
                row = conn.execute(_OWN_CLAIM_SQL, params).fetchone()
                if row is not None:
                    return True, row
                if self._completed_by(conn, [(claim, part_sha256)])[0]:
                    return True, conn.execute(_CLAIM_SQL, params).fetchone()
            tried.append(True)
            n, *row = conn.execute(_COMPLETE_AND_CLAIM_SQL, params).fetchone()
            return n == 1, (row if row[0] is not None else None)

        completed, row = self._run("complete_and_claim_next", body)
        return completed, _claim_from_row(claim.run_id, row, now + lease_seconds)

    def fail_unit(self, claim: Claim, error: str, max_attempts: int, now: float) -> bool:
        return self._fenced(
            "fail_unit", claim,
            f"state = {rules.sql_after_attempt('attempts', '%(max)s')},"
            " finished_at = "
            f"{rules.sql_if_final('attempts', '%(max)s', _DB_NOW + ' + %(now)s', 'finished_at')},"
            " last_error = %(error)s, lease_owner = NULL, lease_expires_at = NULL,"
            " lease_deadline = NULL",
            {"max": max_attempts, "now": self._at(now), "error": rules.cut_error(error)},
            notify="state = 'PENDING'",
        )

    def release_unit(self, claim: Claim, now: float) -> bool:
        # a unit claimed ahead and never started spent no attempt: nothing to give back
        attempts = (rules.sql_released_attempts("attempts", "GREATEST") if claim.charged
                    else "attempts")
        return self._fenced(
            "release_unit", claim,
            f"state = 'PENDING', attempts = {attempts},"
            " lease_owner = NULL, lease_expires_at = NULL, lease_deadline = NULL",
            {}, notify="true",
        )

    def reclaim_expired_units(self, run_id: str, max_attempts: int, now: float) -> int:
        def body(conn: Any) -> int:
            states = [r[0] for r in conn.execute(_RECLAIM_SQL, {
                "run": run_id, "now": self._at(now), "max": max_attempts}).fetchall()]
            if UnitState.PENDING.value in states:
                self._notify(conn, run_id)
            return len(states)

        return self._run("reclaim_expired_units", body)

    def reset_failed_units(self, run_id: str, now: float) -> int:
        def body(conn: Any) -> int:
            n = conn.execute(
                "UPDATE units SET state = 'PENDING', attempts = 0, finished_at = NULL"
                " WHERE run_id = %s AND state = 'FAILED'", (run_id,)).rowcount
            if n:
                self._notify(conn, run_id)
            return int(n)

        return self._run("reset_failed_units", body)

    def reopen_units(self, run_id: str, indexes: Iterable[int], reason: str, now: float) -> int:
        wanted = sorted({int(i) for i in indexes})

        def body(conn: Any) -> int:
            n = conn.execute(
                "UPDATE units SET state = 'PENDING', attempts = 0, finished_at = NULL,"
                " part_sha256 = NULL, last_error = %s WHERE run_id = %s"
                f" AND idx = ANY(%s::int[]) AND state IN {rules.sql_states(rules.REOPENABLE)}",
                (rules.cut_error(reason), run_id, wanted)).rowcount
            if n:
                self._notify(conn, run_id)
            return int(n)

        return self._run("reopen_units", body)

    def running_units(self, run_id: str) -> list[Unit]:
        """RUNNING units with their lease as stored (the writer's stated expiry: it changes
        with every renewal)."""
        rows = self._run("running_units", lambda c: c.execute(
            "SELECT idx, start, count, attempts, lease_owner, lease_expires_at FROM units"
            " WHERE run_id = %s AND state = 'RUNNING' ORDER BY idx", (run_id,)).fetchall())
        return [codecs.running_unit(run_id, r[0], start=r[1], count=r[2], attempts=r[3],
                                    lease_owner=r[4], lease_expires_at=r[5]) for r in rows]

    def reclaim_stale_units(
        self, run_id: str, stale: Iterable[Unit], max_attempts: int, now: float
    ) -> int:
        """One conditional statement for all of ``stale``: each unit moves only if it still
        holds the very lease observed (same stated expiry and, when given, owner)."""
        units = list(stale)
        if not units:
            return 0

        def body(conn: Any) -> int:
            states = [r[0] for r in conn.execute(
                f"""WITH t AS (SELECT {_DB_NOW} + %(now)s AS now)
                UPDATE units u SET
                    state = {_AFTER},
                    last_error = {_STALE_ERROR},
                    finished_at = {rules.sql_if_final("u.attempts", "%(max)s", "t.now",
                                                      "u.finished_at")},
                    lease_owner = NULL, lease_expires_at = NULL, lease_deadline = NULL
                FROM t, unnest(%(idx)s::int[], %(seen)s::float8[], %(owner)s::text[])
                    AS s(idx, seen, owner)
                WHERE u.run_id = %(run)s AND u.idx = s.idx AND u.state = 'RUNNING'
                  AND u.lease_expires_at = s.seen
                  AND (s.owner IS NULL OR u.lease_owner = s.owner)
                RETURNING u.state""",
                {"now": self._at(now), "max": max_attempts, "run": run_id,
                 "idx": [u.index for u in units],
                 "seen": [u.lease_expires_at for u in units],
                 "owner": [u.lease_owner for u in units]}).fetchall()]
            if UnitState.PENDING.value in states:
                self._notify(conn, run_id)
            return len(states)

        return self._run("reclaim_stale_units", body)

    def claim_finalizer(self, run_id: str, owner: str, lease_seconds: float, now: float
                        ) -> bool:
        """One upsert, its lease on the database's clock."""
        return self._run("claim_finalizer", lambda c: c.execute(
            f"INSERT INTO finalizers AS f (run_id, owner, expires_at)"
            f" VALUES (%(run)s, %(owner)s, {_DB_NOW} + %(now)s + %(lease)s)"
            " ON CONFLICT (run_id) DO UPDATE SET owner = excluded.owner,"
            " expires_at = excluded.expires_at"
            f" WHERE f.owner = excluded.owner OR f.expires_at < {_DB_NOW} + %(now)s",
            {"run": run_id, "owner": owner, "now": self._at(now),
             "lease": float(lease_seconds)}).rowcount == 1)

    def progress(self, run_id: str) -> Progress:
        rows = self._run("progress", lambda c: c.execute(
            "SELECT state, count(*) FROM units WHERE run_id = %s GROUP BY state", (run_id,)
        ).fetchall())
        return Progress({UnitState(state): int(n) for state, n in rows})

    def units(self, run_id: str) -> list[Unit]:
        def body(conn: Any) -> tuple[float, list[Any]]:
            local = clock.now()
            return local, conn.execute(_UNIT_SELECT, (run_id,)).fetchall()

        local, rows = self._run("units", body)

        def shift(value: float | None) -> float | None:
            return None if value is None else float(value) + local

        return [codecs.unit_from_record(run_id, dict(zip(codecs.UNIT_FIELDS, r, strict=True)),
                                        shift) for r in rows]

    def wait_for_work(self, run_id: str, timeout: float) -> bool:
        """Block up to ``timeout`` seconds until a transition puts work of ``run_id`` back
        in the pool (a plan landing, a release, a failure to retry, a reclaim, a resume),
        by ``LISTEN``; returns whether one was signalled. A notification that arrives
        between the caller's last claim and this call is not lost (the connection is
        listening from its first wait on)."""
        deadline = time.monotonic() + max(0.0, float(timeout))

        def body(conn: Any) -> bool:
            if not self._listening:
                conn.execute(self._psycopg.sql.SQL("LISTEN {}").format(
                    self._psycopg.sql.Identifier(self.channel)))
                self._listening = True
            while (left := deadline - time.monotonic()) > 0:
                # another run's notification does not end the wait
                if any(n.payload == run_id for n in conn.notifies(timeout=left, stop_after=1)):
                    return True
            return False

        return self._call("wait_for_work", self._main, body, wait=max(0.0, float(timeout)))
    # -- administration ---------------------------------------------------------------
    def list_runs(self) -> list[Run]:
        def body(conn: Any) -> list[Run]:
            local = clock.now()
            rows = conn.execute(_RUN_SELECT.replace("WHERE run_id = %s", "ORDER BY run_id"))
            return [self._run_from_row(row, local) for row in rows.fetchall()]

        return self._run("list_runs", body)

    def delete_run(self, run_id: str) -> bool:
        """One transaction: everything of the run, the marker last."""

        def body(conn: Any) -> bool:
            for table in ("units", "spend", "ledger", "reservations", "quarantine",
                          "finalizers"):
                conn.execute(f"DELETE FROM {table} WHERE run_id = %s", (run_id,))
            return bool(conn.execute("DELETE FROM runs WHERE run_id = %s",
                                     (run_id,)).rowcount == 1)

        return self._tx("delete_run", body)


class PostgresStateStore(PostgresCoordination, PostgresLedger):
    """:class:`~docfleet.state.base.StateStore` over one PostgreSQL schema (protocol as of
    ``state/base.py``: coordination + ledger). Safe to share between the threads of one
    task: each connection is used by one thread at a time."""


def open_postgres_store(parsed: ParsedURI, *, create: bool = True) -> PostgresStateStore:
    """Open ``postgresql://USER[:PASSWORD]@HOST[:PORT]/DB?schema=S[&retry_seconds=N]
    [&statement_timeout=SECONDS]``;
    other query parameters (``sslmode=…``) go to libpq. The password may instead come from
    ``PGPASSWORD`` or ``~/.pgpass``. Raises :class:`ConfigError` for a URI without a host or
    database, :class:`MissingExtraError` without psycopg. ``create=False`` (read-only
    commands) never creates or migrates the schema: :class:`RunNotFoundError` without one."""
    parts = urlsplit(parsed.raw)
    host = parts.hostname
    database = parts.path.strip("/")
    if not host or not database or "/" in database:
        raise ConfigError(f"state URI {display_uri(parsed.raw)!r} names no host or database",
                          "use postgresql://USER@HOST:5432/DB?schema=docfleet")
    query = dict(parse_qsl(parts.query))
    schema = query.get("schema", DEFAULT_SCHEMA)
    retry = query.get("retry_seconds")
    statement_timeout = uri_seconds(query, "statement_timeout", display_uri(parsed.raw))
    if statement_timeout is not None and statement_timeout <= 0:
        raise ConfigError(f"state URI {display_uri(parsed.raw)!r}: statement_timeout must be "
                          "above 0 seconds", "use e.g. statement_timeout=30")
    libpq = [(k, v) for k, v in parse_qsl(parts.query) if k not in _OWN_PARAMS]
    conninfo = urlunsplit(("postgresql", parts.netloc, parts.path,
                           urlencode(libpq, quote_via=quote), ""))
    try:
        retry_seconds = float(retry) if retry else None
    except ValueError:
        raise ConfigError(f"state URI {display_uri(parsed.raw)!r}: retry_seconds={retry!r} "
                          "is not a number", "use e.g. retry_seconds=60") from None
    return PostgresStateStore(conninfo, schema=schema, display_uri=display_uri(parsed.raw),
                              retry_seconds=retry_seconds,
                              statement_timeout=statement_timeout, create=create)


def display_uri(uri: str) -> str:
    """``uri`` without its password (and without libpq parameters): safe for logs."""
    parts = urlsplit(uri)
    user = f"{parts.username}@" if parts.username else ""
    port = f":{parts.port}" if parts.port else ""
    schema = dict(parse_qsl(parts.query)).get("schema", DEFAULT_SCHEMA)
    return f"postgresql://{user}{parts.hostname or ''}{port}{parts.path}?schema={schema}"
