"""What the PostgreSQL state store promises beyond the shared contract suite, through a
real throw-away PostgreSQL server (``tests/support/emulators.py``): credentials from the URI,
PGPASSWORD or .pgpass and never shown; a versioned schema created once under a race; one
clock (the database's) for leases; claims that never wait on a peer's lock; the heartbeat
on its own connection; LISTEN/NOTIFY for idle waiting; an outage ridden out, and a store
that stays away ending in one line and exit 4."""

from __future__ import annotations

import os
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from racers import race

from docfleet.core import clock
from docfleet.core.errors import ConfigError, StoreUnavailableError
from docfleet.core.models import RunSpec, UnitState
from docfleet.kernel.planner import plan_units
from docfleet.state import open_state_store
from docfleet.state.postgres.store import SCHEMA_VERSION, PostgresStateStore
from support import emulators
from support.backends import server_for
from support.fleet import cli, start_fleet, wait_all, worker_env

LEASE = 30.0


@pytest.fixture
def server(request: pytest.FixtureRequest) -> emulators.PostgresServer:
    return server_for(request, "postgresql")  # type: ignore[return-value]


@pytest.fixture
def schema() -> str:
    return f"t_{uuid.uuid4().hex[:12]}"


@pytest.fixture
def store(server: emulators.PostgresServer, schema: str) -> Iterator[PostgresStateStore]:
    s = open_state_store(server.uri(schema))
    assert isinstance(s, PostgresStateStore)
    yield s
    s.close()


def _planned(store: PostgresStateStore, units: int = 4, max_attempts: int = 3) -> str:
    run_id = f"r-{uuid.uuid4().hex[:8]}"
    spec = RunSpec(run_id=run_id, total=units, unit_size=1, pack="bench",
                   max_attempts=max_attempts)
    assert store.create_run(spec, "p", clock.now()).won
    store.put_units(run_id, plan_units(spec))
    assert store.mark_planned(run_id, "p", clock.now())
    return run_id


def _no_password_uri(server: emulators.PostgresServer, schema: str) -> str:
    return f"postgresql://{emulators.PG_USER}@127.0.0.1:{server.port}/postgres?schema={schema}"


# -- credentials ----------------------------------------------------------------------------
def test_the_password_never_appears_in_the_store_uri_spans_or_errors(
    store: PostgresStateStore, server: emulators.PostgresServer, schema: str
) -> None:
    from docfleet import telemetry

    assert emulators.PG_PASSWORD not in store.uri
    assert store.uri == _no_password_uri(server, schema)
    assert emulators.PG_PASSWORD not in str(telemetry.db_attributes(server.uri(schema)))
    wrong = server.uri(schema).replace(emulators.PG_PASSWORD, "wrong-" + emulators.PG_PASSWORD)
    result = cli("status", "any-run", "--state", wrong, timeout=60)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr and "password authentication failed" in result.stderr
    assert emulators.PG_PASSWORD not in result.stdout + result.stderr
    assert len([line for line in result.stderr.splitlines() if line.strip()]) == 1


def test_two_workers_drain_a_run_and_their_logs_never_show_the_password(
    server: emulators.PostgresServer, schema: str, tmp_path: Path, run_id: str
) -> None:
    env = worker_env(server.uri(schema), f"file://{tmp_path / 'out'}", run_id, 12,
                     unit_size=2, BENCH_DOC_MS=20, linger_seconds=5)
    procs = start_fleet(env, 2, tmp_path / "logs")
    assert wait_all(procs, 180) == [0, 0]
    logs = [tmp_path / "logs" / f"task-{i}.log" for i in range(2)]
    text = "".join(p.read_text() for p in logs)
    assert "manifest.root" in text
    assert emulators.PG_PASSWORD not in text
    assert cli("verify", run_id, "--out", f"file://{tmp_path / 'out'}").returncode == 0


