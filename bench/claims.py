"""Claim throughput: plan a run of N units with a no-op payload and drain it with 1, 2, 4
and 8 real processes; print claims/s, claim latency and the coordination overhead per
unit, and write JSON to bench/results/claims.json.

    python bench/claims.py                       # SQLite, 20,000 units
    python bench/claims.py --units 2000 --procs 1,2 --state sqlite:///tmp/b.db
    python bench/claims.py --backends firestore,dynamodb --units 400 \
        --start offset,zero                      # cloud stores, on their local emulators
    python bench/claims.py --backends postgresql --units 20000 --procs 1,8,32
    python bench/claims.py --backends postgresql,postgresql-async --units 8000 \
        --procs 1,8,32 --batch 1,4,8,16 --repeat 2 \
        --out bench/results/claims_postgres-batch.json   # claims in batches of K

``--backends`` takes any scheme of the backend registry (plus ``postgresql-async``). Those
with a test server run against tests/support/emulators.py's (started here, stopped at the end):
``firestore`` (claims by update-time precondition; the transaction mode measured in
``results/claims_cloud.json`` as ``firestore-tx`` is gone), ``dynamodb`` (moto,
single-threaded), ``postgresql`` (a throw-away Debian
PostgreSQL server with fsync on: every commit waits for the disk), ``postgresql-async``
(the same with ``synchronous_commit=off`` set through the URI's libpq ``options``).
``--start offset`` begins each process's candidate scan at its share of the index range
(what workers do), ``zero`` at unit 0 for all. Emulators are not the cloud: compare
strategies, not absolute figures.

Each process loops claim → complete against the store (what a worker does per unit,
minus the payload), so the figures are the coordination cost alone. ``--combined on``
(the default, what workers do) completes a unit and claims the next in one call
(``complete_and_claim_next``: one statement on PostgreSQL, the two calls elsewhere);
``--combined off`` measures the two calls, ``on,off`` both. ``--hint advance`` (the
default, what workers do) starts each search just past the process's last claim,
``fixed`` always at its share; ``--repeat N`` runs the grid N times. ``--batch K[,K2…]``
(default 1: the combined call above) drains in batches with K > 1: each process claims K
units in one call, then completes them all and claims the next K in one call
(``complete_and_claim_units``: one statement on PostgreSQL, one write per completion and
per claim elsewhere); its rows are always combined. A row's claim latencies (p50, p99,
max) are the waits for a claim: the claim call, the combined call or the batch call. A
row's ``claims_per_s`` counts units (claim+complete pairs), whatever the batch. Each row
also gives the CPU per pair of the bench processes (``client_cpu_us``) and, on
PostgreSQL, of the server's process tree (``server_cpu_us``), the server's commits, WAL
records and bytes per pair and the share of HOT unit updates; ``store_errors`` counts the
processes that met a store error past its retry bound; ``peak_rss_mb`` is the largest peak
RSS of one draining process and ``load_1m`` the machine's load average as the row ended.
``PYTHONPATH=<other checkout>/worker`` runs it on other code (interleave the two).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import os
import resource
import statistics
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from rich.console import Console
from rich.table import Table

from docfleet.core.errors import DocfleetError
from docfleet.core.models import RunSpec
from docfleet.kernel.planner import plan_units
from docfleet.state import open_state_store
from docfleet.state.optional import complete_and_claim_next, complete_and_claim_units
from proctree import tree_cpu

RESULTS = Path(__file__).parent / "results"


def drain(uri: str, run_id: str, owner: str, hint: int, start_at: float,
          combined: bool = True, advance: bool = True, units: int = 1,
          batch: int = 1) -> dict[str, Any]:
    """One process: claim and complete until the pool is empty; return its timings and
    its CPU seconds. ``combined``: each completion claims the next unit in the same call
    (``complete_and_claim_next``); else ``complete_unit`` then ``claim_next_unit``.
    ``batch`` > 1: claim ``batch`` units, then complete them all and claim the next
    ``batch`` in one call (``complete_and_claim_units``). A latency is the wait for a
    claim: the claim call, the combined call or the batch call. ``advance``: after a
    claim the next search starts just past it (what workers do), else always at
    ``hint``."""
    store = open_state_store(uri)
    while time.time() < start_at:
        time.sleep(0.001)
    latencies: list[float] = []
    claimed = [0]
    lost_before = getattr(store, "lost_races", 0)
    complete_s = 0.0
    cpu0, began = time.process_time(), time.perf_counter()
    error = ""
    try:
        if batch > 1:
            _drain_batches(store, run_id, owner, hint, batch, advance, units, latencies,
                           claimed)
        else:
            complete_s = _drain_units(store, run_id, owner, hint, combined, advance, units,
                                      latencies, claimed)
    except DocfleetError as exc:  # a store error past the retry bound: counted in the row
        error = str(exc)
    elapsed, cpu = time.perf_counter() - began, time.process_time() - cpu0
    lost = getattr(store, "lost_races", 0) - lost_before
    store.close()
    return {"claims": claimed[0], "latencies": latencies, "complete_s": complete_s,
            "elapsed_s": elapsed, "lost": lost, "cpu_s": cpu, "error": error,
            "rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}


def _drain_units(store: Any, run_id: str, owner: str, hint: int, combined: bool,
                 advance: bool, units: int, latencies: list[float], claimed: list[int]
                 ) -> float:
    """Drain one unit at a time (see :func:`drain`); returns the seconds spent in
    ``complete_unit`` calls (none when combined)."""
    complete_s = 0.0
    t0 = time.perf_counter()
    claim = store.claim_next_unit(run_id, owner, hint, 60.0, time.time())
    t1 = time.perf_counter()
    while claim is not None:
        latencies.append(t1 - t0)
        claimed[0] += 1
        if advance:  # as workers do: look on just past the last claim
            hint = (claim.unit_index + 1) % units
        if combined:
            t0 = time.perf_counter()
            _, claim = complete_and_claim_next(store, claim, "0" * 64, owner, hint,
                                               60.0, time.time())
            t1 = time.perf_counter()
            continue
        store.complete_unit(claim, "0" * 64, time.time())
        t0 = time.perf_counter()
        complete_s += t0 - t1
        claim = store.claim_next_unit(run_id, owner, hint, 60.0, time.time())
        t1 = time.perf_counter()
    return complete_s


def _drain_batches(store: Any, run_id: str, owner: str, hint: int, batch: int,
                   advance: bool, units: int, latencies: list[float], claimed: list[int]
                   ) -> None:
    """Drain in batches of ``batch`` (see :func:`drain`): each call completes the last
    batch and claims the next (``complete_and_claim_units``)."""
    t0 = time.perf_counter()
    _, claims = complete_and_claim_units(store, run_id, [], owner, hint, batch, 60.0,
                                         time.time())
    t1 = time.perf_counter()
    while claims:
        latencies.append(t1 - t0)
        claimed[0] += len(claims)
        if advance:  # as workers do: look on just past the last claim
            hint = (claims[-1].unit_index + 1) % units
        t0 = time.perf_counter()
        _, claims = complete_and_claim_units(store, run_id, [(c, "0" * 64) for c in claims],
                                             owner, hint, batch, 60.0, time.time())
        t1 = time.perf_counter()


def plan(uri: str, units: int) -> str:
    store = open_state_store(uri)
    run_id = f"bench-{uuid.uuid4().hex[:8]}"
    spec = RunSpec(run_id=run_id, total=units, unit_size=1, pack="bench")
    store.create_run(spec, "bench", time.time())
    store.put_units(run_id, plan_units(spec))
    store.mark_planned(run_id, "bench", time.time())
    store.close()
    return run_id


def server_stats(server: Any, schema: str) -> dict[str, float]:
    """A PostgreSQL test server's cumulative counters: CPU seconds of its process tree,
    commits of its database, WAL records and bytes, updates of ``schema``'s units table
    (all, and HOT: no index touched)."""
    import psycopg

    time.sleep(0.3)  # closed sessions' backends exit (and flush their statistics)
    with psycopg.connect(server.dsn, autocommit=True) as conn:
        commits = conn.execute("SELECT xact_commit FROM pg_stat_database"
                               " WHERE datname = current_database()").fetchone()[0]
        wal_records, wal_bytes = conn.execute(
            "SELECT wal_records, wal_bytes FROM pg_stat_wal").fetchone()
        row = conn.execute("SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables"
                           " WHERE schemaname = %s AND relname = 'units'", (schema,)).fetchone()
    upd, hot = row or (0, 0)
    return {"cpu": tree_cpu(server.proc.pid), "commits": commits, "wal_records": wal_records,
            "wal_bytes": float(wal_bytes), "upd": upd, "hot": hot}


def measure(uri: str, units: int, procs: int, pool: Any, offset: bool = True,
            combined: bool = True, server: Any = None, advance: bool = True,
            batch: int = 1) -> dict[str, Any]:
    run_id = plan(uri, units)
    schema = dict(parse_qsl(urlsplit(uri).query)).get("schema", "docfleet")
    before = server_stats(server, schema) if server is not None else None
    start_at = time.time() + 0.5
    results = pool.starmap(
        drain, [(uri, run_id, f"bench-{i}", i * units // procs if offset else 0, start_at,
                 combined, advance, units, batch) for i in range(procs)]
    )
    latencies = sorted(x for r in results for x in r["latencies"])
    wall = max(r["elapsed_s"] for r in results)
    claims = sum(r["claims"] for r in results)
    errors = [r["error"] for r in results if r.get("error")]
    assert errors or claims == units, f"{claims} claims for {units} units"
    row = {
        "procs": procs,
        "units": units,
        "combined": combined,
        "advance": advance,
        "batch": batch,
        "wall_s": round(wall, 3),
        "claims_per_s": round(claims / wall, 1),
        "claim_p50_ms": round(1000 * statistics.median(latencies), 3),
        "claim_p99_ms": round(1000 * latencies[int(0.99 * (len(latencies) - 1))], 3),
        "claim_max_ms": round(1000 * latencies[-1], 3),
        "lost_per_claim": round(sum(r["lost"] for r in results) / claims, 3),
        # claim + complete per unit, as one process experiences it
        "overhead_per_unit_ms": round(1000 * wall * procs / claims, 3),
        "store_errors": len(errors),
        # CPU per claim+complete pair: the bench processes (client), the server's tree
        "client_cpu_us": round(1e6 * sum(r["cpu_s"] for r in results) / claims, 1),
        # the largest peak RSS of one draining process; the machine's load at the end
        "peak_rss_mb": round(max(r["rss_kb"] for r in results) / 1024, 1),
        "load_1m": round(os.getloadavg()[0], 1),
    }
    if before is not None:
        after = server_stats(server, schema)
        per = {k: (after[k] - before[k]) / claims for k in after}
        row.update({"server_cpu_us": round(1e6 * per["cpu"], 1),
                    "commits_per_pair": round(per["commits"], 2),
                    "wal_records_per_pair": round(per["wal_records"], 2),
                    "wal_bytes_per_pair": round(per["wal_bytes"]),
                    "hot_update_share": round(per["hot"] / per["upd"], 2) if per["upd"] else 0})
    if errors:
        row["error"] = errors[0][:160]
    return row


class CloudBackends(contextlib.ExitStack):
    """State URIs for the registry's backends that have a test server, on servers started
    on first use."""

    def __init__(self) -> None:
        super().__init__()
        from support import backends, emulators

        self.emulators = emulators
        self.makers = backends.STATE_URI_MAKERS
        self.running: dict[str, Any] = {}

    def _emulator(self, fixture: str) -> Any:
        if fixture not in self.running:
            start = self.emulators.STARTERS[fixture]
            self.running[fixture] = emulator = (
                start(fsync=True) if fixture == "postgres_server" else start())
            self.callback(self.emulators.discard, emulator)
        return self.running[fixture]

    def uri(self, backend: str) -> str:
        """A fresh namespace (prefix / table / schema) in ``backend``'s test server."""
        from docfleet.core.backends import backend as registered
        from docfleet.core.errors import ConfigError

        scheme = {"postgresql-async": "postgresql"}.get(backend, backend)
        try:
            fixture = registered(scheme).test_server
        except ConfigError as exc:
            raise SystemExit(f"unknown backend {backend!r}: {exc}") from None
        uri = self.makers[scheme](self._emulator(fixture) if fixture else None,
                                  Path(tempfile.mkdtemp(prefix="docfleet-bench-")))
        # postgresql-async: libpq's options= turns synchronous_commit off for the session
        # (opt-in: a server crash may lose the last commits; see the README)
        suffix = {"postgresql-async": "&options=-c%20synchronous_commit%3Doff"}
        return uri + suffix.get(backend, "")

    def postgres(self, backend: str) -> Any:
        """The PostgreSQL test server behind ``backend`` (its CPU and counters are read),
        or ``None`` for another backend."""
        return self.running.get("postgres_server") if backend.startswith("postgresql") else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--units", type=int, default=20_000)
    parser.add_argument("--procs", default="1,2,4,8")
    parser.add_argument("--state", default=None, help="state URI (default: a temp SQLite file)")
    parser.add_argument("--backends", default="sqlite",
                        help="comma-separated registry schemes (sqlite, firestore, dynamodb, "
                             "postgresql) or postgresql-async")
    parser.add_argument("--start", default="offset", help="offset, zero, or offset,zero")
    parser.add_argument("--combined", default="on",
                        help="on: each completion claims the next unit in the same call "
                             "(complete_and_claim_next); off: complete, then claim; or on,off")
    parser.add_argument("--hint", default="advance",
                        help="advance: after a claim, search on just past it (what workers "
                             "do); fixed: always from the task's share; or advance,fixed")
    parser.add_argument("--batch", default="1",
                        help="units per claim: 1 (the combined call, or the two calls), or "
                             "K > 1: claim K, then complete them and claim the next K in one "
                             "call (complete_and_claim_units); comma-separated for several")
    parser.add_argument("--repeat", type=int, default=1,
                        help="rounds of the whole grid (rows carry their round): on a shared "
                             "machine compare medians, not one row")
    parser.add_argument("--out", type=Path, default=RESULTS / "claims.json")
    args = parser.parse_args()
    tmp = tempfile.mkdtemp(prefix="docfleet-bench-")
    rows = []
    ctx = multiprocessing.get_context("spawn")
    with CloudBackends() as cloud:
        for backend, repeat in [(b, r) for r in range(args.repeat)
                                for b in args.backends.split(",")]:
            for start in args.start.split(","):
                grid = [(int(p), c == "on", h == "advance", int(k))
                        for h in args.hint.split(",") for k in args.batch.split(",")
                        for c in args.combined.split(",") for p in args.procs.split(",")]
                # a batch call always completes and claims together: no "off" row for it
                grid = [g for g in grid if g[1] or g[3] == 1]
                for procs, combined, advance, batch in grid:
                    if backend == "sqlite":  # a fresh file per row
                        uri = args.state or f"sqlite:///{tmp}/state-{uuid.uuid4().hex[:6]}.db"
                    else:
                        uri = cloud.uri(backend)
                    with ctx.Pool(procs) as pool:
                        try:
                            row = measure(uri, args.units, procs, pool,
                                          offset=start == "offset", combined=combined,
                                          server=cloud.postgres(backend), advance=advance,
                                          batch=batch)
                        except DocfleetError as exc:  # e.g. claims that never get through
                            row = {"procs": procs, "units": args.units,
                                   "combined": combined, "batch": batch,
                                   "error": str(exc)[:160]}
                    rows.append({"backend": backend, "start": start, **row,
                                 **({"round": repeat} if args.repeat > 1 else {})})
                    print(json.dumps(rows[-1]), flush=True)
    table = Table(title=f"claims: {args.units} units, no-op payload")
    columns = list(dict.fromkeys(c for row in rows for c in row))
    for col in columns:
        table.add_column(col, justify="right")
    for row in rows:
        table.add_row(*(str(row.get(c, "")) for c in columns))
    Console(width=160).print(table)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"bench": "claims", "rows": rows}, indent=1) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
