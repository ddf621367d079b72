"""Tracing overhead on the claim loop of ``bench/claims.py``: the same claim → complete
drain, with the spans a worker emits per unit (``docfleet.claim``, ``docfleet.unit``,
``docfleet.manifest.part``), under three settings:

- ``plain``: ``bench/claims.py``'s own uninstrumented drain;
- ``none``: instrumented, tracing off (the default: no-op spans);
- ``otlp``: instrumented, OTLP/HTTP (batch processor) to a real receiver on 127.0.0.1
  that decodes every request (it shares the machine's cores with the workers).

Wall time includes each process's final span flush. The batch queue is raised to
``QUEUE`` spans so every span is exported (with the SDK's default 2048, spans are dropped
at this rate and the overhead would look smaller). Prints the ratios and writes JSON to
``bench/results/tracing.json``::

    python bench/tracing.py                      # SQLite, 4,000 units, 1 and 2 processes
    python bench/tracing.py --units 2000 --procs 1 --repeat 1
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from claims import RESULTS, drain, plan
from docfleet import telemetry
from docfleet.dataset.manifest import part_key
from docfleet.state import open_state_store
from support.otlp_receiver import OTLPReceiver

#: Batch queue of the traced drains: large enough to hold a whole run's spans.
QUEUE = 65536


def drain_traced(
    uri: str, run_id: str, owner: str, hint: int, start_at: float, mode: str, endpoint: str
) -> dict[str, Any]:
    """``claims.drain`` with the worker's per-unit spans; tracing set up for ``mode``."""
    os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"] = endpoint
    # every span delivered (the default 2048-span queue drops spans at this rate)
    os.environ["OTEL_BSP_MAX_QUEUE_SIZE"] = str(QUEUE)
    telemetry.setup_tracing(mode, {"service.instance.id": owner})
    store = open_state_store(uri)
    while time.time() < start_at:
        time.sleep(0.001)
    claims = 0
    began = time.perf_counter()
    with telemetry.root_span("docfleet.task", {"docfleet.run_id": run_id}):
        while True:
            # the worker's _claim: time it, then record the span only for a claim
            races = getattr(store, "lost_races", None)
            started, t0 = telemetry.now_ns(), time.perf_counter()
            claim = store.claim_next_unit(run_id, owner, hint, 60.0, time.time())
            if claim is None:
                break
            if telemetry.enabled():
                telemetry.record_span("docfleet.claim", started, {
                    **telemetry.db_attributes(store.uri), "db.operation.name": "claim_next_unit",
                    **telemetry.claim_attributes(claim, time.perf_counter() - t0, races,
                                                 getattr(store, "lost_races", None))},
                    kind=telemetry.SpanKind.CLIENT)
            claims += 1
            with telemetry.span("docfleet.unit", {
                "docfleet.unit.index": claim.unit_index, "docfleet.unit.attempt": claim.attempts,
                "docfleet.unit.start": claim.start, "docfleet.unit.count": claim.count,
            }) as unit_span:
                with telemetry.span("docfleet.manifest.part", {
                    "docfleet.manifest.key": part_key(claim.unit_index),
                    "docfleet.manifest.sha256": "0" * 64, "docfleet.manifest.size": 0,
                    "docfleet.unit.index": claim.unit_index,
                }):
                    pass
                store.complete_unit(claim, "0" * 64, time.time())
                unit_span.set_attributes({"docfleet.unit.outcome": "done",
                                          "docfleet.unit.documents": claim.count,
                                          "docfleet.unit.bytes": 0})
    telemetry.shutdown()
    store.close()
    return {"claims": claims, "elapsed_s": time.perf_counter() - began}


def measure(uri: str, units: int, procs: int, mode: str, endpoint: str, pool: Any) -> float:
    """Wall seconds to drain ``units`` with ``procs`` processes under ``mode``."""
    run_id = plan(uri, units)
    start_at = time.time() + 0.5
    hints = [i * units // procs for i in range(procs)]
    if mode == "plain":
        results = pool.starmap(drain, [(uri, run_id, f"b-{i}", h, start_at)
                                       for i, h in enumerate(hints)])
    else:
        results = pool.starmap(drain_traced, [(uri, run_id, f"b-{i}", h, start_at, mode,
                                               endpoint) for i, h in enumerate(hints)])
    assert sum(r["claims"] for r in results) == units
    return max(r["elapsed_s"] for r in results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--units", type=int, default=4000)
    parser.add_argument("--procs", default="1,2")
    parser.add_argument("--repeat", type=int, default=3, help="runs per setting (median)")
    parser.add_argument("--out", type=Path, default=RESULTS / "tracing.json")
    args = parser.parse_args()
    uri = f"sqlite:///{tempfile.mkdtemp(prefix='docfleet-bench-')}/state.db"
    ctx = multiprocessing.get_context("spawn")
    rows = []
    with OTLPReceiver() as rx:
        for procs in [int(p) for p in args.procs.split(",")]:
            walls: dict[str, list[float]] = {"plain": [], "none": [], "otlp": []}
            with ctx.Pool(procs) as pool:
                for _ in range(args.repeat):  # interleaved, so drift hits every setting
                    for mode in walls:
                        walls[mode].append(measure(uri, args.units, procs, mode,
                                                   rx.endpoint, pool))
            med = {m: statistics.median(w) for m, w in walls.items()}
            rows.append({
                "procs": procs, "units": args.units,
                "plain_s": round(med["plain"], 3), "none_s": round(med["none"], 3),
                "otlp_s": round(med["otlp"], 3),
                "none_vs_plain": round(med["none"] / med["plain"], 3),
                "otlp_vs_none": round(med["otlp"] / med["none"], 3),
                "otlp_extra_ms_per_unit": round(
                    1000 * (med["otlp"] - med["none"]) * procs / args.units, 3),
            })
        received = len(rx.named("docfleet.claim"))
    expected = args.units * args.repeat * len(rows)
    assert received == expected, f"receiver got {received} claim spans, expected {expected}"
    table = Table(title=f"tracing overhead on the claim loop ({args.units} units, SQLite, "
                  f"median of {args.repeat})")
    for col in rows[0]:
        table.add_column(col, justify="right")
    for row in rows:
        table.add_row(*(str(v) for v in row.values()))
    Console(width=160).print(table)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"bench": "tracing", "cpus": os.cpu_count(),
                                    "claim_spans_received": received, "rows": rows},
                                   indent=1) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