def test_the_password_comes_from_pgpassword_or_pgpass(
    server: emulators.PostgresServer, schema: str, tmp_path: Path, run_id: str
) -> None:
    uri = _no_password_uri(server, schema)
    env = {"PGPASSWORD": emulators.PG_PASSWORD, "PGPASSFILE": str(tmp_path / "none")}
    by_env = cli("status", run_id, "--state", uri, env=env, timeout=60)
    # logged in: the read-only command then finds no schema (and creates none)
    assert by_env.returncode == 2 and "holds no docfleet schema" in by_env.stderr, by_env.stderr
    pgpass = tmp_path / "pgpass"
    pgpass.write_text(f"127.0.0.1:{server.port}:*:{emulators.PG_USER}:{emulators.PG_PASSWORD}\n")
    pgpass.chmod(0o600)
    base = {k: v for k, v in os.environ.items() if k != "PGPASSWORD"}
    by_file = cli("status", run_id, "--state", uri, env={**base, "PGPASSFILE": str(pgpass)},
                  timeout=60)
    assert by_file.returncode == 2 and "holds no docfleet schema" in by_file.stderr, \
        by_file.stderr
    assert emulators.PG_PASSWORD not in by_env.stderr + by_file.stderr


@pytest.mark.timing
def test_libpq_parameters_pass_through_and_a_bad_one_fails_at_once(
    server: emulators.PostgresServer, schema: str
) -> None:
    store = open_state_store(server.uri(schema) + "&options=-c%20synchronous_commit%3Doff")
    try:
        assert store._run("show", lambda c: c.execute(  # type: ignore[attr-defined]
            "SHOW synchronous_commit").fetchone()[0]) == "off"
    finally:
        store.close()
    t0 = time.monotonic()
    with pytest.raises(ConfigError, match="unrecognized configuration parameter"):
        open_state_store(server.uri(schema) + "&options=-c%20nosuch%3D1")
    with pytest.raises(ConfigError, match="invalid sslmode"):
        open_state_store(server.uri(schema) + "&sslmode=bogus")
    assert time.monotonic() - t0 < 10.0  # not retried as if the server were away


# -- schema ----------------------------------------------------------------------------------
def _open_and_version(uri: str, start_at: float) -> int:
    delay = start_at - time.time()
    if delay > 0:
        time.sleep(delay)
    store = open_state_store(uri)
    try:
        return store.schema_version()  # type: ignore[attr-defined,no-any-return]
    finally:
        store.close()


def test_eight_processes_create_the_schema_once_and_it_is_versioned(
    server: emulators.PostgresServer, schema: str, pool
) -> None:
    versions = race(pool, _open_and_version, [(server.uri(schema),)] * 8)
    assert versions == [SCHEMA_VERSION] * 8
    with psycopg.connect(server.dsn) as conn:
        tables = {r[0] for r in conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = %s",
            (schema,))}
    assert {"meta", "runs", "units", "spend", "ledger", "reservations",
            "quarantine"} <= tables


def test_a_version_1_schema_is_migrated_in_place_keeping_its_leases(
    server: emulators.PostgresServer, schema: str
) -> None:
    from docfleet.state.postgres.schema import MIGRATIONS

    with psycopg.connect(server.dsn, autocommit=True) as conn:  # a store as v1 left it
        conn.execute(f"CREATE SCHEMA {schema}")
        conn.execute(f"SET search_path TO {schema}")
        for stmt in MIGRATIONS[1].split(";"):
            if stmt.strip():
                conn.execute(stmt)
        conn.execute("CREATE TABLE meta (key text PRIMARY KEY, value text NOT NULL)")
        conn.execute("INSERT INTO meta VALUES ('schema_version', '1')")
        conn.execute("INSERT INTO runs VALUES ('r', '{}', 'f', 3, 'RUNNING', true, 'p',"
                     " 0, 0, 0)")
        conn.execute("INSERT INTO units (run_id, idx, start, count, state, attempts,"
                     " lease_owner, lease_expires_at) VALUES ('r', 0, 0, 1, 'RUNNING', 1,"
                     " 'w#u0.g1', extract(epoch from now()) + 600)")
    with pytest.raises(Exception, match="older than this"):  # read-only: never migrates
        from docfleet.core.uris import parse_uri
        from docfleet.state.postgres.store import open_postgres_store

        open_postgres_store(parse_uri(server.uri(schema), ("postgresql",), "state"),
                            create=False)
    store = open_state_store(server.uri(schema))
    try:
        assert store.schema_version() == SCHEMA_VERSION  # type: ignore[attr-defined]
        assert store.claim_next_unit("r", "x", 0, LEASE, clock.now()) is None  # still held
        assert store.claim_finalizer("r", "x", 10.0, clock.now())  # v2's table
    finally:
        store.close()
    with psycopg.connect(server.dsn) as conn:
        deadline = conn.execute(f"SELECT lease_deadline FROM {schema}.units").fetchone()[0]
    assert deadline is not None


