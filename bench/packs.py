"""CPU per document per pack: a real ``docfleet run --pack NAME --tasks 1`` of N and of 2N
documents for each pack and condition, each run in a cgroup of its own (cgroup v1
``cpuacct``, so Chromium's renderer and GPU processes are counted with the worker); the
marginal CPU per document is ``(cpu(2N) - cpu(N)) / N`` (process start, Chromium launch
and planning cancel out). Prints a table and writes ``bench/results/packs.json``.

    python bench/packs.py                       # 16 and 32 documents per pack, clean + scan
    python bench/packs.py --docs 8 --packs receipt,invoice --conditions clean

Needs root (to create the cgroup); without it, it falls back to ``RUSAGE_CHILDREN``, which
misses processes their parent did not wait for, and says so in the JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

RESULTS = Path(__file__).parent / "results"
CPUACCT = Path("/sys/fs/cgroup/cpuacct")
PACKS = ("invoice", "receipt", "purchase_order", "bank_statement")


class CpuMeter:
    """CPU seconds of a command's whole process tree."""

    def __init__(self) -> None:
        self.cgroup: Path | None = None
        try:
            path = CPUACCT / f"docfleet-bench-{uuid.uuid4().hex[:8]}"
            path.mkdir()
            self.cgroup = path
        except OSError:
            self.cgroup = None

    @property
    def method(self) -> str:
        return "cgroup-v1-cpuacct" if self.cgroup else "rusage-children"

    def run(self, cmd: list[str], env: dict[str, str], cwd: str) -> tuple[float, float, Any]:
        """(cpu seconds, wall seconds, completed process)."""
        cgroup = self.cgroup

        def enter() -> None:  # runs in the child before exec: its tree inherits the cgroup
            if cgroup is not None:
                (cgroup / "cgroup.procs").write_text(str(os.getpid()))

        before = self._usage()
        t0 = time.perf_counter()
        result = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True,
                                preexec_fn=enter)
        wall = time.perf_counter() - t0
        return self._usage() - before, wall, result

    def _usage(self) -> float:
        if self.cgroup is not None:
            return int((self.cgroup / "cpuacct.usage").read_text()) / 1e9
        ru = resource.getrusage(resource.RUSAGE_CHILDREN)
        return ru.ru_utime + ru.ru_stime

    def close(self) -> None:
        if self.cgroup is not None:
            for _ in range(50):
                try:
                    self.cgroup.rmdir()
                    return
                except OSError:  # processes still leaving the group
                    time.sleep(0.1)


def one_run(meter: CpuMeter, pack: str, condition: str, docs: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="docfleet-bench-packs-") as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith("DOCFLEET_")}
        run_id = f"bench-{pack}-{condition}-{docs}"
        cmd = [sys.executable, "-m", "docfleet", "run", "--run-id", run_id, "--pack", pack,
               "--total", str(docs), "--tasks", "1", "--state", f"sqlite:///{tmp}/state.db",
               "--out", f"file://{tmp}/out", "--option", f"conditions={condition}"]
        cpu, wall, result = meter.run(cmd, env, tmp)
        if result.returncode != 0:
            raise SystemExit(f"{' '.join(cmd)} failed:\n{result.stderr[-3000:]}")
        root = Path(tmp) / "out" / run_id
        pages = len(list((root / "documents").glob("*.pdf")))
        size = sum(p.stat().st_size for p in (root / "documents").glob("*.pdf"))
    return {"documents": docs, "cpu_s": round(cpu, 3), "wall_s": round(wall, 3),
            "pdfs": pages, "pdf_bytes": size}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=16, help="N: runs of N and 2N documents")
    parser.add_argument("--packs", default=",".join(PACKS))
    parser.add_argument("--conditions", default="clean,scan")
    parser.add_argument("--out", type=Path, default=RESULTS / "packs.json")
    args = parser.parse_args()
    console = Console()
    meter = CpuMeter()
    report: dict[str, Any] = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "load_before": list(os.getloadavg())},
        "cpu_method": meter.method, "docs": args.docs, "results": [],
    }
    try:
        for pack in args.packs.split(","):
            for condition in args.conditions.split(","):
                small = one_run(meter, pack, condition, args.docs)
                large = one_run(meter, pack, condition, 2 * args.docs)
                marginal = (large["cpu_s"] - small["cpu_s"]) / args.docs
                row = {
                    "pack": pack, "condition": condition,
                    "cpu_ms_per_doc": round(marginal * 1000, 1),
                    "cpu_ms_per_doc_incl_startup": round(large["cpu_s"] * 1000
                                                         / large["documents"], 1),
                    "wall_docs_per_s": round(large["documents"] / large["wall_s"], 2),
                    "kb_per_pdf": round(large["pdf_bytes"] / large["pdfs"] / 1024, 1),
                    "runs": [small, large],
                }
                report["results"].append(row)
                console.print(f"{pack} {condition}: {row['cpu_ms_per_doc']} ms CPU/doc")
    finally:
        meter.close()
    report["machine"]["load_after"] = list(os.getloadavg())
    base = {r["condition"]: r["cpu_ms_per_doc"] for r in report["results"]
            if r["pack"] == "invoice"}
    table = Table(title=f"CPU per document per pack ({meter.method}, N={args.docs})")
    for col in ("pack", "condition", "CPU ms/doc", "vs invoice", "incl. start-up",
                "docs/s (1 task)", "KiB/PDF"):
        table.add_column(col, justify="left" if col in ("pack", "condition") else "right")
    for r in report["results"]:
        ratio = r["cpu_ms_per_doc"] / base[r["condition"]] if base.get(r["condition"]) else None
        r["vs_invoice"] = round(ratio, 2) if ratio else None
        table.add_row(r["pack"], r["condition"], f"{r['cpu_ms_per_doc']:.0f}",
                      f"{ratio:.2f}x" if ratio else "-",
                      f"{r['cpu_ms_per_doc_incl_startup']:.0f}",
                      f"{r['wall_docs_per_s']:.2f}", f"{r['kb_per_pdf']:.0f}")
    console.print(table)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    console.print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
