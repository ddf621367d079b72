"""Store traffic at scale: how many store operations a fleet makes per claim, per unit,
per idle task-second and per run, on every state store, counted at each task's own store
client (``DOCFLEET_STORE_OPS``, :mod:`docfleet.state.opcount`); then a written model
extrapolates to N = 10,000 tasks and U = 1,000,000 units, prices it with the stores'
published per-operation prices and checks it against their documented limits (on
Firestore: its write ramp under the fleet's claim governor, with the start-up minutes the
ramp costs, and its limit for sequential indexed fields; on PostgreSQL: connections).

    python bench/scale.py                                   # the default cells (slow)
    python bench/scale.py --backends sqlite --out bench/results/scale-sqlite.json
    python bench/scale.py --backends sqlite --tasks 2,8 --units 100,1000   # a full grid
    python bench/scale.py --model-only --merge bench/results/scale-sqlite.json,...

The default cells, (N=8; U=100, 1,000, 10,000) and (N=2, 8, 32; U=1,000), show flatness
in both directions on every backend. ``--model-only`` re-prices the cells in ``--out``,
or writes to ``--out`` the union of the ``--merge`` files' cells (one file per backend, run
on different branches or machines) with its model.

Each cell runs N real ``docfleet work`` processes (the ``bench`` pack, one document per
unit, file:// outputs) over U units. Once every other unit is DONE the benchmark holds
the last unit for ``--hold`` seconds, so the whole fleet lingers (idle polls, reclaim
queries) and waits at the end, as it would on one slow unit; then it releases it. Cloud
stores run on the emulators of tests/support/emulators.py (started here, stopped at the end).
Counts are what the clients sent; billed units follow the rules in opcount's docstring.
Writes JSON to ``--out`` (default bench/results/scale.json) and prints a table.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from claims import CloudBackends
from docfleet.core import backends as registry
from docfleet.core.models import UnitState
from docfleet.kernel import pacing, rescue, worker
from docfleet.state import open_state_store
from docfleet.state.dynamodb.schema import dynamodb_count_shards, dynamodb_layout
from docfleet.state.firestore.schema import firestore_count_shards
from docfleet.state.opcount import FIELDS, load, marks, phase_totals

RESULTS = Path(__file__).parent / "results"

# Published list prices (USD per operation, retrieved 2026-12) are each backend's
# ``op_prices`` in docfleet.core.backends: DynamoDB on-demand us-east-1, Firestore nam5;
# SQLite is a local file (no per-operation price).
TARGET_N, TARGET_U = 10_000, 1_000_000
#: Model assumptions: a unit's work time, the lease (a worker's default), linger.
UNIT_SECONDS, LEASE_SECONDS, LINGER_SECONDS = 60.0, 30.0, 60.0
#: A worker's default heartbeat (a third of the lease) and the renewals a unit of
#: UNIT_SECONDS takes (the cells' one-document units take none: the model adds them).
HEARTBEAT_SECONDS = LEASE_SECONDS / 3
RENEWALS_PER_UNIT = math.ceil(UNIT_SECONDS / HEARTBEAT_SECONDS) - 1


def lease_of(backend: str) -> tuple[float, float, int]:
    """(lease, heartbeat, renewals of a UNIT_SECONDS unit) of a TARGET_N fleet on
    ``backend``: the defaults, or on a store under a write ramp the lease the worker
    scales so that the fleet's renewals fit the ramp (``pacing.ramp_heartbeat``)."""
    entry = registry.backend(backend)
    if entry.write_ramp is None:
        return LEASE_SECONDS, HEARTBEAT_SECONDS, RENEWALS_PER_UNIT
    beat = pacing.ramp_heartbeat(pacing.WriteRamp(*entry.write_ramp), TARGET_N,
                                 HEARTBEAT_SECONDS)
    return (LEASE_SECONDS * beat / HEARTBEAT_SECONDS, beat,
            max(0, math.ceil(UNIT_SECONDS / beat) - 1))
#: PostgreSQL: connections per task (the store's main and heartbeat connections) and the
#: server's default max_connections; managed servers allow a few thousand at most.
PG_CONNECTIONS_PER_TASK, PG_DEFAULT_MAX_CONNECTIONS, PG_LARGE_MAX_CONNECTIONS = 2, 100, 5000
#: Firestore's documented limit on writes to a collection with a sequential indexed field.
SEQUENTIAL_INDEX_WRITES_PER_SECOND = 500.0


def fleet_env(state: str, out: str, run_id: str, units: int, tasks: int, ops: Path
              ) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOCFLEET_")}
    env.update(DOCFLEET_STATE=state, DOCFLEET_OUT=out, DOCFLEET_RUN_ID=run_id,
               DOCFLEET_TOTAL=str(units), DOCFLEET_UNIT_SIZE="1", DOCFLEET_PACK="bench",
               DOCFLEET_TASK_COUNT=str(tasks), DOCFLEET_LOG_FORMAT="json",
               DOCFLEET_POLL_SECONDS="0.5", DOCFLEET_LEASE_SECONDS=str(LEASE_SECONDS),
               DOCFLEET_STORE_OPS=str(ops / "ops-{pid}.json"), NO_GCE_CHECK="true")
    return env


