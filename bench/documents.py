"""Invoice generation speed on this machine: documents/s for ``html`` and ``pdf`` (clean
and scan) with 1 and 2 local tasks, ms per stage (record, HTML, PDF, scan, shard write),
and what the renderer's page concurrency gains; prints tables and writes
``bench/results/documents.json``.

    python bench/documents.py                        # defaults: 120 PDFs per fleet run
    python bench/documents.py --docs 60 --pages 1,2,3,4 --tasks 1,2

Fleet figures are wall time of a real ``docfleet run --tasks N`` (process start, Chromium
launch, planning and the root manifest included); the stage and page figures run in this
process against one Chromium. The load average is recorded because the machine is shared.
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

from rich.console import Console
from rich.table import Table

from docfleet.packs.invoice.context import build_context, page_size
from docfleet.packs.invoice.options import parse_options
from docfleet.packs.invoice.pack import InvoiceSession
from docfleet.packs.invoice.schema import TABLES
from docfleet.render.browser import Chromium
from docfleet.render.html import render_html
from docfleet.render.scan import scan_pdf
from docfleet.settings import load_settings
from docfleet.shards import shard_bytes

RESULTS = Path(__file__).parent / "results"
MODES = {
    "html": ["--option", "format=html", "--option", "conditions=clean"],
    "pdf-clean": ["--option", "conditions=clean"],
    "pdf-scan": ["--option", "conditions=scan"],
}


def stages(chromium: Chromium, docs: int) -> dict[str, float]:
    """Mean ms per document of each stage, one document at a time (no overlap)."""
    session = InvoiceSession(parse_options({"conditions": "clean"}), chromium.executable, 1,
                             chromium=chromium)
    times: dict[str, list[float]] = {k: [] for k in ("record", "html", "pdf", "scan", "rows")}
    rows: dict[str, list] = {t: [] for t in TABLES}
    list(session.render("bench-warm", range(16)))  # Faker locales, templates, browser
    for index in range(docs):
        t0 = time.perf_counter()
        invoice = session.source.generate("bench-stages", index)
        t1 = time.perf_counter()
        context = build_context(invoice)
        html, _ = render_html(f"invoice/{invoice.archetype}.html.j2", context)
        t2 = time.perf_counter()
        width, height = page_size(invoice)
        printed_pdf = chromium.submit(html, width, height).result()
        t3 = time.perf_counter()
        assert printed_pdf.pdf is not None
        scan_pdf(printed_pdf.pdf, index)
        t4 = time.perf_counter()
        times["record"].append(t1 - t0)
        times["html"].append(t2 - t1)
        times["pdf"].append(t3 - t2)
        times["scan"].append(t4 - t3)
    for doc in session.render("bench-stages", range(docs)):
        for table, table_rows in doc.rows.items():
            rows[table].extend(table_rows)
    t0 = time.perf_counter()
    for table, schema in TABLES.items():
        shard_bytes(schema, rows[table])
    shard_ms = (time.perf_counter() - t0) * 1000 / docs
    out = {k: statistics.mean(v) * 1000 for k, v in times.items() if v}
    out["shard_write"] = shard_ms
    return out


def pages_in_flight(executable: str, docs: int, choices: list[int], repeat: int
                    ) -> dict[int, float]:
    """Median clean PDFs/s of one session keeping ``n`` pages busy, for each ``n``; the
    settings are interleaved ``repeat`` times so a shared machine's drift hits them all."""
    samples: dict[int, list[float]] = {n: [] for n in choices}
    for _ in range(repeat):
        for n in choices:
            chromium = Chromium(executable, n)
            session = InvoiceSession(parse_options({"conditions": "clean"}), executable, n,
                                     chromium=chromium)
            try:
                list(session.render("bench-warm", range(n)))
                t0 = time.perf_counter()
                count = sum(1 for _ in session.render("bench-pages", range(docs)))
                samples[n].append(count / (time.perf_counter() - t0))
            finally:
                session.close()
                chromium.close()
    return {n: statistics.median(v) for n, v in samples.items()}


