"""What a task process loads: CPU of ``docfleet work --help`` (the CLI's import cost) and
of a real one-document ``docfleet work`` on the bench pack, whether that task loaded
rich or the launcher's, export's or score's code, and the CPU of building the Faker of
every locale the packs print (``packs.sdk.parties.faker``: a task drawing from all of them
pays it once, whatever its size); for this checkout and, with ``--before DIR``, another
checkout's ``worker`` directory, interleaved in one sitting. Prints a table and writes
``bench/results/task_imports.json``.

    python bench/task_imports.py                       # this checkout, 10 rounds
    git archive BASE worker | tar -x -C /tmp/base
    python bench/task_imports.py --before /tmp/base/worker --rounds 10

CPU is user + system time of the child (``RUSAGE_CHILDREN``; a task without Chromium
has no grandchildren). Median and minimum over the rounds. The bench imports nothing from
docfleet itself, so ``PYTHONPATH`` (set per tree) decides which code runs.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

RESULTS = Path(__file__).parent / "results"
#: top-level packages (or docfleet modules) a task should not load (pandas is not listed:
#: importtime also logs the import a task refuses on purpose, ``shards.skip_pandas_probe``)
UNWANTED = re.compile(r"^(rich|docfleet\.(export|scoring|fleet|fleetview|launch|report|"
                      r"dryrun|commands\.(export|score|launch|report|runs|catalogue)|"
                      r"cli\.(export|score|launch|report|runs|catalogue)))(\.|$)")


def _env(tree: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DOCFLEET_", "OTEL_"))}
    if tree:
        env["PYTHONPATH"] = tree
    else:
        env.pop("PYTHONPATH", None)
    return env


def _cpu_ms(args: list[str], env: dict[str, str], cwd: str) -> tuple[float, str, int]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(args, env=env, cwd=cwd, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return cpu, proc.stderr, proc.returncode


#: the Faker of every locale the packs print, built in a fresh interpreter after its
#: imports; prints that CPU in ms
LOCALE_FAKERS = r"""
import time
from docfleet.packs.sdk.locales import JURISDICTIONS
from docfleet.packs.sdk.parties import faker
import faker as _  # Faker's own import, before the clock starts (parties imports it lazily)
t = time.process_time()
for locale in sorted({j.faker_locale for j in JURISDICTIONS.values()}):
    faker(locale)
print((time.process_time() - t) * 1000)
"""


def _locale_fakers_ms(env: dict[str, str], cwd: str) -> float:
    proc = subprocess.run([sys.executable, "-c", LOCALE_FAKERS], env=env, cwd=cwd,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-500:]
    return float(proc.stdout.strip().splitlines()[-1])


def _task(tree: str | None, work: Path, n: int) -> list[str]:
    state, out = f"sqlite:///{work}/state-{n}.db", f"file://{work}/out"
    return [sys.executable, "-X", "importtime", "-m", "docfleet", "work", "--run-id",
            f"r{n}", "--total", "1", "--pack", "bench", "--state", state, "--out", out]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", help="another checkout's worker directory")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--out", type=Path, default=RESULTS / "task_imports.json")
    args = parser.parse_args()
    trees = {"after": None} if not args.before else {"before": args.before, "after": None}
    samples: dict[str, dict[str, list[float]]] = {
        t: {"work --help": [], "work (1 document)": [], "every locale's Faker": []}
        for t in trees}
    unwanted: dict[str, set[str]] = {t: set() for t in trees}
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(args.rounds):
            for label, tree in trees.items():  # interleaved: load drifts hit both alike
                env, work = _env(tree), Path(tmp) / label
                work.mkdir(exist_ok=True)
                cpu, _, code = _cpu_ms([sys.executable, "-m", "docfleet", "work", "--help"],
                                       env, str(work))
                assert code == 0, f"{label}: work --help exited {code}"
                samples[label]["work --help"].append(cpu)
                cpu, err, code = _cpu_ms(_task(tree, work, n), env, str(work))
                assert code == 0, f"{label}: work exited {code}: {err[-500:]}"
                samples[label]["work (1 document)"].append(cpu)
                samples[label]["every locale's Faker"].append(
                    _locale_fakers_ms(env, str(work)))
                for line in err.splitlines():
                    name = line.rsplit("|", 1)[-1].strip()
                    if line.startswith("import time:") and UNWANTED.match(name):
                        unwanted[label].add(name.split(".")[0] if not name.startswith(
                            "docfleet") else name)
    result: dict[str, Any] = {
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "python": platform.python_version(), "cpus": os.cpu_count(), "rounds": args.rounds,
        "trees": {label: tree or "this checkout" for label, tree in trees.items()},
        "cpu_ms": {label: {what: {"median": round(statistics.median(xs), 1),
                                  "min": round(min(xs), 1)} for what, xs in s.items()}
                   for label, s in samples.items()},
        "unwanted_modules": {label: sorted(u) for label, u in unwanted.items()},
    }
    table = Table(title=f"task process CPU, ms (median / min of {args.rounds})")
    table.add_column("what")
    for label in trees:
        table.add_column(label, justify="right")
    if "before" in trees:
        table.add_column("after / before", justify="right")
    for what in ("work --help", "work (1 document)", "every locale's Faker"):
        cells = [f"{result['cpu_ms'][t][what]['median']:.0f} / "
                 f"{result['cpu_ms'][t][what]['min']:.0f}" for t in trees]
        if "before" in trees:
            b, a = (result["cpu_ms"][t][what]["median"] for t in ("before", "after"))
            cells.append(f"{a / b:.2f}")
        table.add_row(what, *cells)
    table.add_row("task loads", *(", ".join(result["unwanted_modules"][t]) or "-"
                                  for t in trees), *([""] if "before" in trees else []))
    Console().print(table)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