def run_cell(state: str, tasks: int, units: int, hold: float, tmp: Path) -> dict[str, Any]:
    """One fleet of ``tasks`` processes over ``units`` units; returns the cell's counts."""
    run_id = f"scale-{uuid.uuid4().hex[:8]}"
    ops = tmp / run_id
    ops.mkdir(parents=True)
    env = fleet_env(state, f"file://{tmp / 'out'}", run_id, units, tasks, ops)
    t0 = time.monotonic()
    procs = []
    for i in range(tasks):
        with (ops / f"task-{i}.log").open("wb") as log:
            procs.append(subprocess.Popen(
                [sys.executable, "-m", "docfleet", "work"],
                env={**env, "DOCFLEET_TASK_INDEX": str(i)}, stdout=log,
                stderr=subprocess.STDOUT))
    store = open_state_store(state)
    held = None
    try:
        while held is None:
            if time.monotonic() - t0 > 3600 or all(p.poll() is not None for p in procs):
                raise RuntimeError(f"fleet of {tasks} over {units} units never got planned "
                                   f"or ended early (logs in {ops})")
            run = store.get_run(run_id)
            if run is not None and run.planned:
                held = store.claim_next_unit(run_id, "bench-holder", units - 1, 600.0,
                                             time.time())
                if held is None:
                    raise RuntimeError("the fleet drained before the bench held a unit")
            else:
                time.sleep(0.05)
        while store.progress(run_id)[UnitState.DONE] < units - 1:
            if all(p.poll() is not None for p in procs):
                raise RuntimeError(f"the fleet exited before draining (logs in {ops})")
            time.sleep(0.2)
        drained = time.monotonic()
        time.sleep(hold)
        store.release_unit(held, time.time())
        codes = [p.wait(1800) for p in procs]
        wall = time.monotonic() - t0
        completed = store.get_run(run_id).state.value
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
        store.close()
    dumps = load(list(ops.glob("ops-*.json")))
    shutil.rmtree(tmp / "out" / run_id, ignore_errors=True)
    return summarize(dumps, tasks, units, hold, wall, drained - t0, codes, completed)


def _sum(rows: list[dict[str, float]]) -> dict[str, float]:
    return {k: sum(r[k] for r in rows) for k in FIELDS}


def _per(total: dict[str, float], n: float) -> dict[str, float]:
    return {k: round(v / n, 3) if n else 0.0 for k, v in total.items()}


def summarize(dumps: list[dict[str, Any]], tasks: int, units: int, hold: float, wall: float,
              drain_s: float, codes: list[int], state: str) -> dict[str, Any]:
    per_task = []
    for d in dumps:
        m = marks(d)
        per_task.append({
            "finalizer": bool(m.get("finalizer")), "marks": m,
            "phases": {ph: phase_totals(d, ph) for ph in d.get("ops", {})},
        })
    fin = [t for t in per_task if t["finalizer"]]
    others = [t for t in per_task if not t["finalizer"]]
    zero = dict.fromkeys(FIELDS, 0.0)
    claims = sum(t["marks"].get("claim", 0) for t in per_task)
    idle_polls = sum(t["marks"].get("idle_poll", 0) for t in per_task)
    idle_s = sum(t["marks"].get("idle_ms", 0) for t in per_task) / 1000
    # the drain's clock-driven reads and writes (run-state checks, lease renewals) have
    # phases of their own for the tests' per-operation counts; the model sums them in
    drain = _sum([t["phases"].get(ph, zero) for t in per_task
                  for ph in ("drain", "state_check", "renew")])
    plan = _sum([t["phases"].get("plan", zero) for t in per_task])
    idle = _sum([t["phases"].get("idle", zero) for t in per_task])
    # the lease watch runs on its own thread beside the executor (kernel/rescue.py), busy
    # or idle: its own phase, counted per look and per RUNNING unit a look read
    watch = _sum([t["phases"].get("watch", zero) for t in per_task])
    looks = sum(t["marks"].get("lease_watch", 0) for t in per_task)
    seen = sum(t["marks"].get("watch_units", 0) for t in per_task)
    watchers = sum(1 for t in per_task if t["marks"].get("lease_watch", 0))
    fin_finish = _sum([t["phases"].get("finish", zero) for t in fin])
    end_others = [t["phases"].get("finish", zero) for t in others]
    work = _sum([drain, fin_finish])
    return {
        "tasks": tasks, "units": units, "codes_ok": all(c == 0 for c in codes),
        "run_state": state, "finalizers": len(fin), "wall_s": round(wall, 1),
        "drain_s": round(drain_s, 1), "hold_s": hold,
        "per_claim": _per(drain, claims),
        "per_unit": _per(work, units),
        "plan_per_unit": _per(plan, units),
        "per_idle_poll": _per(idle, idle_polls),
        "per_idle_task_s": _per(idle, idle_s),
        # each task's first idle poll (the one that finds the pool dry) is once per task;
        # the polls after it are what a lingering fleet costs per second
        "fleet_idle_polls_per_s": round(max(idle_polls - tasks, 0) / max(hold, 1e-9), 2),
        "fleet_idle_reads_per_s": round(max(idle_polls - tasks, 0) / max(idle_polls, 1)
                                        * idle["read_units"] / max(hold, 1e-9), 2),
        "end_per_task_max": {k: max((r[k] for r in end_others), default=0.0)
                             for k in FIELDS},
        "finalizer_per_unit": _per(fin_finish, units),
        "watch": {"looks": looks, "units_seen": seen, "tasks_that_looked": watchers,
                  "per_look": _per(watch, looks),
                  "read_units_per_unit_seen": round(watch["read_units"] / seen, 3)
                  if seen else None},
        # the run's total lease-watch reads (billed read units), as measured
        "watch_read_units_per_run": round(watch["read_units"], 1),
    }


