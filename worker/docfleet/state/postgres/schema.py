"""The PostgreSQL store's schema: its tables as numbered migrations (:data:`MIGRATIONS`,
append only), the version this code writes and reads (:data:`SCHEMA_VERSION`, recorded in
``S.meta``), and their creation or migration at first use, under an advisory lock,
idempotently; a read-only open never creates or migrates anything."""

from __future__ import annotations

import re
from typing import Any

from docfleet.core.errors import ConfigError, RunNotFoundError

#: The schema version this code writes and reads; ``S.meta`` records the database's.
SCHEMA_VERSION = 3

#: version -> DDL that brings a schema from ``version - 1`` to ``version``. Append only.
MIGRATIONS: dict[int, str] = {
    1: """
CREATE TABLE runs (
    run_id text PRIMARY KEY,
    params text NOT NULL,
    fingerprint text NOT NULL,
    max_attempts integer NOT NULL,
    state text NOT NULL,
    planned boolean NOT NULL DEFAULT false,
    planner text NOT NULL,
    plan_heartbeat double precision NOT NULL,
    created_at double precision NOT NULL,
    updated_at double precision NOT NULL
);
CREATE TABLE units (
    run_id text NOT NULL,
    idx integer NOT NULL,
    start bigint NOT NULL,
    count integer NOT NULL,
    state text NOT NULL,
    attempts integer NOT NULL DEFAULT 0,
    generation integer NOT NULL DEFAULT 0,
    lease_owner text,
    lease_expires_at double precision,
    last_error text,
    claimed_at double precision,
    finished_at double precision,
    part_sha256 text,
    worked_by text,
    PRIMARY KEY (run_id, idx)
);
CREATE INDEX units_pending ON units (run_id, idx) WHERE state = 'PENDING';
CREATE INDEX units_running ON units (run_id, lease_expires_at) WHERE state = 'RUNNING';
CREATE INDEX units_by_state ON units (run_id, state);
CREATE TABLE spend (
    run_id text NOT NULL,
    model text NOT NULL,
    nano bigint NOT NULL,
    PRIMARY KEY (run_id, model)
);
CREATE TABLE ledger (
    run_id text PRIMARY KEY,
    spent bigint NOT NULL DEFAULT 0,
    reserved bigint NOT NULL DEFAULT 0
);
CREATE TABLE reservations (
    run_id text NOT NULL,
    rid text NOT NULL,
    nano bigint NOT NULL,
    expires_at double precision NOT NULL,
    PRIMARY KEY (run_id, rid)
);
CREATE TABLE quarantine (
    run_id text NOT NULL,
    provider text NOT NULL,
    PRIMARY KEY (run_id, provider)
);
""",
    # v2: the lease as the writer stated it (lease_expires_at, returned as stored: a renewal
    # counter for LeaseWatch) apart from the deadline on the database's clock that reclaim
    # judges (lease_deadline); the run's finalizer lease.
    2: """
ALTER TABLE units ADD COLUMN lease_deadline double precision;
UPDATE units SET lease_deadline = lease_expires_at WHERE state = 'RUNNING';
DROP INDEX units_running;
CREATE INDEX units_running ON units (run_id, lease_deadline) WHERE state = 'RUNNING';
CREATE TABLE finalizers (
    run_id text PRIMARY KEY,
    owner text NOT NULL,
    expires_at double precision NOT NULL
);
""",
    # v3: no index on every unit's state. Each transition changes the state, so each
    # wrote an entry into it (two per claim + complete pair, a fifth of the pair's WAL);
    # only progress read it, and that walks the run's units by the primary key as well.
    3: """
DROP INDEX IF EXISTS units_by_state;
""",
}

DEFAULT_SCHEMA = "docfleet"
SCHEMA_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,47}$")


def ensure_schema(conn: Any, psycopg: Any, schema: str, uri: str, *, create: bool) -> None:
    """Create or migrate schema ``schema`` on ``conn``, idempotently, one process at a time
    (``create=False``: only check it, raising :class:`RunNotFoundError` without one and
    :class:`ConfigError` for an older one). Raises :class:`ConfigError` for a newer one."""
    sql, ident = psycopg.sql.SQL, psycopg.sql.Identifier(schema)
    row = None
    try:
        row = conn.execute(sql("SELECT value FROM {}.meta WHERE key = 'schema_version'")
                           .format(ident)).fetchone()
        if row is not None and int(row[0]) == SCHEMA_VERSION:
            return
    except psycopg.errors.UndefinedTable:
        pass
    if not create:  # a read-only command never creates or migrates anything
        if row is None:
            raise RunNotFoundError(
                f"state store {uri} holds no docfleet schema '{schema}'",
                "check --state / DOCFLEET_STATE (nothing was created)")
        if int(row[0]) < SCHEMA_VERSION:
            raise ConfigError(
                f"state store {uri} has schema version {row[0]}, older than this "
                f"docfleet's {SCHEMA_VERSION}",
                "run any worker or 'docfleet store init' once to migrate it")
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"docfleet:{schema}",))
        conn.execute(sql("CREATE SCHEMA IF NOT EXISTS {}").format(ident))
        conn.execute(sql("CREATE TABLE IF NOT EXISTS {}.meta (key text PRIMARY KEY,"
                         " value text NOT NULL)").format(ident))
        row = conn.execute(sql("SELECT value FROM {}.meta WHERE key = 'schema_version'")
                           .format(ident)).fetchone()
        current = int(row[0]) if row else 0
        if current > SCHEMA_VERSION:
            raise ConfigError(
                f"state store {uri} has schema version {current}, newer than this "
                f"docfleet's {SCHEMA_VERSION}",
                "upgrade docfleet, or use another ?schema=",
            )
        for version in range(current + 1, SCHEMA_VERSION + 1):
            for stmt in MIGRATIONS[version].split(";"):
                if stmt.strip():
                    conn.execute(stmt)
        conn.execute(sql("INSERT INTO {}.meta (key, value) VALUES ('schema_version', %s)"
                         " ON CONFLICT (key) DO UPDATE SET value = excluded.value")
                     .format(ident), (str(SCHEMA_VERSION),))
