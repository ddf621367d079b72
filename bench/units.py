"""Per-unit overhead and fixed cost of one task: CPU of real one-task ``docfleet work``
runs of the no-render ``bench`` pack with one document per unit, a small and a large run,
for this checkout and, with ``--before DIR``, another checkout's ``worker`` directory,
interleaved round by round in one sitting. Prints a table and writes
``bench/results/units.json``.

    python bench/units.py                                  # this checkout, 5 rounds
    git archive BASE worker | tar -x -C /tmp/base
    python bench/units.py --before /tmp/base/worker --small 20 --large 300 --rounds 5

Per unit: (CPU of the large run - CPU of the small run) / (large - small), so the fixed
cost (imports, plan, finalize) cancels; fixed: the one-unit run's CPU. CPU is user +
system time of the task process and its children (``os.wait4``), peak RSS the task's
``ru_maxrss``. The floor: the CPU per unit of creating a unit's three files (document,
shard, part) by temp file + rename on the same file system, measured in each round
(:func:`file_floor`). The machine's load average is recorded: on a shared machine compare the
two trees within one sitting (the ratio), never the figures across sittings.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).parent / "results"


def _env(tree: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DOCFLEET_", "OTEL_"))}
    if tree:
        env["PYTHONPATH"] = tree
    else:
        env.pop("PYTHONPATH", None)
    return env


def task(tree: str | None, work: Path, run_id: str, total: int) -> tuple[float, float]:
    """CPU seconds and peak RSS (MiB) of one ``docfleet work`` draining ``total``
    one-document units of the bench pack into a fresh state file and output folder."""
    args = [sys.executable, "-m", "docfleet", "work", "--run-id", run_id, "--total",
            str(total), "--unit-size", "1", "--pack", "bench",
            "--state", f"sqlite:///{work}/{run_id}.db", "--out", f"file://{work}/out"]
    proc = subprocess.Popen(args, env=_env(tree), cwd=work, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    assert proc.returncode == 0, f"{run_id} exited {proc.returncode}: {err[-400:]!r}"
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def file_floor(work: Path, units: int) -> float:
    """CPU ms per unit of what a one-document unit cannot skip on ``file://``: creating
    its three files (document, shard, part; ~100 bytes each) by temp file + rename in
    fresh folders of the same file system, in this process."""
    folders = [work / "floor" / name for name in ("documents", "golden", "manifest")]
    for folder in folders:
        folder.mkdir(parents=True)
    before = resource.getrusage(resource.RUSAGE_SELF)
    for unit in range(units):
        for folder in folders:
            final = folder / f"unit-{unit:06d}"
            tmp = folder / f".{final.name}.{os.getpid()}.tmp"  # a fresh name, as mkstemp
            with open(tmp, "wb") as fh:
                fh.write(b"x" * 100)
            os.replace(tmp, final)
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return 1000 * cpu / units


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", help="another checkout's worker directory")
    parser.add_argument("--after", help="the worker directory measured as 'after' "
                                        "(default: this checkout's)")
    parser.add_argument("--small", type=int, default=20)
    parser.add_argument("--large", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--out", type=Path, default=RESULTS / "units.json")
    args = parser.parse_args()
    trees = {"after": args.after} if not args.before else {"before": args.before,
                                                            "after": args.after}
    samples: dict[str, dict[str, list[float]]] = {
        t: {"per_unit_ms": [], "fixed_ms": [], "peak_rss_mb": []} for t in trees}
    floor: list[float] = []
    loads = [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory(prefix="docfleet-units-") as tmp:
        for n in range(args.rounds):
            for label, tree in trees.items():  # interleaved: load drifts hit both alike
                work = Path(tmp) / f"{label}-{n}"
                work.mkdir()
                one, rss1 = task(tree, work, "one", 1)
                small, rss_s = task(tree, work, "small", args.small)
                large, rss_l = task(tree, work, "large", args.large)
                samples[label]["per_unit_ms"].append(
                    1000 * (large - small) / (args.large - args.small))
                samples[label]["fixed_ms"].append(1000 * one)
                samples[label]["peak_rss_mb"].append(max(rss1, rss_s, rss_l))
            floor.append(file_floor(Path(tmp) / f"floor-{n}", args.large))
            loads.append(os.getloadavg()[0])
    result: dict[str, Any] = {
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "python": platform.python_version(), "cpus": os.cpu_count(), "rounds": args.rounds,
        "small": args.small, "large": args.large,
        "load_1m": {"min": round(min(loads), 1), "max": round(max(loads), 1)},
        "trees": {label: tree or "this checkout" for label, tree in trees.items()},
        "figures": {label: {what: {"median": round(statistics.median(xs), 2),
                                   "min": round(min(xs), 2), "all": [round(x, 2) for x in xs]}
                            for what, xs in s.items()} for label, s in samples.items()},
    }
    result["file_floor_per_unit_ms"] = round(statistics.median(floor), 2)
    result["per_unit_over_floor"] = {
        label: round(result["figures"][label]["per_unit_ms"]["median"]
                     / result["file_floor_per_unit_ms"], 2) for label in trees}
    if "before" in trees:
        result["after_over_before"] = {
            what: round(result["figures"]["after"][what]["median"]
                        / result["figures"]["before"][what]["median"], 3)
            for what in samples["after"]}
    print(f"load {result['load_1m']}, {args.rounds} rounds, units {args.small} → {args.large}")
    for label in trees:
        cells = "  ".join(f"{what} {f['median']:.2f} (min {f['min']:.2f})"
                          for what, f in result["figures"][label].items())
        print(f"{label:>6}: {cells}")
    print(f"file floor (3 files a unit) {result['file_floor_per_unit_ms']} ms/unit; "
          f"per unit / floor {result['per_unit_over_floor']}")
    if "after_over_before" in result:
        print(" after/before:", result["after_over_before"])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