# -- the model --------------------------------------------------------------------------
def model(backend: str, cells: list[dict[str, Any]]) -> dict[str, Any]:
    """Extrapolate to TARGET_N * TARGET_U from the measured per-operation costs.

    Terms (read units r, write units w; one unit = one work unit):
      work      = U * per_unit          (claim, complete, the finalizer's read)
      renew     = U * RENEWALS_PER_UNIT * the backend's renew_units (a UNIT_SECONDS unit
                  renews every HEARTBEAT_SECONDS; the measured one-document units do not)
      plan      = U * plan_per_unit + N * cold-start reads (1 each)
      idle      = N * first dry poll + FLEET_IDLE_POLLS_PER_SECOND * per_idle_poll *
                  linger seconds        (the fleet budget holds from the first wait)
      end       = N * end_per_task     (non-finalizers: O(1) each)
      watch     = the lease watch's looks (:func:`watch_term`): flat in N
    A term is flagged when its per-unit (or per-task) cost grew by more than 1.5x from the
    smallest to the largest measured U (or N), or when it depends on U by design (the
    counter shards below)."""
    ok = [c for c in cells if "per_unit" in c]
    if not ok:
        return {"backend": backend, "error": "no measured cells"}
    by_u = sorted(ok, key=lambda c: (c["units"], c["tasks"]))
    by_n = sorted(ok, key=lambda c: (c["tasks"], c["units"]))
    big = by_u[-1]
    flags = []

    def growth(rows: list[dict[str, Any]], key: str, axis: str) -> None:
        first, last = rows[0], rows[-1]
        if first[axis] == last[axis]:
            return
        for f in ("read_units", "write_units"):
            a, b = first[key][f], last[key][f]
            if b > 1.5 * a + 4.0:  # a few operations more is a constant, not growth
                flags.append(f"{key}.{f} grew {a:.2f} -> {b:.2f} as {axis} went "
                             f"{first[axis]} -> {last[axis]}")

    for key in ("per_claim", "per_unit", "per_idle_poll", "end_per_task_max"):
        growth(by_u, key, "units")
        growth(by_n, key, "tasks")
    # a finalize that takes longer (more units to prove) keeps its <= FINALIZE_STANDBYS
    # standbys polling longer, up to their linger (two leases): bounded, not O(U)
    standby_cap = max(c["per_idle_poll"]["read_units"] for c in ok) * LINGER_SECONDS * (
        pacing.FLEET_IDLE_POLLS_PER_SECOND / worker.FINALIZE_STANDBYS + 1)
    for i, flag in enumerate(flags):
        if flag.startswith("end_per_task_max.read_units grew") and all(
                c["end_per_task_max"]["read_units"] <= standby_cap for c in ok):
            flags[i] = (f"{flag} (a standby's polls while the finalizer works, stopped "
                        f"by its linger: at most ~{standby_cap:.0f} reads a task, whatever "
                        "U; the other tasks leave at once)")
    per_poll = dict(big["per_idle_poll"])
    extra_shards = 0
    if backend == "firestore":
        extra_shards = firestore_count_shards(TARGET_U) - firestore_count_shards(big["units"])
        flags.append(f"counter shards grow with U by design: {firestore_count_shards(TARGET_U)}"
                     " documents at U=1e6 (progress stays one aggregation read; each shard "
                     "takes ~2 writes per unit of its own)")
    if backend == "dynamodb":
        extra_shards = dynamodb_count_shards(TARGET_U) - dynamodb_count_shards(big["units"])
        per_poll["read_units"] += extra_shards  # one BatchGetItem: a read unit per item
        if extra_shards > 0:
            flags.append(f"counter items grow with U by design: "
                         f"{dynamodb_count_shards(TARGET_U)} items at U=1e6")
    n, u = TARGET_N, TARGET_U
    lease, beat, renewals = lease_of(backend)
    watch, watch_notes = watch_term(ok, lease)
    terms = {
        "work": {k: u * big["per_unit"][k] for k in ("read_units", "write_units")},
        "renew": {k: u * renewals * v for k, v in
                  zip(("read_units", "write_units"), registry.backend(backend).renew_units,
                      strict=True)},
        "plan": {"read_units": u * big["plan_per_unit"]["read_units"] + n,
                 "write_units": u * big["plan_per_unit"]["write_units"]},
        "idle": {k: (n + pacing.FLEET_IDLE_POLLS_PER_SECOND * LINGER_SECONDS) * per_poll[k]
                 for k in ("read_units", "write_units")},
        "end": {k: n * big["end_per_task_max"][k] for k in ("read_units", "write_units")},
        "watch": watch,
    }
    read_price, write_price = registry.backend(backend).op_prices
    price = {"read": read_price, "write": write_price}
    total_r = sum(t["read_units"] for t in terms.values())
    total_w = sum(t["write_units"] for t in terms.values())
    cost = total_r * price["read"] + total_w * price["write"]
    completion_rate = n / UNIT_SECONDS  # units/s at full fleet
    limits = limits_check(backend, completion_rate, big)
    return {
        "backend": backend, "N": n, "U": u, "from_cell": {"tasks": big["tasks"],
                                                        "units": big["units"]},
        "terms": {k: {f: round(v, 0) for f, v in t.items()} for k, t in terms.items()},
        "total_read_units": round(total_r), "total_write_units": round(total_w),
        "cost_usd": round(cost, 2), "cost_usd_per_million_documents": round(cost * 1e6 / u, 2),
        "flags": flags, "limits": limits,
        # the run's total lease-watch reads (billed read units), as modelled
        "watch_read_units_per_run": round(watch["read_units"]), "watch": watch_notes,
        "assumptions": {"unit_seconds": UNIT_SECONDS, "linger_seconds": LINGER_SECONDS,
                        "lease_seconds": round(lease, 1), "heartbeat_seconds": round(beat, 1),
                        "renewals_per_unit": renewals,
                        "fleet_idle_polls_per_s": pacing.FLEET_IDLE_POLLS_PER_SECOND,
                        "prices": price},
    }


