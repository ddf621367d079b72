"""What each capture condition costs on top of the clean render: CPU seconds per page and
bytes per page of ``scan``, ``photo``, ``fax`` and ``annotated``, and the ratio to a clean
page's render.

Clean PDFs are rendered once with the real Chromium (the same for every condition), then
each condition captures all of them in this process (pypdfium2 + Pillow, no browser), so
``time.process_time()`` of this process is exactly the condition's CPU. The clean row is
the Chromium render, measured as the CPU of the browser's process tree (``/proc``) plus
this process.

Each condition's row carries issue 32's goal for its capture step (CPU per page: scan,
fax and annotated ≤ 100 ms, photo ≤ 150 ms) and whether this sitting met it; photo is
measured in both recipes: 2 (every pack's newest content version) and 1 (the older
versions, which keep their bytes); the clean
render's own goal is a ratio to a bare print, measured by ``bench/documents.py``.

    python bench/conditions.py              # 24 documents
    python bench/conditions.py --docs 8     # a quick look

Writes bench/results/conditions.json.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from docfleet.core.settings import load_settings
from docfleet.packs.invoice.options import parse_options
from docfleet.packs.invoice.pack import InvoiceSession
from docfleet.render.browser import Chromium
from docfleet.render.capture import capture_pdf
from docfleet.render.scan import scan_pdf
from proctree import tree_cpu

RESULTS = Path(__file__).parent / "results" / "conditions.json"
#: issue 32: CPU seconds per page of each capture step, on top of the clean render
GOALS = {"scan": 0.100, "fax": 0.100, "annotated": 0.100, "photo": 0.150}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=24)
    args = parser.parse_args()
    settings = load_settings()
    chromium = Chromium(settings.chromium_path, 2)
    session = InvoiceSession(parse_options({"conditions": "clean", "lines": "1-10"}),
                             chromium.executable, 2, chromium=chromium)
    try:
        browser_before = tree_cpu(os.getpid(), include_root=False)
        own_before, wall = time.process_time(), time.perf_counter()
        docs = list(session.render("bench-conditions", range(args.docs)))
        clean_wall = time.perf_counter() - wall
        browser = tree_cpu(os.getpid(), include_root=False) - browser_before
        clean_cpu = time.process_time() - own_before + browser
    finally:
        session.close()
        chromium.close()
    pdfs = [next(iter(d.files.values())) for d in docs]
    pages = sum(d.rows["invoices"][0]["page_count"] for d in docs)
    rows = [{"condition": "clean", "cpu_s_per_page": clean_cpu / pages,
             "wall_s_per_page": clean_wall / pages,
             "kb_per_page": sum(map(len, pdfs)) / pages / 1024, "ratio_to_clean": 1.0}]
    # photo: the newest content versions' recipe (2), and recipe 1 of the older ones
    for condition, recipe in (("scan", 0), ("photo", 2), ("photo", 1), ("fax", 0),
                              ("annotated", 0)):
        cpu, wall, size = time.process_time(), time.perf_counter(), 0
        for k, pdf in enumerate(pdfs):
            if condition == "scan":
                out, _, _ = scan_pdf(pdf, k)
            else:
                out, _, _ = capture_pdf(pdf, condition, k, "en", [], recipe or 1)
            size += len(out)
        spent = time.process_time() - cpu
        label = f"{condition} (recipe {recipe})" if recipe else condition
        rows.append({"condition": label, "cpu_s_per_page": spent / pages,
                     "wall_s_per_page": (time.perf_counter() - wall) / pages,
                     "kb_per_page": size / pages / 1024,
                     "ratio_to_clean": spent / pages / rows[0]["cpu_s_per_page"],
                     "goal_cpu_s_per_page": GOALS[condition],
                     "goal_met": spent / pages <= GOALS[condition]})
    table = Table(title=f"capture conditions, {args.docs} documents, {pages} pages")
    for column in ("condition", "CPU s/page", "wall s/page", "KiB/page", "CPU vs clean",
                   "goal", "met"):
        table.add_column(column, justify="right")
    for r in rows:
        clean = r["condition"] == "clean"
        table.add_row(r["condition"], f"{r['cpu_s_per_page']:.3f}",
                      f"{r['wall_s_per_page']:.3f}", f"{r['kb_per_page']:.0f}",
                      "(render)" if clean else f"{r['ratio_to_clean']:.2f}x",
                      "" if clean else f"≤ {r['goal_cpu_s_per_page']:.3f}",
                      "" if clean else ("yes" if r["goal_met"] else "NO"))
    Console().print(table)
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps({
        "measured_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "documents": args.docs, "pages": pages, "cpus": os.cpu_count(),
        "load": [round(v, 1) for v in os.getloadavg()],
        "note": "clean = Chromium render CPU (browser tree + this process); the others = "
                "the capture step alone, on top of the clean render",
        "rows": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main()
