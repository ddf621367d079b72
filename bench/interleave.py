"""Two trees measured in one sitting, shared by the in-process A/B benches: a measuring
script run as a fresh process on a tree (``PYTHONPATH``), and rounds interleaved
before-first, with the machine's load between them."""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def arguments(doc: str, out: Path, rounds: int, documents: int) -> argparse.Namespace:
    """The A/B benches' command line: ``--before DIR``, ``--rounds``, ``--documents``,
    ``--out`` (defaults as given)."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--before", help="another checkout's worker directory")
    parser.add_argument("--rounds", type=int, default=rounds)
    parser.add_argument("--documents", type=int, default=documents)
    parser.add_argument("--out", type=Path, default=out)
    return parser.parse_args()


def measure(code: str, tree: str | None, *argv: str) -> dict[str, Any]:
    """Run ``code`` (``python -c``) on ``tree``'s ``worker`` directory (``None``: this
    checkout's, as installed) and return the JSON object its last line prints; exits
    with the script's stderr if it fails."""
    env = dict(os.environ)
    if tree:
        env["PYTHONPATH"] = tree
    done = subprocess.run([sys.executable, "-c", code, *argv], env=env,
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"the measuring process failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def interleave(code: str, before: str | None, rounds: int, *argv: str
               ) -> tuple[dict[str, list[dict[str, Any]]], list[float]]:
    """``rounds`` rounds of :func:`measure` on this checkout and, if ``before`` is given,
    on that tree first in each round: (tree name → one result per round, the 1-minute
    load before and after each round)."""
    trees = {"this": None, **({"before": before} if before else {})}
    out: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
    load = [round(os.getloadavg()[0], 2)]
    for _ in range(rounds):
        for name, tree in reversed(trees.items()):
            out[name].append(measure(code, tree, *argv))
        load.append(round(os.getloadavg()[0], 2))
    return out, load


def summarise(results: Sequence[dict[str, Any]], keys: Sequence[str]
              ) -> dict[str, dict[str, float]]:
    """Median and minimum of each of ``keys`` over a tree's rounds."""
    return {key: {"median": round(statistics.median(r[key] for r in results), 2),
                  "min": min(r[key] for r in results)} for key in keys}


def write(path: Path, before: str | None, rounds: dict[str, list[dict[str, Any]]],
          summary: dict[str, Any], load: list[float], **fields: Any) -> None:
    """The bench's JSON: ``fields``, the trees, every round, the summary, the load and
    the machine."""
    path.write_text(json.dumps({
        **fields, "rounds": rounds, "summary": summary, "load": load,
        "trees": {"this": None, "before": before},
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
    }, indent=1, sort_keys=True) + "\n")
    print(f"wrote {path}")