def watch_term(cells: list[dict[str, Any]], lease: float
               ) -> tuple[dict[str, float], dict[str, Any]]:
    """The lease watch's reads over a TARGET_N x TARGET_U run (kernel/rescue.py's rules).

    A look reads every RUNNING unit at ``r`` read units each (the most any cell measured,
    at least 1 a look: a query's minimum; on an SQL store a look is one query, billed as
    measured whatever it returns); the fleet runs ``U x UNIT_SECONDS / N`` seconds
    with N units RUNNING, then a tail of UNIT_SECONDS over which they finish (N/2 on
    average) and the linger (2 leases, the worker's default) with none.

      designated = WATCHERS x looks every watch_period(lease) x N (then N/2, then 1) x r
      idle       = N x (linger / (lease / WATCHES_PER_LEASE)) looks x IDLE_WINDOW x r
                   (an upper bound: an idle task looks only while at most IDLE_WINDOW
                   units are RUNNING)

    Neither grows faster than N x U / N = U: the total is flat in the fleet's size (per
    unit: WATCHERS x UNIT_SECONDS / period looks of it). ``previous_rule`` is the rule
    it replaced, for comparison: every idle task WATCHES_PER_LEASE looks a lease over
    its linger, each reading the RUNNING units (N/2 on average in the tail): O(N²)."""
    watched = [c["watch"] for c in cells if c.get("watch", {}).get("looks")]
    per_item = any(w["per_look"]["items_read"] > 0 for w in watched)
    r = max((w["read_units_per_unit_seen"] or 0.0 for w in watched), default=1.0)
    per_look = max((w["per_look"]["read_units"] for w in watched), default=1.0)

    def reads(running: float) -> float:
        # a store billed per item returned (Firestore, DynamoDB: an upper bound there,
        # where a small cell's per-request minimum dominates) grows with the units a
        # look reads; an SQL store's look is one query whatever it returns
        return max(1.0, running * r) if per_item else per_look

    n, u = TARGET_N, TARGET_U
    period, idle_period = rescue.watch_period(lease), lease / rescue.WATCHES_PER_LEASE
    linger = 2 * lease
    drain_s = u * UNIT_SECONDS / n
    designated = rescue.WATCHERS * (drain_s / period * reads(n)
                                    + UNIT_SECONDS / period * reads(n / 2)
                                    + linger / period * reads(0))
    idle = n * (linger / idle_period) * reads(rescue.IDLE_WINDOW)
    previous = n * (linger / idle_period) * reads(n / 2)
    return ({"read_units": designated + idle, "write_units": 0.0},
            {"read_units_per_unit_seen": r if per_item else None,
             "read_units_per_look": None if per_item else per_look, "period_s": round(period, 2),
             "designated_read_units": round(designated), "idle_read_units": round(idle),
             "previous_rule_read_units": round(previous), "watchers": rescue.WATCHERS,
             "idle_window": rescue.IDLE_WINDOW,
             "reclaim_within_s": round(lease + 2 * period, 1)})


