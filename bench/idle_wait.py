"""Idle waiting on PostgreSQL: how soon an idle task takes a unit a peer gives back, when it
sleeps its poll interval between claims (what every store does) or waits on LISTEN/NOTIFY
(``PostgresStateStore.wait_for_work``, what the worker's linger loop uses on
``postgresql://``). Prints a table and writes ``bench/results/idle_wait.json``.

    python bench/idle_wait.py [--rounds 20] [--poll 1.0]

A throw-away PostgreSQL server (tests/support/emulators.py, fsync on) is started and removed. Each
round: the peer holds every unit, the idle task polls for work; the peer releases one unit
after a random 0.2-0.8 s; the latency is release → the idle task's claim. While nothing
happens both modes make one claim per poll interval (the same store traffic): LISTEN
removes the wait, not the polling bound.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import threading
import time
import uuid
from pathlib import Path

from rich.console import Console
from rich.table import Table

from docfleet.core import clock
from docfleet.core.models import RunSpec
from docfleet.kernel.planner import plan_units
from docfleet.state import open_state_store
from support import emulators

ROOT = Path(__file__).resolve().parent.parent

RESULTS = ROOT / "bench" / "results"


def one_mode(uri: str, mode: str, rounds: int, poll: float, rng: random.Random) -> dict:
    idle, peer = open_state_store(uri), open_state_store(uri)
    run_id = f"idle-{uuid.uuid4().hex[:8]}"
    spec = RunSpec(run_id=run_id, total=rounds, unit_size=1, pack="bench")
    peer.create_run(spec, "peer", clock.now())
    peer.put_units(run_id, plan_units(spec))
    peer.mark_planned(run_id, "peer", clock.now())
    held = [peer.claim_next_unit(run_id, "peer", 0, 600, clock.now()) for _ in range(rounds)]
    latencies = []
    for claim in held:
        assert claim is not None
        released: list[float] = []

        def give_back(c=claim, r=released) -> None:  # type: ignore[no-untyped-def]
            r.append(time.perf_counter())
            peer.release_unit(c, clock.now())

        timer = threading.Timer(rng.uniform(0.2, 0.8), give_back)
        timer.start()
        while True:
            got = idle.claim_next_unit(run_id, "idle", 0, 600, clock.now())
            if got is not None:
                latencies.append(time.perf_counter() - released[0])
                idle.complete_unit(got, "0" * 64, clock.now())
                break
            if mode == "listen":
                idle.wait_for_work(run_id, poll)  # type: ignore[attr-defined]
            else:
                time.sleep(poll)
        timer.join()
    idle.close()
    peer.close()
    return {"mode": mode, "rounds": rounds, "poll_s": poll,
            "wake_p50_ms": round(1000 * statistics.median(latencies), 1),
            "wake_max_ms": round(1000 * max(latencies), 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--poll", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, default=RESULTS / "idle_wait.json")
    args = parser.parse_args()
    server = emulators.start_postgres(fsync=True)
    try:
        rows = [one_mode(server.uri(f"idle_{mode}"), mode, args.rounds, args.poll,
                         random.Random(args.seed)) for mode in ("poll", "listen")]
    finally:
        emulators.discard(server)
    table = Table(title=f"idle wake-up on postgresql://, poll {args.poll}s")
    for col in rows[0]:
        table.add_column(col, justify="right")
    for row in rows:
        table.add_row(*(str(v) for v in row.values()))
    Console(width=140).print(table)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"bench": "idle_wait", "rows": rows}, indent=1) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
