"""Claim throughput: plan a run of N units with a no-op payload and drain it with 1, 2, 4
and 8 real processes; print claims/s, claim latency and the coordination overhead per
unit, and write JSON to bench/results/claims.json.

    python bench/claims.py                       # SQLite, 20,000 units
    python bench/claims.py --units 2000 --procs 1,2 --state sqlite:///tmp/b.db

Each process loops claim → complete against the store (what a worker does per unit,
minus the payload), so the figures are the coordination cost alone.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import statistics
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from docfleet.models import RunSpec
from docfleet.planner import plan_units
from docfleet.state import open_state_store

RESULTS = Path(__file__).parent / "results"


def drain(uri: str, run_id: str, owner: str, hint: int, start_at: float) -> dict[str, Any]:
    """One process: claim and complete until the pool is empty; return its timings."""
    store = open_state_store(uri)
    while time.time() < start_at:
        time.sleep(0.001)
    latencies: list[float] = []
    complete_s = 0.0
    began = time.perf_counter()
    while True:
        t0 = time.perf_counter()
        claim = store.claim_next_unit(run_id, owner, hint, 60.0, time.time())
        t1 = time.perf_counter()
        if claim is None:
            break
        latencies.append(t1 - t0)
        store.complete_unit(claim, "0" * 64, time.time())
        complete_s += time.perf_counter() - t1
    store.close()
    return {"claims": len(latencies), "latencies": latencies, "complete_s": complete_s,
            "elapsed_s": time.perf_counter() - began}


def plan(uri: str, units: int) -> str:
    store = open_state_store(uri)
    run_id = f"bench-{uuid.uuid4().hex[:8]}"
    spec = RunSpec(run_id=run_id, total=units, unit_size=1, pack="bench")
    store.create_run(spec, "bench", time.time())
    store.put_units(run_id, plan_units(spec))
    store.mark_planned(run_id, "bench", time.time())
    store.close()
    return run_id


def measure(uri: str, units: int, procs: int, pool: Any) -> dict[str, Any]:
    run_id = plan(uri, units)
    start_at = time.time() + 0.5
    results = pool.starmap(
        drain, [(uri, run_id, f"bench-{i}", i * units // procs, start_at) for i in range(procs)]
    )
    latencies = sorted(x for r in results for x in r["latencies"])
    wall = max(r["elapsed_s"] for r in results)
    claims = sum(r["claims"] for r in results)
    assert claims == units, f"{claims} claims for {units} units"
    return {
        "procs": procs,
        "units": units,
        "wall_s": round(wall, 3),
        "claims_per_s": round(claims / wall, 1),
        "claim_p50_ms": round(1000 * statistics.median(latencies), 3),
        "claim_p99_ms": round(1000 * latencies[int(0.99 * (len(latencies) - 1))], 3),
        # claim + complete per unit, as one process experiences it
        "overhead_per_unit_ms": round(1000 * wall * procs / claims, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--units", type=int, default=20_000)
    parser.add_argument("--procs", default="1,2,4,8")
    parser.add_argument("--state", default=None, help="state URI (default: a temp SQLite file)")
    parser.add_argument("--out", type=Path, default=RESULTS / "claims.json")
    args = parser.parse_args()
    tmp = tempfile.mkdtemp(prefix="docfleet-bench-")
    uri = args.state or f"sqlite:///{tmp}/state.db"
    rows = []
    ctx = multiprocessing.get_context("spawn")
    for procs in [int(p) for p in args.procs.split(",")]:
        with ctx.Pool(procs) as pool:
            rows.append({"backend": uri.split(":", 1)[0], **measure(uri, args.units, procs, pool)})
    table = Table(title=f"claims: {args.units} units, no-op payload")
    for col in rows[0]:
        table.add_column(col, justify="right")
    for row in rows:
        table.add_row(*(str(v) for v in row.values()))
    Console(width=160).print(table)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"bench": "claims", "rows": rows}, indent=1) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
