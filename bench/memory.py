"""A task's memory over a long run: one real ``docfleet work`` (one task, its own
headless Chromium) draining N clean documents of a pack, its process tree sampled every
``--every`` seconds from /proc. Prints a table and writes ``bench/results/memory.json``.

    python bench/memory.py                                  # 10,000 clean invoices
    python bench/memory.py --pack receipt --total 2000 --every 1

Per sample: documents written so far, and the proportional set size (PSS: shared pages
split between the processes that map them, so a browser's processes add up to what they
hold together) of the task process, of Playwright's driver (its node process) and of the
browser (every Chromium process: the browser, its GPU and utility processes, a renderer
per page; pages are replaced after ``RECYCLE_DOCUMENTS`` documents, see
:mod:`docfleet.render.browser`).
Flat means the second half of the run holds what the first half held: the result has
the median PSS of the samples in the first and the last quarter of the run (by documents
written, after the first 5 %), their ratio, and the least-squares slope in MiB per 1,000
documents over the samples after the first 5 %. Peak PSS of each is recorded too. Read
the ratio and the slope, not the megabytes: they depend on the machine and the build.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from proctree import descendants

RESULTS = Path(__file__).parent / "results"


def _pss_mib(pid: int) -> float:
    """The process's PSS in MiB (0 if it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _is_driver(pid: int) -> bool:
    """Whether ``pid`` is Playwright's node driver (not a Chromium process)."""
    try:
        exe = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0", 1)[0]
    except OSError:
        return False
    return Path(exe.decode(errors="replace")).name == "node"


def _documents(out: Path) -> int:
    docs = out / "documents"
    try:
        return sum(1 for _ in os.scandir(docs))
    except OSError:
        return 0


def run(pack: str, total: int, unit: int, every: float, work: Path) -> list[dict[str, float]]:
    """Samples of (seconds, documents, task PSS, browser PSS) over one real task."""
    out = work / "out"
    args = [sys.executable, "-m", "docfleet", "work", "--run-id", "memory", "--total",
            str(total), "--unit-size", str(unit), "--pack", pack,
            "--option", "conditions=clean",
            "--state", f"sqlite:///{work}/state.db", "--out", f"file://{out}"]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DOCFLEET_", "OTEL_"))}
    proc = subprocess.Popen(args, env=env, cwd=work, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    samples: list[dict[str, float]] = []
    start = time.monotonic()
    while proc.poll() is None:
        tree = descendants(proc.pid)
        task = _pss_mib(proc.pid)
        others = [p for p in tree if p != proc.pid]
        drivers = {p for p in others if _is_driver(p)}
        driver = sum(_pss_mib(p) for p in drivers)
        browser = sum(_pss_mib(p) for p in others if p not in drivers)
        samples.append({"seconds": round(time.monotonic() - start, 1),
                        "documents": _documents(out / "memory"),
                        "task_pss_mib": round(task, 1), "driver_pss_mib": round(driver, 1),
                        "browser_pss_mib": round(browser, 1), "processes": len(tree)})
        time.sleep(every)
    assert proc.stderr is not None
    err = proc.stderr.read()
    assert proc.returncode == 0, f"docfleet work exited {proc.returncode}: {err[-600:]!r}"
    return samples


def summarise(samples: list[dict[str, float]], total: int, key: str) -> dict[str, Any]:
    """First- and last-quarter medians, their ratio, the slope per 1,000 documents."""
    warm = [s for s in samples if s["documents"] >= 0.05 * total and s[key] > 0]
    first = [s[key] for s in warm if s["documents"] < 0.30 * total]
    last = [s[key] for s in warm if s["documents"] >= 0.75 * total]
    xs = [s["documents"] / 1000 for s in warm]
    ys = [s[key] for s in warm]
    slope = statistics.linear_regression(xs, ys).slope if len(set(xs)) > 1 else 0.0
    a = statistics.median(first) if first else float("nan")
    b = statistics.median(last) if last else float("nan")
    return {"first_quarter_median_mib": round(a, 1), "last_quarter_median_mib": round(b, 1),
            "last_over_first": round(b / a, 3) if a else None,
            "slope_mib_per_1000_documents": round(slope, 2),
            "peak_mib": round(max(ys, default=0.0), 1), "samples": len(warm)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pack", default="invoice")
    parser.add_argument("--total", type=int, default=10_000)
    parser.add_argument("--unit-size", type=int, default=50)
    parser.add_argument("--every", type=float, default=2.0, help="seconds between samples")
    parser.add_argument("--json", default="memory.json", help="file in bench/results")
    args = parser.parse_args()
    load = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="docfleet-memory-") as tmp:
        began = time.monotonic()
        samples = run(args.pack, args.total, args.unit_size, args.every, Path(tmp))
        wall = time.monotonic() - began
    result = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "load_before": [round(v, 1) for v in load],
                    "load_after": [round(v, 1) for v in os.getloadavg()]},
        "pack": args.pack, "total": args.total, "unit_size": args.unit_size,
        "wall_seconds": round(wall, 1),
        "task": summarise(samples, args.total, "task_pss_mib"),
        "driver": summarise(samples, args.total, "driver_pss_mib"),
        "browser": summarise(samples, args.total, "browser_pss_mib"),
        "samples": samples,
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / args.json).write_text(json.dumps(result, indent=1) + "\n")
    print(f"{args.pack}: {args.total} clean documents, one task, {wall:.0f} s wall "
          f"(load {load[0]:.1f} → {os.getloadavg()[0]:.1f})")
    print(f"{'':8} {'first ¼ MiB':>12} {'last ¼ MiB':>11} {'last/first':>10} "
          f"{'MiB/1000 docs':>14} {'peak MiB':>9}")
    for name in ("task", "driver", "browser"):
        r = result[name]
        print(f"{name:8} {r['first_quarter_median_mib']:>12} "
              f"{r['last_quarter_median_mib']:>11} {r['last_over_first']!s:>10} "
              f"{r['slope_mib_per_1000_documents']:>14} {r['peak_mib']:>9}")


if __name__ == "__main__":
    main()