def ramp_rows(entry: registry.StateBackend, rate: float, big: dict[str, Any]
              ) -> list[dict[str, Any]]:
    """The fleet's unit writes against the store's ramp, with the claim governor
    (``pacing.ClaimGovernor``) and without (``?ramp=off``). A unit costs the measured
    per-unit writes plus the renewals of a UNIT_SECONDS unit under the lease the worker
    scales for the fleet (:func:`lease_of`); the governor's first slot assumes
    the backend's ``unit_writes`` plus a lease's worth of renewals."""
    assert entry.write_ramp is not None
    ramp = pacing.WriteRamp(*entry.write_ramp)
    lease, beat, renewals = lease_of(entry.scheme)
    unit_w = big["per_unit"]["write_units"] + renewals * entry.renew_units[1]
    demand = rate * unit_w  # writes/s of the whole fleet at full speed
    # the governed fleet writes min(demand, RAMP_HEADROOM * R(t)): step by step until the
    # ramp allows the demand, counting the fleet-minutes of work the ramp costs
    lost, step, k = 0.0, ramp.step_seconds, 0
    while pacing.RAMP_HEADROOM * ramp.rate(k * step) < demand and k < 200:
        lost += step * (1 - pacing.RAMP_HEADROOM * ramp.rate(k * step) / demand)
        k += 1
    first_w = entry.unit_writes + lease / beat
    first_peak = pacing.RAMP_HEADROOM * ramp.rate(0) * max(1.0, unit_w / first_w)
    # the same with --lease-seconds = UNIT_SECONDS (heartbeat a third of it)
    long_w = (big["per_unit"]["write_units"]
              + (math.ceil(UNIT_SECONDS / (UNIT_SECONDS / 3)) - 1) * entry.renew_units[1])
    first_peak_long = pacing.RAMP_HEADROOM * ramp.rate(0) * max(1.0, long_w / (
        entry.unit_writes + 3))
    return [
        {"what": "unit writes per second under the claim governor (peak / the ramp then)",
         "value": round(min(demand, pacing.RAMP_HEADROOM * ramp.rate(0)), 0),
         "ok": True, "ramp": str(ramp), "demand_writes_per_s": round(demand, 0),
         "writes_per_unit": round(unit_w, 2),
         "full_speed_after_minutes": round(k * step / 60, 1),
         "added_startup_minutes": round(lost / 60, 1),
         "note": f"each task claims at least N*w/R(t) apart; the fleet writes at most "
                 f"{pacing.RAMP_HEADROOM:.0%} of the ramp and reaches full speed when the "
                 f"ramp allows {demand:,.0f} writes/s; the run takes added_startup_minutes "
                 f"longer than an unthrottled one"},
        {"what": "unit writes per second in the first slot (before a task has measured a "
                 "unit; it assumes a unit of one lease)",
         "value": round(first_peak, 0), "ok": first_peak <= ramp.rate(0),
         "value_with_lease_of_a_unit": round(first_peak_long, 0),
         "lease_seconds": round(lease, 1), "heartbeat_seconds": round(beat, 1),
         "note": f"the worker scales a {TARGET_N:,}-task fleet's lease to {lease:.0f} s "
                 f"(heartbeat {beat:.0f} s) so that its renewals, all tasks working at "
                 f"once, take at most {pacing.RENEWAL_SHARE:.0%} of the ramp's start; a "
                 f"{UNIT_SECONDS:g} s unit then renews {renewals} time(s), fewer than the "
                 f"{lease / beat:g} the first slot assumes"},
        {"what": "unit writes per second without the governor (?ramp=off), vs the ramp's "
                 "start",
         "value": round(demand, 0), "ok": demand <= ramp.rate(0), "informational": True,
         "ramp_minutes": round(ramp.seconds_to(demand) / 60, 1),
         "note": "what the fleet would write from its first minute; the governor is on by "
                 "default, this row only shows what it saves"},
    ]


