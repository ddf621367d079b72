"""The long chaos run (issue 9): every fault scenario of ``tests/support/chaoslib.py``, N
rounds on each state backend of the registry (SQLite, the Firestore emulator, the DynamoDB
emulator, a PostgreSQL server), with seeded randomness. Prints a table and writes
``bench/results/chaos.json``:
scenario x backend -> rounds, units, kills, recovered, lost (must be 0), double-completed
(must be 0), false-complete (a run read as complete when it was not: must be 0),
stranded (units left RUNNING after every task exited: must be 0), time to recover
(p50/p99). The integrity scenarios of issue 12 are ``foreign-root``,
``damage-before-root``, ``damage-after-completed``, ``environment-fault`` and
``fast-clock``.

    python bench/chaos.py --rounds 5 [--backends sqlite,dynamodb] [--scenarios kills,skew]
    python bench/chaos.py --rounds 1 --backends postgresql --scenarios storm --storm-tasks 32
    python bench/chaos.py --rounds 20 --scenarios early-kill --early-kill-lease 5 \
        --early-kill-units 24 --early-kill-doc-ms 300 --out bench/results/chaos-early-kill.json

``early-kill`` (issue 26) also reports, per backend, kill-to-reclaim p50/max against its
goal (lease + 10 s: ``reclaim_within_goal`` rounds) and the extra attempts of each killed
unit (goal: exactly 1 per started unit, ``killed_unit_extra_attempts_1`` rounds).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import platform
import random
import shutil
import sys
import tempfile
import time
import traceback
import uuid
from contextlib import ExitStack
from dataclasses import asdict
from pathlib import Path

from docfleet.core.backends import BACKENDS as REGISTRY
from docfleet.core.backends import backend as registered
from support import chaoslib, emulators
from support.backends import STATE_URI_MAKERS
from support.chaoslib import Result, Stack, pct

ROOT = Path(__file__).resolve().parent.parent

BACKENDS = tuple(b.scheme for b in REGISTRY)


class Stacks:
    """Fresh stacks on demand; each cloud backend's emulator is started once."""

    def __init__(self, scratch: Path, exits: ExitStack) -> None:
        self.scratch = scratch
        self.exits = exits
        self.emulators: dict[str, emulators.Emulator] = {}

    def _emulator(self, fixture: str) -> emulators.Emulator:
        if fixture not in self.emulators:
            emulator = emulators.STARTERS[fixture]()
            self.exits.callback(emulators.discard, emulator)
            self.emulators[fixture] = emulator
        return self.emulators[fixture]

    def new(self, backend: str) -> Stack:
        root = self.scratch / f"{backend}-{uuid.uuid4().hex[:8]}"
        root.mkdir(parents=True)
        out = f"file://{root / 'out'}"
        fixture = registered(backend).test_server
        emulator = self._emulator(fixture) if fixture else None
        return Stack(backend, STATE_URI_MAKERS[backend](emulator, root), out, root, emulator)


def summarize(results: list[Result]) -> dict:
    recover = [s for r in results for s in r.recover_s]
    return {
        "rounds": len(results),
        "units": sum(r.units for r in results),
        "kills": sum(r.kills for r in results),
        "recovered": sum(r.recovered for r in results),
        "lost": sum(r.lost for r in results),
        "double_completed": sum(r.double for r in results),
        "false_complete": sum(r.false_complete for r in results),
        "stranded": sum(r.stranded for r in results),
        "failed_rounds": sum(bool(r.problems) for r in results),
        "recover_p50_s": round(pct(recover, 0.5), 2) if recover else None,
        "recover_p99_s": round(pct(recover, 0.99), 2) if recover else None,
        "recover_max_s": round(max(recover), 2) if recover else None,
        # early-kill: attempts the killed unit took beyond its first (goal: exactly 1)
        "killed_unit_extra_attempts": [r.notes["killed_unit_extra_attempts"] for r in results
                                       if "killed_unit_extra_attempts" in r.notes] or None,
        "reclaim_within_goal": sum(bool(r.notes.get("reclaim_within_goal"))
                                   for r in results) if recover else None,
        "killed_unit_extra_attempts_1": sum(r.notes.get("killed_unit_extra_attempts") == 1
                                            for r in results) if recover else None,
        "pending_at_reclaim_min": min((r.notes["pending_at_reclaim"] for r in results
                                       if "pending_at_reclaim" in r.notes), default=None),
        "seconds": round(sum(r.seconds for r in results), 1),
        "problems": [p for r in results for p in r.problems][:10],
    }


