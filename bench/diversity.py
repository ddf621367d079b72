"""Diversity per pack (issue 25): a real ``docfleet run`` of ``--total`` documents per pack
(SQLite, ``--tasks 2``, format pdf, clean condition: the capture changes no content, and
boxes exist), measured by ``docfleet.export.diversity`` from its golden tables (the same
figures as the dataset card's "Diversity" section). Prints each figure per pack beside
its target and writes ``bench/results/diversity.json``.

    python bench/diversity.py                              # 1,000 documents per pack
    python bench/diversity.py --total 200 --packs receipt,invoice
    python bench/diversity.py --run-dir /tmp/div           # keep the runs; reuse them next time

A run under ``--run-dir`` (``<dir>/out/diversity-<pack>-<total>``) that is complete is
measured again, not regenerated: the runs are deterministic, so reusing one measures the
same documents. Without ``--run-dir`` the runs live in a temporary directory.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from docfleet.export import diversity
from docfleet.export.reader import RunReader

RESULTS = Path(__file__).parent / "results"
PACKS = ("invoice", "receipt", "purchase_order", "bank_statement")


def run_id(pack: str, total: int) -> str:
    return f"diversity-{pack}-{total}"


def ensure_run(run_dir: Path, pack: str, total: int, tasks: int, console: Console
               ) -> dict[str, Any]:
    """The run of ``pack`` under ``run_dir``, made by ``docfleet run`` unless complete."""
    rid = run_id(pack, total)
    if (run_dir / "out" / rid / "manifest.json").exists():
        return {"run_id": rid, "reused": True}
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOCFLEET_")}
    cmd = [sys.executable, "-m", "docfleet", "run", "--run-id", rid, "--pack", pack,
           "--total", str(total), "--tasks", str(tasks),
           "--state", f"sqlite:///{run_dir / 'state.db'}", "--out", f"file://{run_dir / 'out'}",
           "--log-dir", str(run_dir / "logs" / rid),
           "--option", "format=pdf", "--option", "conditions=clean"]
    console.print(f"[dim]{pack}: docfleet run --total {total} --tasks {tasks} …[/dim]")
    t0 = time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stderr[-3000:]}")
    return {"run_id": rid, "reused": False, "run_wall_s": round(time.perf_counter() - t0, 1)}


def measure(run_dir: Path, rid: str) -> tuple[dict[str, Any], float]:
    reader = RunReader(f"file://{run_dir / 'out'}", rid)
    t0 = time.perf_counter()
    report = diversity.measure_run(reader)
    return report, time.perf_counter() - t0


def print_table(console: Console, reports: dict[str, dict[str, Any]], total: int) -> None:
    figs = {pack: {f.key: f for f in diversity.figures(r)} for pack, r in reports.items()}
    keys = list(dict.fromkeys(k for per in figs.values() for k in per))
    table = Table(title=f"Diversity per pack ({total} documents each; issue 25's targets)")
    table.add_column("figure")
    table.add_column("target", justify="right")
    for pack in reports:
        table.add_column(pack, justify="right")
    for key in keys:
        any_fig = next(per[key] for per in figs.values() if key in per)
        targets = {per[key].target for per in figs.values() if key in per and per[key].target}
        cells = []
        for pack in reports:
            f = figs[pack].get(key)
            if f is None:
                cells.append("")
                continue
            mark = "" if f.passed is None else (" [green]ok[/green]" if f.passed
                                                else " [red]miss[/red]")
            cells.append(f"{f.shown}{mark}")
        name = _generic(key, any_fig.name)
        table.add_row(name, " / ".join(sorted(targets)) or "-", *cells)
    console.print(table)
    for pack, report in reports.items():
        flagged = report["flagged"]
        if flagged:
            console.print(f"[bold]{pack}[/bold] optional elements on > "
                          f"{100 * diversity.MAX_OPTIONAL_SHARE:.0f} %: " + ", ".join(
                              f"{e['element']}" + (f" ({e['language']})" if "language" in e
                                                   else "") + f" {100 * e['share']:.0f} %"
                              for e in flagged))


def _generic(key: str, name: str) -> str:
    """A figure's name without the pack's field names (the columns are packs)."""
    role = key.split(".", 1)[1] if "." in key else ""
    generic = {"labels": f"{role}: distinct case-folded labels, fewest per language",
               "labelled": f"{role}: target has a linked label",
               "formats": f"{role}: distinct value formats",
               "lines": f"{role}-family lines per document (mean)",
               "largest": "total is the largest printed amount",
               "position": "total position, normalised y (mean ± stdev)"}
    return generic.get(key.split(".")[0], name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--total", type=int, default=diversity.TARGET_DOCUMENTS,
                        help="documents per pack (the targets are stated on 1,000)")
    parser.add_argument("--packs", default=",".join(PACKS))
    parser.add_argument("--tasks", type=int, default=2)
    parser.add_argument("--run-dir", type=Path, default=None,
                        help="keep the runs here and reuse complete ones")
    parser.add_argument("--out", type=Path, default=RESULTS / "diversity.json")
    args = parser.parse_args()
    console = Console()
    packs = [p for p in args.packs.split(",") if p]
    unknown = [p for p in packs if p not in diversity.SPECS]
    if unknown:
        raise SystemExit(f"no diversity spec for pack(s) {', '.join(unknown)}; known: "
                         f"{', '.join(diversity.SPECS)}")
    result: dict[str, Any] = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "load_before": list(os.getloadavg())},
        "total": args.total, "options": {"format": "pdf", "conditions": "clean"},
        "targets": {"labels_per_language": diversity.TARGET_LABELS_PER_LANGUAGE,
                    "total_lines": diversity.TARGET_TOTAL_LINES,
                    "total_line_packs": list(diversity.TOTAL_LINE_PACKS),
                    "total_largest_max": diversity.TARGET_TOTAL_LARGEST,
                    "multi_date_share": diversity.TARGET_MULTI_DATE_SHARE,
                    "time_share": diversity.TARGET_TIME_SHARE,
                    "time_packs": list(diversity.TIME_PACKS),
                    "currency_share": list(diversity.TARGET_CURRENCY_SHARE),
                    "max_optional_share": diversity.MAX_OPTIONAL_SHARE},
        "packs": {},
    }
    reports: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="docfleet-bench-diversity-") as tmp:
        run_dir = args.run_dir or Path(tmp)
        run_dir.mkdir(parents=True, exist_ok=True)
        for pack in packs:
            info = ensure_run(run_dir, pack, args.total, args.tasks, console)
            report, seconds = measure(run_dir, info["run_id"])
            reports[pack] = report
            met, judged = diversity.verdicts(report)
            result["packs"][pack] = {
                **info, "measure_s": round(seconds, 1), "targets_met": met,
                "targets": judged,
                "figures": [{"key": f.key, "name": f.name, "value": f.value, "shown": f.shown,
                             "target": f.target, "passed": f.passed, "detail": f.detail}
                            for f in diversity.figures(report)],
                "report": report,
            }
            console.print(f"{pack}: {met}/{judged} targets met ({seconds:.1f} s to measure)")
    result["machine"]["load_after"] = list(os.getloadavg())
    print_table(console, reports, args.total)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1, ensure_ascii=False, default=str) + "\n")
    console.print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