def limits_check(backend: str, rate: float, big: dict[str, Any]) -> list[dict[str, Any]]:
    """Peak rates of the 10,000-task run against the stores' documented limits."""
    out: list[dict[str, Any]] = []
    plan_cap = pacing.fleet_interval(0.5, TARGET_N, pacing.FLEET_PLAN_POLLS_PER_SECOND)
    if backend == "dynamodb":
        out += dynamodb_limits(rate, big)
    elif backend == "firestore":
        shards = firestore_count_shards(TARGET_U)
        out += [
            {"what": "writes per counter document per second (~1 sustained)",
             "value": round(2 * rate / shards, 2), "ok": 2 * rate / shards <= 1.0},
            {"what": "unit fields with sequential values left indexed (each holds the "
                     "units collection to 500 writes/s)",
             "value": 0, "ok": True,
             "note": "lease_expires_at, claimed_at, finished_at and start are exempted "
                     "(state.firestore.schema.FIRESTORE_UNINDEXED_FIELDS, Terraform "
                     "google_firestore_field);"
                     " idx stays indexed for the claim query but only the plan writes it"},
            {"what": "plan minutes: U sequential idx / document-id writes, the planner "
                     "paced at 90% of 500/s (pacing.plan_wait)",
             "value": round(TARGET_U / (pacing.RAMP_HEADROOM
                                        * SEQUENTIAL_INDEX_WRITES_PER_SECOND) / 60, 1),
             "ok": True,
             "note": "the plan stays under the sequential-index limit, and the fleet waits "
                     "for it: larger units (e.g. 10 documents: 100,000 units) cut it tenfold"},
            {"what": "reads of the run document per second while waiting for the plan",
             "value": pacing.FLEET_PLAN_POLLS_PER_SECOND, "ok": True},
        ]
    elif backend == "postgresql":
        need = PG_CONNECTIONS_PER_TASK * TARGET_N
        out += [
            {"what": f"connections: {PG_CONNECTIONS_PER_TASK} per task vs max_connections "
                     f"(default {PG_DEFAULT_MAX_CONNECTIONS}; large managed servers "
                     f"~{PG_LARGE_MAX_CONNECTIONS:,})",
             "value": need, "ok": need <= PG_LARGE_MAX_CONNECTIONS,
             "max_tasks_default": PG_DEFAULT_MAX_CONNECTIONS // PG_CONNECTIONS_PER_TASK,
             "max_tasks_large": PG_LARGE_MAX_CONNECTIONS // PG_CONNECTIONS_PER_TASK,
             "note": "PostgreSQL stops here, not at its write rate: one server takes a "
                     "fleet of ~50 tasks at the default, ~2,500 on a large instance; a "
                     "transaction-mode pooler (PgBouncer) would break LISTEN/NOTIFY and "
                     "the session's fencing, so 10,000 tasks need Firestore or DynamoDB"},
            {"what": "claim+complete pairs per second the fleet needs (N / unit seconds)",
             "value": round(rate, 1), "ok": True,
             "note": "bench/claims.py measured ~3,200 durable pairs/s at 8 processes one unit "
                     "a statement and ~11,500 in batches of 16 on 2 shared cores "
                     "(bench/results/claims_postgres-batch-quiet.json)"},
        ]
    entry = registry.backend(backend)
    first_slot = 0.0
    if entry.write_ramp is not None:
        out += ramp_rows(entry, rate, big)
        lease, beat, _ = lease_of(backend)
        first_slot = pacing.claim_spacing(TARGET_N, entry.unit_writes + lease / beat,
                                          pacing.WriteRamp(*entry.write_ramp), 0.0)
    out.append({"what": "longest wait after the plan lands before a task claims (s)",
                "value": round(plan_cap * 4 / 3 + first_slot, 1), "ok": True,
                "plan_wait_s": round(plan_cap * 4 / 3, 1),
                "first_slot_s": round(first_slot, 1),
                "note": "the last plan-wait poll, then (under a write ramp) the first claim "
                        "jittered over one governor slot"})
    return out


#: DynamoDB's documented limits (developer guide: "Burst and adaptive capacity", "On-demand
#: capacity mode: initial throughput"): per partition 1,000 WCU/s and 3,000 RCU/s; a new
#: on-demand table (and each of its indexes) sustains 4,000 write and 12,000 read request
#: units per second at once and scales past that (to double a previous peak at once).
DDB_KEY_WCU, DDB_KEY_RCU = 1000.0, 3000.0
DDB_NEW_TABLE_WCU, DDB_NEW_TABLE_RCU = 4000.0, 12000.0
#: Model assumptions: a planner's BatchWriteItem (25 items) round trip; the finalizer's
#: sequential Query of 1 MB pages (256 strongly consistent read units each) per second.
DDB_PLAN_BATCH_SECONDS, DDB_FINALIZER_PAGES_PER_SECOND = 0.01, 10.0


