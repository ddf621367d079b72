"""Catalogue call throughput: calls/s of one task's completer (real litellm, real HTTP,
the fleet budget's reserve/settle in a SQLite store) against the local fake provider of
tests/support/fake_llm.py, at 50 ms and 200 ms provider latency for concurrency 1, 8,
32 and 128, as a ratio to the ideal (concurrency / latency). Prints a table and writes
JSON to bench/results/catalogue.json.

    python bench/catalogue.py
    python bench/catalogue.py --latencies 0.05 --concurrency 1,8 --block-calls 32
    python bench/catalogue.py --no-budget          # without reservations (spend only)

The ideal assumes zero client overhead; what is lost is litellm's per-call CPU, the
event loop, and the budget's two store writes per call (one per block with
``--block-calls``). On a shared 2-core box, read the ratios, not the absolute figures.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import math
import os
import platform
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

os.environ.setdefault("OPENAI_API_KEY", "sk-fake-key-for-the-local-bench-server")

from docfleet.catalogue.budget import BudgetGuard
from docfleet.catalogue.complete import CallSettings, ItemCompleter
from docfleet.catalogue.llm import litellm_module
from docfleet.catalogue.plan import parse_options
from docfleet.state.sqlite.store import SQLiteStateStore
from support.fake_llm import FAKE_PRICE

MODEL = "openai/fake-bench"
ITEMS_PER_VARIANT = 128  # 4 kinds x 8 lines x 4 locales


def calls_for(concurrency: int, latency: float, seconds: float) -> int:
    """Enough calls for ~``seconds`` at the ideal rate, at least 4 waves and 16 calls."""
    return max(16, 4 * concurrency, int(seconds * concurrency / latency))


class RemoteServer:
    """The fake provider in its own process (``python -m support.fake_llm``), so its
    threads do not take the client's GIL; controlled over HTTP."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "support.fake_llm"],
                                     stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        self.api_base = self.proc.stdout.readline().strip()
        self.root = self.api_base.removesuffix("/v1")

    def behave(self, model: str, **kw: Any) -> None:
        body = json.dumps({"model": model, **kw}).encode()
        request = urllib.request.Request(f"{self.root}/_behave", data=body, method="POST",
                                          headers={"Content-Type": "application/json"})
        urllib.request.urlopen(request, timeout=10).read()

    def reset_books(self) -> None:
        pass  # /_behave resets them; warm-up calls are excluded by re-behaving

    def books(self) -> dict[str, Any]:
        return json.loads(urllib.request.urlopen(f"{self.root}/_books", timeout=10).read())

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


def measure(server: RemoteServer, store_dir: Path, concurrency: int, latency: float,
            calls: int, budget: bool, block_calls: int) -> dict[str, Any]:
    server.behave("fake-bench", latency=latency, completion_tokens=20)
    options = parse_options({
        "models": MODEL, "prices": {MODEL: FAKE_PRICE},
        "variants": math.ceil(calls / ITEMS_PER_VARIANT), "max_tokens": 40,
        "budget_usd": "1000" if budget else None,
    })
    run_id = f"bench-{concurrency}-{int(latency * 1000)}-{time.time_ns()}"
    store = SQLiteStateStore(store_dir / "bench.db")

    async def go() -> float:
        guard = BudgetGuard(store, run_id, "bench", options.cap_nano, ttl_seconds=120,
                            block_calls=block_calls)
        completer = ItemCompleter(
            store, run_id, options, guard,
            CallSettings(concurrency=concurrency, call_timeout=30, retries=0,
                         api_base=server.api_base, quarantine_refresh=5),
            logging.getLogger("bench"), litellm=litellm_module())
        items = [options.item(i) for i in range(calls)]
        await completer.complete_items(items[:concurrency])  # warm-up: connections, caches
        server.behave("fake-bench", latency=latency, completion_tokens=20)  # resets books
        started = time.perf_counter()
        entries = await completer.complete_items(items)
        elapsed = time.perf_counter() - started
        assert all(e.source == "llm" for e in entries), [e.reason for e in entries][:5]
        return elapsed

    elapsed = asyncio.run(go())
    store.close()
    rate = calls / elapsed
    ideal = concurrency / latency
    return {"latency_ms": int(latency * 1000), "concurrency": concurrency, "calls": calls,
            "seconds": round(elapsed, 3), "calls_per_s": round(rate, 1),
            "ideal_per_s": round(ideal, 1), "ratio": round(rate / ideal, 3),
            "max_in_flight": server.books()["max_in_flight"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latencies", default="0.05,0.2")
    parser.add_argument("--concurrency", default="1,8,32,128")
    parser.add_argument("--seconds", type=float, default=2.0,
                        help="Target duration of each point at the ideal rate.")
    parser.add_argument("--no-budget", action="store_true")
    parser.add_argument("--block-calls", type=int, default=1)
    parser.add_argument("--out", type=Path,
                        default=Path(__file__).parent / "results" / "catalogue.json")
    args = parser.parse_args()
    console = Console()
    t0 = time.perf_counter()
    litellm_module()
    console.print(f"litellm imported in {time.perf_counter() - t0:.1f}s")
    rows = []
    server = RemoteServer()
    with contextlib.closing(server), tempfile.TemporaryDirectory() as tmp:
        for latency in (float(x) for x in args.latencies.split(",")):
            for conc in (int(x) for x in args.concurrency.split(",")):
                calls = calls_for(conc, latency, args.seconds)
                row = measure(server, Path(tmp), conc, latency, calls, not args.no_budget,
                              args.block_calls)
                rows.append(row)
                console.print(row)
    table = Table(title="catalogue calls/s vs ideal (concurrency / latency)")
    for col in ("latency ms", "concurrency", "calls", "calls/s", "ideal/s", "ratio",
                "max in flight"):
        table.add_column(col, justify="right")
    for r in rows:
        table.add_row(str(r["latency_ms"]), str(r["concurrency"]), str(r["calls"]),
                      f"{r['calls_per_s']:.1f}", f"{r['ideal_per_s']:.0f}",
                      f"{r['ratio']:.2f}", str(r["max_in_flight"]))
    console.print(table)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({
        "benchmark": "catalogue", "budget": not args.no_budget,
        "block_calls": args.block_calls, "store": "sqlite", "cpus": os.cpu_count(),
        "load_avg_1m": os.getloadavg()[0], "python": platform.python_version(),
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "rows": rows,
    }, indent=1) + "\n")
    console.print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