def fleet(mode: str, tasks: int, docs: int, pages: int) -> dict[str, Any]:
    """Wall time of a real ``docfleet run`` of ``docs`` documents with ``tasks`` tasks."""
    with tempfile.TemporaryDirectory(prefix="docfleet-bench-") as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith("DOCFLEET_")}
        env["DOCFLEET_RENDER_PAGES"] = str(pages)
        cmd = [sys.executable, "-m", "docfleet", "run", "--run-id", f"bench-{mode}-{tasks}",
               "--total", str(docs), "--tasks", str(tasks), "--state",
               f"sqlite:///{tmp}/state.db", "--out", f"file://{tmp}/out", *MODES[mode]]
        t0 = time.perf_counter()
        result = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=tmp)
        seconds = time.perf_counter() - t0
        if result.returncode != 0:
            raise SystemExit(f"{' '.join(cmd)} failed:\n{result.stderr[-3000:]}")
    return {"mode": mode, "tasks": tasks, "documents": docs, "seconds": round(seconds, 2),
            "documents_per_s": round(docs / seconds, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=120, help="PDFs per fleet run")
    parser.add_argument("--html-docs", type=int, default=600, help="HTML docs per fleet run")
    parser.add_argument("--stage-docs", type=int, default=40)
    parser.add_argument("--page-docs", type=int, default=60)
    parser.add_argument("--pages", default="1,2,3,4", help="page concurrency to compare")
    parser.add_argument("--repeat", type=int, default=3, help="interleaved page rounds")
    parser.add_argument("--skip-fleet", action="store_true")
    parser.add_argument("--tasks", default="1,2")
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--out", type=Path, default=RESULTS / "documents.json")
    args = parser.parse_args()
    console = Console()
    settings = load_settings()
    executable = settings.chromium_path
    report: dict[str, Any] = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "load_before": os.getloadavg()},
        "render_pages_setting": settings.render_pages,
    }

    chromium = Chromium(executable, 1)
    report["chromium"] = chromium.version
    try:
        report["stage_ms"] = {k: round(v, 2) for k, v in stages(chromium, args.stage_docs).items()}
    finally:
        chromium.close()
    table = Table(title=f"ms per document and stage ({args.stage_docs} docs, sequential)")
    for key in report["stage_ms"]:
        table.add_column(key, justify="right")
    table.add_row(*(f"{v:.1f}" for v in report["stage_ms"].values()))
    console.print(table)

    choices = [int(x) for x in args.pages.split(",")]
    rates = pages_in_flight(executable, args.page_docs, choices, args.repeat)
    base = rates[choices[0]]
    report["pages_in_flight"] = {str(n): {"documents_per_s": round(r, 2),
                                          "ratio": round(r / base, 2)} for n, r in rates.items()}
    table = Table(title=f"clean PDFs/s of one task by pages in flight ({args.page_docs} docs, "
                        f"median of {args.repeat})")
    table.add_column("pages")
    table.add_column("docs/s", justify="right")
    table.add_column(f"x vs {choices[0]}", justify="right")
    for n, r in rates.items():
        table.add_row(str(n), f"{r:.2f}", f"{r / base:.2f}")
    console.print(table)

    runs = []
    for mode in [] if args.skip_fleet else args.modes.split(","):
        for tasks in (int(x) for x in args.tasks.split(",")):
            docs = args.html_docs if mode == "html" else args.docs
            runs.append(fleet(mode, tasks, docs, settings.render_pages))
    report["fleet"] = runs
    table = Table(title="docfleet run: documents/s (wall time, startup included)")
    for col in ("mode", "tasks", "documents", "seconds", "docs/s"):
        table.add_column(col, justify="right")
    for r in runs:
        table.add_row(r["mode"], str(r["tasks"]), str(r["documents"]), f"{r['seconds']:.1f}",
                      f"{r['documents_per_s']:.2f}")
    console.print(table)
    report["machine"]["load_after"] = os.getloadavg()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1, sort_keys=True) + "\n")
    console.print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