def dynamodb_limits(rate: float, big: dict[str, Any]) -> list[dict[str, Any]]:
    """Peak per-partition-key rates of the base table and of each index, and table-level
    rates against a new on-demand table, for a fleet completing ``rate`` units/s. Per
    unit: the measured write and read units (claim and complete transactions, each of the
    unit and its counter: 2 + 2 write units on the counter), plus the renewals of a
    UNIT_SECONDS unit (1 WCU each on the base item, 2 on the ``leases`` index, whose sort
    key changes). Units are spread over the blocks by ``idx % blocks`` and the counters
    by ``idx % counters``, so each key takes its share whatever the order of the claims;
    the pending index is charged as if every claim hit one shard."""
    layout = dynamodb_layout(TARGET_U)
    share = max(layout.block_sizes()) / TARGET_U  # the largest block's share of the units
    counter_share = max(layout.counter_sizes()) / TARGET_U
    renewals = UNIT_SECONDS / (LEASE_SECONDS / 3)  # the worker's default heartbeat
    counter_w = rate * 4  # the claim's and the completion's ADD, 2 write units each
    base_w = rate * (big["per_unit"]["write_units"] + renewals)
    unit_w = base_w - counter_w
    base_r = rate * big["per_unit"]["read_units"]
    lease_w = rate * (1 + 2 * renewals + 1)  # claim adds, renewals move, completion drops
    pending_w = rate * 1  # the claim drops the entry
    plan_items = 25 / DDB_PLAN_BATCH_SECONDS  # one planner's BatchWriteItem stream
    idle_reads = pacing.FLEET_IDLE_POLLS_PER_SECOND  # a counter per block per idle poll
    finalizer_r = 256 * DDB_FINALIZER_PAGES_PER_SECOND
    marker_r = pacing.FLEET_PLAN_POLLS_PER_SECOND + pacing.FLEET_STATE_CHECKS_PER_SECOND

    def row(what: str, value: float, limit: float, **extra: Any) -> dict[str, Any]:
        return {"what": what, "value": round(value, 1), "limit": limit,
                "ok": value <= limit, **extra}

    return [
        row(f"hottest block key writes (WCU/s; {layout.blocks} blocks, per partition)",
            unit_w * share, DDB_KEY_WCU,
            note=f"{big['per_unit']['write_units']:.2f} measured + {renewals:.0f} renewals "
                 "per unit, less the counter's 4"),
        row(f"hottest counter key writes (WCU/s; {layout.counters} counters)",
            counter_w * counter_share, DDB_KEY_WCU),
        row("hottest block key reads while draining (RCU/s: the claims' reads, progress)",
            base_r * share + idle_reads, DDB_KEY_RCU),
        row("block key reads while the finalizer walks the units (RCU/s)", finalizer_r,
            DDB_KEY_RCU, note=f"one sequential reader, a block at a time: "
                              f"{DDB_FINALIZER_PAGES_PER_SECOND:g} pages of 1 MB/s assumed"),
        row("run key reads (RCU/s: plan waits + state checks of the marker; the key takes "
            "no unit or counter write)",
            marker_r, DDB_KEY_RCU),
        row(f"hottest leases-index key writes (WCU/s; {layout.blocks} block keys)",
            lease_w * share, DDB_KEY_WCU),
        row(f"hottest pending-index key writes (WCU/s; all claims on one of "
            f"{layout.pending_shards} shards)", pending_w, DDB_KEY_WCU),
        row("hottest pending-index key reads (RCU/s; every claim's reads charged to one "
            "shard)", rate * big["per_claim"]["read_units"], DDB_KEY_RCU),
        row("leases-index reads (RCU/s; the fleet's lease watches, a full 1 MB Scan page "
            "each)", rescue.WATCHERS / rescue.watch_period(LEASE_SECONDS) * 128,
            DDB_KEY_RCU,
            note=f"{rescue.WATCHERS} designated watchers look every "
                 f"{rescue.watch_period(LEASE_SECONDS):g} s, busy or idle (an idle task "
                 f"looks only while <= {rescue.IDLE_WINDOW} units run: a small page); a "
                 "page of 1 MB costs 128 eventually consistent read units"),
        row("pending-index key writes while planning (WCU/s; writes round-robin over "
            "the shards)", plan_items / layout.pending_shards, DDB_KEY_WCU,
            note=f"one planner at {DDB_PLAN_BATCH_SECONDS * 1000:g} ms per 25-item batch"),
        row("block key writes while planning (WCU/s)", plan_items * share, DDB_KEY_WCU),
        row("table writes (WCU/s; a new on-demand table)", max(base_w, plan_items),
            DDB_NEW_TABLE_WCU, note=f"draining {base_w:.0f}, planning {plan_items:.0f}"),
        row("leases-index writes (WCU/s; a new on-demand index)", lease_w,
            DDB_NEW_TABLE_WCU),
        row("pending-index writes (WCU/s; while planning)", plan_items, DDB_NEW_TABLE_WCU),
        row("table reads (RCU/s)", base_r + marker_r + finalizer_r, DDB_NEW_TABLE_RCU),
    ]


def show(rows: list[dict[str, Any]], models: list[dict[str, Any]]) -> None:
    table = Table(title="store traffic per claim / unit / idle poll / idle task-second "
                        "(read units r, write units w)")
    for col in ("backend", "N", "U", "claim r/w", "unit r/w", "idle poll r/w",
                "idle task-s r", "fleet linger r/s", "end/task r/w", "final r/unit", "ok"):
        table.add_column(col, justify="right")
    for r in rows:
        if "error" in r:
            table.add_row(r["backend"], str(r["tasks"]), str(r["units"]), r["error"][:60],
                          *[""] * 7)
            continue

        def rw(d: dict[str, float]) -> str:
            return f"{d['read_units']:.2f}/{d['write_units']:.2f}"

        table.add_row(r["backend"], str(r["tasks"]), str(r["units"]), rw(r["per_claim"]),
                      rw(r["per_unit"]), rw(r["per_idle_poll"]),
                      f"{r['per_idle_task_s']['read_units']:.3f}",
                      f"{r['fleet_idle_reads_per_s']:.1f}", rw(r["end_per_task_max"]),
                      f"{r['finalizer_per_unit']['read_units']:.2f}",
                      "yes" if r["codes_ok"] and r["finalizers"] == 1 else "NO")
    console = Console(width=170)
    console.print(table)
    mt = Table(title=f"model: N={TARGET_N:,} tasks, U={TARGET_U:,} units")
    for col in ("backend", "work r/w", "renew r/w", "plan r/w", "idle r/w", "end r/w",
                "watch r (was)", "USD/run", "USD per 1M docs", "limits ok",
                "ramp: full speed / +min", "flags"):
        mt.add_column(col, justify="right")
    for m in models:
        if "terms" not in m:
            continue
        t = m["terms"]

        def rw2(d: dict[str, float]) -> str:
            return f"{d['read_units']:.3g}/{d['write_units']:.3g}"

        binding = [x for x in m["limits"] if not x.get("informational")]
        governed = next((x for x in m["limits"] if "full_speed_after_minutes" in x), None)
        mt.add_row(m["backend"], rw2(t["work"]), rw2(t.get("renew", {"read_units": 0,
                                                                  "write_units": 0})),
                   rw2(t["plan"]), rw2(t["idle"]), rw2(t["end"]),
                   f"{m['watch_read_units_per_run']:.3g} "
                   f"({m['watch']['previous_rule_read_units']:.3g})", f"{m['cost_usd']:.2f}",
                   f"{m['cost_usd_per_million_documents']:.2f}",
                   "yes" if all(x["ok"] for x in binding) else
                   f"no: {sum(not x['ok'] for x in binding)} (below)",
                   f"{governed['full_speed_after_minutes']:g} / "
                   f"+{governed['added_startup_minutes']:g}" if governed else "-",
                   str(len(m["flags"])))
    console.print(mt)
    for m in models:
        for x in m.get("limits", []):
            if not x["ok"] and not x.get("informational"):
                console.print(f"{m['backend']}: over a limit: {x['what']} = {x['value']:,}"
                              + (f" ({x['note']})" if x.get("note") else ""),
                              markup=False, highlight=False)