def table(rows: dict[str, dict[str, dict]]) -> str:
    head = ("scenario", "backend", "rounds", "units", "kills", "recovered", "lost", "double",
            "false complete", "stranded", "p50 s", "p99 s", "max s", "failed")
    lines = [" | ".join(head), " | ".join("---" for _ in head)]
    for scenario, by_backend in rows.items():
        for backend, s in by_backend.items():
            lines.append(" | ".join(str(x) for x in (
                scenario, backend, s["rounds"], s["units"], s["kills"], s["recovered"],
                s["lost"], s["double_completed"], s["false_complete"], s["stranded"],
                s["recover_p50_s"], s["recover_p99_s"], s["recover_max_s"],
                s["failed_rounds"])))
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--backends", default=",".join(BACKENDS))
    parser.add_argument("--scenarios", default=",".join(chaoslib.SCENARIOS))
    parser.add_argument("--seed", type=int, default=9)
    parser.add_argument("--storm-tasks", type=int, default=16,
                        help="tasks of the cold-start storm (the issue's storm is 32)")
    parser.add_argument("--early-kill-lease", type=float, default=chaoslib.EARLY_KILL_LEASE,
                        help="early-kill: the lease in seconds (goal: reclaim within it + 10 s)")
    parser.add_argument("--early-kill-units", type=int, default=36,
                        help="early-kill: units of 4 documents in a round")
    parser.add_argument("--early-kill-doc-ms", type=int, default=400,
                        help="early-kill: milliseconds of work per bench document")
    parser.add_argument("--max-minutes", type=float, default=0,
                        help="start no new round after this many minutes (0: no limit)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "chaos.json")
    args = parser.parse_args()
    backends = [b for b in args.backends.split(",") if b]
    scenarios = [s for s in args.scenarios.split(",") if s]
    rng = random.Random(args.seed)
    early_kill = functools.partial(chaoslib.early_kill, lease=args.early_kill_lease,
                                   units=args.early_kill_units, doc_ms=args.early_kill_doc_ms)
    load_before = os.getloadavg()
    per: dict[tuple[str, str], list[Result]] = {}
    raw: list[dict] = []
    started = time.time()
    deadline = started + args.max_minutes * 60 if args.max_minutes else None

    def write() -> dict[str, dict[str, dict]]:
        """The table so far, written after every round (a long run interrupted keeps
        what it measured)."""
        rows: dict[str, dict[str, dict]] = {}
        for (scenario, backend), results in per.items():
            key = results[0].scenario if results else scenario
            rows.setdefault(key, {})[backend] = summarize(results)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({
            "rounds": args.rounds, "seed": args.seed, "lease_seconds": chaoslib.LEASE,
            "early_kill": {"lease_seconds": args.early_kill_lease,
                           "reclaim_goal_s": args.early_kill_lease + chaoslib.RECLAIM_GOAL_S,
                           "units": args.early_kill_units, "documents_per_unit": 4,
                           "doc_ms": args.early_kill_doc_ms},
            "machine": f"{platform.machine()} {platform.python_version()}, "
                       f"{os.cpu_count()} cores, load average {load_before[0]:.1f} at the "
                       f"start, {os.getloadavg()[0]:.1f} now",
            "elapsed_s": round(time.time() - started, 1), "table": rows,
            "table_md": table(rows), "runs": raw,
        }, indent=1, default=str) + "\n")
        return rows

    # round-major: every scenario x backend gets its round r before any gets round r+1,
    # so a run cut short by --max-minutes is balanced
    with ExitStack() as exits, tempfile.TemporaryDirectory(prefix="chaos-") as scratch:
        stacks = Stacks(Path(scratch), exits)
        for round_ in range(args.rounds):
            if deadline is not None and time.time() > deadline:
                print(f"stopping after {round_} round(s): --max-minutes reached", flush=True)
                break
            for scenario in scenarios:
                for backend in backends:
                    seed = rng.randrange(2**31)
                    stack = stacks.new(backend)
                    try:
                        if scenario == "storm":
                            result = chaoslib.storm(stack, random.Random(seed),
                                                    tasks=args.storm_tasks)
                        elif scenario == "early-kill":
                            result = early_kill(stack, random.Random(seed))
                        else:
                            result = chaoslib.SCENARIOS[scenario](stack, random.Random(seed))
                    except Exception as exc:  # a scenario that could not finish
                        result = Result(scenario, backend,
                                        problems=[f"{type(exc).__name__}: {exc}"[:500]])
                        traceback.print_exc()
                    result.notes["seed"] = seed
                    if result.problems:  # keep the workers' logs of a failed round
                        kept = args.out.parent / "chaos-failures" / stack.root.name
                        shutil.copytree(stack.root, kept, dirs_exist_ok=True)
                        result.notes["logs"] = str(kept)
                    per.setdefault((scenario, backend), []).append(result)
                    raw.append(asdict(result))
                    print(f"{scenario:8} {backend:9} round {round_ + 1}/{args.rounds}: "
                          f"{'ok' if not result.problems else 'FAILED'} "
                          f"{result.seconds:.1f}s kills={result.kills} lost={result.lost} "
                          f"double={result.double} false={result.false_complete} "
                          f"stranded={result.stranded} {result.problems[:2]}", flush=True)
                    write()
    rows = write()
    print(table(rows))
    print(f"wrote {args.out}")
    bad = any(s["lost"] or s["double_completed"] or s["failed_rounds"] or s["false_complete"]
              or s["stranded"]
              for by in rows.values() for s in by.values())
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