def test_a_newer_schema_is_refused_with_a_clear_error(
    store: PostgresStateStore, server: emulators.PostgresServer, schema: str
) -> None:
    with psycopg.connect(server.dsn, autocommit=True) as conn:
        conn.execute(f"UPDATE {schema}.meta SET value = '99' WHERE key = 'schema_version'")
    with pytest.raises(ConfigError, match="schema version 99, newer"):
        open_state_store(server.uri(schema))


def test_a_bad_schema_name_or_uri_is_one_clear_error(server: emulators.PostgresServer) -> None:
    with pytest.raises(ConfigError, match="not a schema name"):
        open_state_store(server.uri("bad-name;drop"))
    with pytest.raises(ConfigError, match="names no host or database"):
        open_state_store("postgresql://u@127.0.0.1:5432/")


# -- one clock -------------------------------------------------------------------------------
def test_leases_are_judged_by_the_database_clock_not_a_skewed_writer(
    store: PostgresStateStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_id = _planned(store, units=1)
    claim = store.claim_next_unit(run_id, "honest", 0, LEASE, clock.now())
    assert claim is not None
    monkeypatch.setattr(clock, "_SKEW", 10 * LEASE)  # this writer's clock runs far ahead
    assert store.reclaim_expired_units(run_id, 3, clock.now()) == 0
    assert store.claim_next_unit(run_id, "skewed", 0, LEASE, clock.now()) is None
    unit = store.units(run_id)[0]
    assert unit.lease_owner == claim.token
    # the lease as its writer stated it (a renewal counter for LeaseWatch), not rewritten
    assert unit.lease_expires_at == pytest.approx(claim.lease_expires_at)
    monkeypatch.setattr(clock, "_SKEW", 0.0)
    assert store.complete_unit(claim, "a" * 64, clock.now())


# -- claims and connections ------------------------------------------------------------------
@pytest.mark.timing
def test_a_claim_skips_a_unit_locked_by_a_peer_instead_of_waiting(
    store: PostgresStateStore, server: emulators.PostgresServer, schema: str
) -> None:
    run_id = _planned(store, units=2)
    with psycopg.connect(server.dsn) as peer:  # a transaction holding unit 0's row lock
        peer.execute(f"SELECT 1 FROM {schema}.units WHERE run_id = %s AND idx = 0 FOR UPDATE",
                     (run_id,))
        t0 = time.monotonic()
        claim = store.claim_next_unit(run_id, "w", 0, LEASE, clock.now())
        waited = time.monotonic() - t0
        peer.rollback()
    assert claim is not None and claim.unit_index == 1
    assert waited < 5.0  # it did not wait for the peer's transaction


def test_the_heartbeat_renews_on_its_own_connection(
    store: PostgresStateStore, server: emulators.PostgresServer
) -> None:
    run_id = _planned(store, units=1)
    claim = store.claim_next_unit(run_id, "w", 0, LEASE, clock.now())
    assert claim is not None
    renewed: list[object] = []
    t = threading.Thread(target=lambda: renewed.append(
        store.renew_lease(claim, LEASE, clock.now())))
    t.start()
    t.join(30)
    assert renewed and renewed[0] is not None
    with psycopg.connect(server.dsn) as conn:
        names = [r[0] for r in conn.execute(
            "SELECT application_name FROM pg_stat_activity WHERE pid <> pg_backend_pid()"
            " AND application_name LIKE 'docfleet-%%'")]
    assert names.count("docfleet-main") >= 1 and names.count("docfleet-heartbeat") >= 1


@pytest.mark.timing
def test_an_idle_task_is_woken_by_notify_when_work_returns(
    store: PostgresStateStore, server: emulators.PostgresServer, schema: str
) -> None:
    run_id = _planned(store, units=1)
    claim = store.claim_next_unit(run_id, "w", 0, LEASE, clock.now())
    assert claim is not None
    assert store.wait_for_work(run_id, 0.2) is False  # nothing happened: a timeout
    peer = open_state_store(server.uri(schema))
    woke: list[tuple[bool, float]] = []

    def waiter() -> None:
        t0 = time.monotonic()
        woke.append((store.wait_for_work(run_id, 20.0), time.monotonic() - t0))

    thread = threading.Thread(target=waiter)
    thread.start()
    time.sleep(0.5)
    try:
        assert peer.release_unit(claim, clock.now())
    finally:
        peer.close()
    thread.join(30)
    assert woke and woke[0][0] is True and woke[0][1] < 10.0, woke
    assert store.claim_next_unit(run_id, "w2", 0, LEASE, clock.now()) is not None


# -- outages ---------------------------------------------------------------------------------
@pytest.mark.timing
def test_a_server_restart_is_ridden_out_and_the_data_survives() -> None:
    server = emulators.start_postgres()
    # the server back after 3 s; joined before the server is discarded: the store may
    # reconnect before the restart's own readiness poll returns, and a discard then
    # would kill the server under that poll (an exception in the timer's thread)
    restart = threading.Timer(3.0, server.start)
    try:
        store = open_state_store(server.uri("outage"))
        run_id = _planned(store, units=2)  # type: ignore[arg-type]
        server.stop()  # a real outage: the server is down, connections are gone
        restart.start()
        t0 = time.monotonic()
        claim = store.claim_next_unit(run_id, "w", 0, LEASE, clock.now())
        assert claim is not None and time.monotonic() - t0 >= 2.0
        assert store.complete_unit(claim, "a" * 64, clock.now())
        assert store.progress(run_id).as_dict()["DONE"] == 1
        store.close()
    finally:
        restart.cancel()  # not fired yet (the test failed first): never
        if restart.is_alive():
            restart.join(90)
        emulators.discard(server)


def test_a_store_that_stays_away_is_one_line_and_exit_4() -> None:
    port = emulators.free_port()  # nothing listens there
    uri = f"postgresql://u@127.0.0.1:{port}/db?schema=s&retry_seconds=2"
    with pytest.raises(StoreUnavailableError, match="over 2s"):
        open_state_store(uri)
    result = cli("status", "some-run", "--state", uri, timeout=60)
    assert result.returncode == 4, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert len([line for line in result.stderr.splitlines() if line.strip()]) == 1


# -- a stopped server (SIGSTOP: connections accepted, nothing answered) ----------------------
def test_the_server_timeouts_are_set_and_a_bad_one_is_a_clear_error(
    server: emulators.PostgresServer, schema: str
) -> None:
    store = open_state_store(server.uri(schema) + "&statement_timeout=7")
    names = ("statement_timeout", "lock_timeout", "idle_in_transaction_session_timeout",
             "search_path")
    try:
        shown = store._run("show", lambda c: [  # type: ignore[attr-defined]
            c.execute(f"SHOW {name}").fetchone()[0] for name in names])
    finally:
        store.close()
    assert shown[:3] == ["7s", "2333ms", "7s"] and schema in shown[3], shown
    for bad in ("0", "-1", "soon"):
        with pytest.raises(ConfigError, match="statement_timeout"):
            open_state_store(server.uri(schema) + f"&statement_timeout={bad}")


@pytest.mark.timing
def test_a_stopped_server_fails_a_call_within_the_retry_window(
    server: emulators.PostgresServer, schema: str
) -> None:
    store = open_state_store(server.uri(schema) + "&statement_timeout=1&retry_seconds=4")
    run_id = _planned(store)  # type: ignore[arg-type]
    server.freeze()
    try:
        t0 = time.monotonic()
        with pytest.raises(StoreUnavailableError, match="over 4s") as raised:
            store.claim_next_unit(run_id, "w", 0, LEASE, clock.now())
        took = time.monotonic() - t0
    finally:
        server.thaw()
    assert 3.0 <= took < 20.0, took
    assert "\n" not in str(raised.value)
    # the server back: the same store object works again (new connections)
    assert store.progress(run_id).as_dict()["PENDING"] >= 3
    store.close()


@pytest.mark.timing
def test_a_claim_whose_answer_was_lost_is_not_orphaned(
    server: emulators.PostgresServer, schema: str
) -> None:
    """The claim reaches the stopped server, the client gives the connection up, the
    server resumes and applies it: the retried claim returns that very unit instead of
    taking a second one and leaving the first RUNNING for a lease."""
    store = open_state_store(server.uri(schema) + "&statement_timeout=1&retry_seconds=60")
    run_id = _planned(store)  # type: ignore[arg-type]
    server.freeze()
    threading.Timer(4.5, server.thaw).start()  # after the first attempt was given up
    claim = store.claim_next_unit(run_id, "w", 0, LEASE, clock.now())
    running = [u for u in store.units(run_id) if u.state.value == "RUNNING"]
    assert claim is not None and [u.index for u in running] == [claim.unit_index], running
    assert running[0].lease_owner == claim.token
    assert store.complete_unit(claim, "a" * 64, clock.now())
    store.close()


def test_complete_and_claim_next_is_one_statement(store: PostgresStateStore) -> None:
    """One round trip and one commit (autocommit) for a completion and the next claim."""
    from docfleet.state import opcount

    run_id = _planned(store, units=2)
    claim = store.claim_next_unit(run_id, "w", 0, LEASE, clock.now())
    counts = opcount.OpCounts()
    opcount.instrument(store, counts)
    done, nxt = store.complete_and_claim_next(claim, "a" * 64, "w", 0, LEASE, clock.now())
    assert done and nxt is not None and nxt.unit_index == 1
    assert counts.totals()["requests"] == 1, counts.ops


@pytest.mark.timing
@pytest.mark.parametrize("units", [2, 1], ids=["with-next", "last-unit"])
def test_a_combined_call_whose_answer_was_lost_counts_what_it_applied(
    server: emulators.PostgresServer, schema: str, units: int
) -> None:
    """The statement reaches the stopped server, the client gives the connection up, the
    server resumes and applies it: the retry reports the completion as applied (it is
    not fenced by its own DONE) and returns the unit the lost attempt claimed instead of
    claiming a second one; with nothing left to claim, ``(True, None)``."""
    store = open_state_store(server.uri(schema) + "&statement_timeout=1&retry_seconds=60")
    assert isinstance(store, PostgresStateStore)
    run_id = _planned(store, units=units + 1)
    first = store.claim_next_unit(run_id, "w", 0, LEASE, clock.now())
    if units == 1:  # a peer holds the other unit: the combined call has nothing to claim
        assert store.claim_next_unit(run_id, "peer", 0, LEASE, clock.now()) is not None
    server.freeze()
    threading.Timer(4.5, server.thaw).start()  # after the first attempt was given up
    done, nxt = store.complete_and_claim_next(first, "a" * 64, "w", 0, LEASE, clock.now())
    units_now = store.units(run_id)
    assert done and units_now[0].state.value == "DONE"
    mine = [u for u in units_now if u.state.value == "RUNNING" and u.worked_by == "w"]
    if units == 1:
        assert nxt is None and mine == []
    else:
        assert nxt is not None and [u.index for u in mine] == [nxt.unit_index], mine
        assert mine[0].lease_owner == nxt.token
        assert store.complete_unit(nxt, "b" * 64, clock.now())
    store.close()


# -- batches (complete_and_claim_units) ------------------------------------------------------
def test_complete_and_claim_units_is_one_statement(store: PostgresStateStore) -> None:
    """One round trip and one commit (autocommit) for a batch of completions and the next
    batch of claims, whatever the sizes."""
    from docfleet.state import opcount

    run_id = _planned(store, units=7)
    counts = opcount.OpCounts()
    opcount.instrument(store, counts)
    _, first = store.complete_and_claim_units(run_id, [], "w", 0, 3, LEASE, clock.now())
    assert [c.unit_index for c in first] == [0, 1, 2]
    assert counts.totals()["requests"] == 1, counts.ops
    applied, nxt = store.complete_and_claim_units(
        run_id, [(c, "a" * 64) for c in first], "w", 5, 4, LEASE, clock.now())
    assert applied == [True] * 3
    assert [c.unit_index for c in nxt] == [5, 6, 3, 4], "in claim order: from the hint, wrapping"
    assert counts.totals()["requests"] == 2, counts.ops


def test_a_batch_takes_expired_leases_first_and_fails_a_spent_unit_in_the_same_statement(
    store: PostgresStateStore
) -> None:
    """Reclaim inside the claim, as the one-unit claim does: an expired lease with attempts
    left is claimed first (its second attempt), one out of attempts goes FAILED, and then
    the PENDING units from the hint; all of it one statement with the batch's completion."""
    from docfleet.state import opcount

    run_id = _planned(store, units=6, max_attempts=2)
    _, (c0, c1, c2) = store.complete_and_claim_units(run_id, [], "w", 0, 3, LEASE, clock.now())
    _, started = store.start_unit(c1, clock.now())  # claimed ahead, then worked: 1 attempt
    assert started is not None and started.attempts == 1
    c1 = started
    past = clock.now() - 1000.0
    lapsed = store.renew_lease(c0, 10.0, past)  # unit 0's lease is over ...
    assert lapsed is not None
    again = store.claim_next_unit(run_id, "x", 0, LEASE, clock.now())  # ... its 2nd attempt
    assert again is not None and (again.unit_index, again.attempts) == (0, 2)
    assert store.renew_lease(again, 10.0, past) is not None  # over again: no attempt left
    assert store.renew_lease(c1, 10.0, past + 1.0) is not None  # over, one attempt left
    counts = opcount.OpCounts()
    opcount.instrument(store, counts)
    applied, claims = store.complete_and_claim_units(
        run_id, [(c2, "c" * 64)], "y", 4, 3, LEASE, clock.now())
    assert counts.totals()["requests"] == 1, counts.ops
    assert applied == [True]
    # the batch's first claim is charged (worked at once), the rest when they start
    assert [(c.unit_index, c.attempts, c.charged) for c in claims] == [
        (1, 2, True), (4, 0, False), (5, 0, False)]
    assert all(c.token.startswith("y#") for c in claims)
    units = store.units(run_id)
    assert units[0].state.value == "FAILED" and "lease expired" in (units[0].last_error or "")
    assert units[1].lease_owner == claims[0].token and units[1].worked_by == "y"
    assert (units[2].state.value, units[2].part_sha256) == ("DONE", "c" * 64)
    assert units[3].state.value == "PENDING"
    assert not store.complete_unit(c1, "l" * 64, clock.now()), "the lapsed claim is fenced"



def test_a_batch_never_reclaims_its_own_lapsed_completions(store: PostgresStateStore) -> None:
    """Completions whose leases lapsed but were not yet taken still apply (fenced on the
    token, as ``complete_unit``), and the claim that follows in the same statement never
    takes one of them as an expired lease: it takes the PENDING units."""
    run_id = _planned(store, units=4)
    _, mine = store.complete_and_claim_units(run_id, [], "w", 0, 2, 10.0,
                                             clock.now() - 1000.0)  # lapsed at once
    assert [c.unit_index for c in mine] == [0, 1]
    applied, claims = store.complete_and_claim_units(
        run_id, [(c, "a" * 64) for c in mine], "w", 0, 4, LEASE, clock.now())
    assert applied == [True, True]
    assert [(c.unit_index, c.attempts, c.charged) for c in claims] == [
        (2, 1, True), (3, 0, False)]
    units = store.units(run_id)
    assert [(u.state.value, u.part_sha256) for u in units[:2]] == [("DONE", "a" * 64)] * 2

@pytest.mark.timing
@pytest.mark.parametrize("left", [3, 0], ids=["with-next", "nothing-left"])
def test_a_batch_whose_answer_was_lost_counts_what_it_applied_and_claims_once(
    server: emulators.PostgresServer, schema: str, left: int
) -> None:
    """The batch statement reaches the stopped server, the client gives the connection
    up, the server resumes and applies it: the retry reports every completion as applied
    (not fenced by its own DONE) and returns all the claims the lost attempt made instead
    of claiming a second batch; with nothing left to claim, no claims."""
    store = open_state_store(server.uri(schema) + "&statement_timeout=1&retry_seconds=60")
    assert isinstance(store, PostgresStateStore)
    run_id = _planned(store, units=2 + left + 1)  # the first batch, the next, one more
    _, first = store.complete_and_claim_units(run_id, [], "w", 0, 2, LEASE, clock.now())
    if not left:  # a peer holds the last unit: the batch call has nothing to claim
        assert store.claim_next_unit(run_id, "peer", 0, LEASE, clock.now()) is not None
    server.freeze()
    threading.Timer(4.5, server.thaw).start()  # after the first attempt was given up
    applied, claims = store.complete_and_claim_units(
        run_id, [(c, "a" * 64) for c in first], "w", 2, left or 3, LEASE, clock.now())
    units_now = store.units(run_id)
    assert applied == [True, True]
    assert [(u.state.value, u.part_sha256) for u in units_now[:2]] == [("DONE", "a" * 64)] * 2
    mine = [u for u in units_now if u.state.value == "RUNNING" and u.worked_by == "w"]
    assert [c.unit_index for c in claims] == [u.index for u in mine] == list(
        range(2, 2 + left)), (claims, mine)
    assert [u.lease_owner for u in mine] == [c.token for c in claims]
    # one batch, not a second one: the unit past it is still there (or the peer's)
    assert units_now[-1].state.value == ("PENDING" if left else "RUNNING")
    assert units_now[-1].worked_by == (None if left else "peer")
    for c in claims:
        assert store.complete_unit(c, "b" * 64, clock.now())
    store.close()


def test_a_batch_charges_only_the_unit_it_starts_and_start_unit_the_rest(
    store: PostgresStateStore,
) -> None:
    """Issue 26, item 4: an attempt is spent when work on a unit starts, never by being
    claimed ahead. Units claimed ahead that expire unstarted come back with no attempt
    spent (max_attempts 1: PENDING, not FAILED); a unit started and abandoned fails; a
    finished one was recorded by the next unit's start."""
    run_id = _planned(store, units=4, max_attempts=1)
    now = time.time()
    _, claims = store.complete_and_claim_units(run_id, [], "dead", 0, 4, 0.5, now)
    assert [c.charged for c in claims] == [True, False, False, False]
    assert [c.attempts for c in claims] == [1, 0, 0, 0]
    # the task finishes its first unit and starts its second: one statement records the
    # completion and spends the second's attempt
    applied, second = store.start_unit(claims[1], now, [(claims[0], "a" * 64)])
    assert applied == [True] and second is not None and second.attempts == 1
    assert second.charged
    assert store.start_unit(claims[1], now)[1] is not None  # a retry charges once
    assert {u.index: u.attempts for u in store.units(run_id)} == {0: 1, 1: 1, 2: 0, 3: 0}
    time.sleep(1.0)  # the task dies: every lease expires (by the database's clock)
    store.reclaim_expired_units(run_id, 1, time.time())
    units = {u.index: u for u in store.units(run_id)}
    assert units[0].state == UnitState.DONE  # finished, recorded with the next start
    assert units[1].state == UnitState.FAILED  # started and abandoned: its one attempt
    assert [units[i].state for i in (2, 3)] == [UnitState.PENDING] * 2  # never started
    assert [units[i].attempts for i in (2, 3)] == [0, 0]
    assert store.start_unit(claims[2], time.time())[1] is None  # fenced: not its claim


def test_giving_back_an_unstarted_unit_claimed_ahead_refunds_nothing(
    store: PostgresStateStore,
) -> None:
    run_id = _planned(store, units=2, max_attempts=3)
    _, claims = store.complete_and_claim_units(run_id, [], "w", 0, 2, 30.0, time.time())
    first, ahead = claims
    assert store.fail_unit(first, "boom", 3, time.time())  # unit 0: 1 attempt spent
    again = store.claim_next_unit(run_id, "w", 0, 30.0, time.time())
    assert again is not None and again.unit_index == 0 and again.attempts == 2
    assert store.release_unit(again, time.time())  # a started unit: its attempt back
    assert store.release_unit(ahead, time.time())  # unstarted: nothing to give back
    assert {u.index: u.attempts for u in store.units(run_id)} == {0: 1, 1: 0}