#: The default cells: flat in U (N=8, U=100..10,000) and flat in N (N=2..32, U=1,000).
DEFAULT_CELLS = "8:100,8:1000,8:10000,2:1000,32:1000"


def grid(cells: str, tasks: str, units: str) -> list[tuple[int, int]]:
    """The (N, U) cells to run: ``--tasks`` x ``--units`` when both are given, else the
    ``N:U`` pairs of ``cells``, in order, without repeats."""
    if tasks and units:
        pairs = [(int(n), int(u)) for u in units.split(",") for n in tasks.split(",")]
    elif tasks or units:
        raise SystemExit("--tasks and --units go together (or use --cells N:U,...)")
    else:
        try:
            pairs = [(int(n), int(u)) for n, _, u in
                     (c.partition(":") for c in cells.split(",") if c)]
        except ValueError:
            raise SystemExit(f"--cells {cells!r}: expected N:U pairs such as 8:1000") from None
    return list(dict.fromkeys(pairs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backends", default="sqlite,firestore,dynamodb,postgresql")
    parser.add_argument("--cells", default=DEFAULT_CELLS,
                        help="N:U pairs to run (default: flat in U at N=8, flat in N at "
                             "U=1,000); --tasks/--units run their full grid instead")
    parser.add_argument("--tasks", default="", help="with --units: the N x U grid")
    parser.add_argument("--units", default="", help="with --tasks: the N x U grid")
    parser.add_argument("--hold", type=float, default=10.0,
                        help="seconds the fleet lingers on the held unit")
    parser.add_argument("--skip", default="",
                        help="cells to skip, e.g. firestore:32:10000,dynamodb:*:10000")
    parser.add_argument("--out", type=Path, default=RESULTS / "scale.json")
    parser.add_argument("--model-only", action="store_true",
                        help="re-run the model on the cells in --out, or on --merge's")
    parser.add_argument("--merge", default="",
                        help="with --model-only: comma-separated result files whose cells "
                             "(together) replace --out's")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stop emulators on SIGTERM
    rows: list[dict[str, Any]] = []
    if args.model_only:
        merge = [Path(m) for m in args.merge.split(",") if m]
        if not merge:  # re-price --out's own cells
            rows = json.loads(args.out.read_text())["cells"] if args.out.exists() else []
        for extra in merge:  # else --out becomes the union of the merged files' cells
            rows += json.loads(extra.read_text())["cells"]
    else:
        skip = {tuple(s.split(":")) for s in args.skip.split(",") if s}
        tmp = Path(tempfile.mkdtemp(prefix="docfleet-scale-"))
        with CloudBackends() as cloud:
            for backend in args.backends.split(","):
                for tasks, units in grid(args.cells, args.tasks, args.units):
                    if any(s[0] == backend and s[1] in ("*", str(tasks))
                           and s[2] in ("*", str(units)) for s in skip):
                        continue
                    uri = (f"sqlite:///{tmp}/state-{uuid.uuid4().hex[:6]}.db"
                           if backend == "sqlite" else cloud.uri(backend))
                    try:
                        row = run_cell(uri, tasks, units, args.hold, tmp)
                    except RuntimeError as exc:
                        row = {"tasks": tasks, "units": units, "error": str(exc)}
                    rows.append({"backend": backend, **row})
                    print(json.dumps({k: rows[-1][k] for k in
                                      ("backend", "tasks", "units", "wall_s")
                                      if k in rows[-1]}), flush=True)
                    write(args.out, rows, [])  # a cell at a time: nothing lost
        shutil.rmtree(tmp, ignore_errors=True)
    models = [model(b, [r for r in rows if r["backend"] == b])
              for b in dict.fromkeys(r["backend"] for r in rows)]
    show(rows, models)
    write(args.out, rows, models)
    print(f"wrote {args.out}")


def write(out: Path, rows: list[dict[str, Any]], models: list[dict[str, Any]]) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(json.dumps({"bench": "scale", "cells": rows, "model": models},
                              indent=1) + "\n")
    tmp.replace(out)


if __name__ == "__main__":
    main()
