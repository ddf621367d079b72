"""What each capture condition costs on top of the clean render: CPU seconds per page and
bytes per page of ``scan``, ``photo``, ``fax`` and ``annotated``, and the ratio to a clean
page's render.

Clean PDFs (the invoice pack's newest content version) are rendered once with the real
Chromium (the same for every condition), then
each condition captures all of them in this process (pypdfium2 + Pillow, no browser), so
``time.process_time()`` of this process is exactly the condition's CPU. The clean row is
the Chromium render, measured as the CPU of the browser's process tree (``/proc``) plus
this process.

A condition's CPU is its capture step (raster, degradation, image PDF) and carrying the
document's golden boxes through it: every word and glyph box, ink box and quad, every
line, label and cell (the pack's own row builders, a captured page's boxes as a task
carries them; the fields' few boxes are left out). Each condition's row carries issue
32's goal (CPU per page: scan, fax and annotated ≤ 100 ms, photo ≤ 150 ms) and whether
this sitting met it, on the two together; photo is measured in both recipes: 2 (every
pack's newest content version) and 1 (the older versions, which keep their bytes); the
clean render's own goal is a ratio to a bare print, measured by ``bench/documents.py``.

    python bench/conditions.py              # 24 documents
    python bench/conditions.py --docs 8     # a quick look
    PYTHONPATH=/tmp/base/worker python bench/conditions.py --out /tmp/base.json

Writes bench/results/conditions.json (``--out``).
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

import docfleet.packs.sdk.session as session_module
from docfleet.core.settings import load_settings
from docfleet.packs.invoice import InvoicePack
from docfleet.packs.sdk.capture import Carry, capture
from docfleet.packs.sdk.printing import media_box
from docfleet.packs.sdk.rows import cell_rows, char_rows, label_rows, text_line_rows, word_rows
from docfleet.render.browser import Chromium
from docfleet.render.ink import Ink, measure_ink
from docfleet.render.layout import Layout
from proctree import tree_cpu

RESULTS = Path(__file__).parent / "results" / "conditions.json"
#: issue 32: CPU seconds per page of each capture step, on top of the clean render
GOALS = {"scan": 0.100, "fax": 0.100, "annotated": 0.100, "photo": 0.150}


def carry_rows(layout: Layout, ink: Ink, carry: Carry) -> None:
    """The golden rows of one document whose boxes a capture carries (words and their
    glyphs with ink boxes and quads, lines, labels, cells), as the pack's rows build them."""
    words = word_rows(0, layout, carry, ink)
    char_rows(0, ink, words, carry)
    text_line_rows(0, layout, carry)
    label_rows(0, layout, carry, ink)
    cell_rows(0, layout, carry)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=24)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    settings = load_settings()
    chromium = Chromium(settings.chromium_path, 2)
    pack = InvoicePack()  # its newest content version: ink truth, glyphs and all
    session = pack.session(pack.validate_options({"conditions": "clean", "lines": "1-10"}),
                           "", 2, chromium)
    laid_out: list[Layout] = []  # each document's layout, as the session measured its ink
    measure = session_module.measure_ink
    session_module.measure_ink = lambda pdf, layout, visibility=True: (  # type: ignore[assignment]
        laid_out.append(layout), measure(pdf, layout, visibility))[1]
    try:
        browser_before = tree_cpu(os.getpid(), include_root=False)
        own_before, wall = time.process_time(), time.perf_counter()
        docs = list(session.render("bench-conditions", range(args.docs)))
        clean_wall = time.perf_counter() - wall
        browser = tree_cpu(os.getpid(), include_root=False) - browser_before
        clean_cpu = time.process_time() - own_before + browser
    finally:
        session_module.measure_ink = measure
        session.close()
        chromium.close()
    pdfs = [next(iter(d.files.values())) for d in docs]
    inks = [measure_ink(pdf, layout) for pdf, layout in zip(pdfs, laid_out, strict=True)]
    pages = sum(d.rows["invoices"][0]["page_count"] for d in docs)
    rows = [{"condition": "clean", "cpu_s_per_page": clean_cpu / pages,
             "wall_s_per_page": clean_wall / pages,
             "kb_per_page": sum(map(len, pdfs)) / pages / 1024, "ratio_to_clean": 1.0}]
    # photo: the newest content versions' recipe (2), and recipe 1 of the older ones
    for condition, recipe in (("scan", 0), ("photo", 2), ("photo", 1), ("fax", 0),
                              ("annotated", 0)):
        cpu, wall, size, carry_cpu = time.process_time(), time.perf_counter(), 0, 0.0
        for k, (pdf, doc) in enumerate(zip(pdfs, docs, strict=True)):
            page_count = doc.rows["invoices"][0]["page_count"]
            captured = capture(pdf, media_box(pdf), page_count, condition, "bench", k, "en",
                               lambda n=page_count: [[] for _ in range(n)], clamp=True,
                               photo_recipe=recipe or 1)
            size += len(captured.pdf)
            carry_started = time.process_time()
            carry_rows(laid_out[k], inks[k], captured.carry)
            carry_cpu += time.process_time() - carry_started
        spent = time.process_time() - cpu - carry_cpu
        total = (spent + carry_cpu) / pages
        label = f"{condition} (recipe {recipe})" if recipe else condition
        rows.append({"condition": label, "cpu_s_per_page": spent / pages,
                     "carry_cpu_s_per_page": carry_cpu / pages,
                     "total_cpu_s_per_page": total,
                     "wall_s_per_page": (time.perf_counter() - wall) / pages,
                     "kb_per_page": size / pages / 1024,
                     "ratio_to_clean": total / rows[0]["cpu_s_per_page"],
                     "goal_cpu_s_per_page": GOALS[condition],
                     "goal_met": total <= GOALS[condition]})
    table = Table(title=f"capture conditions, {args.docs} documents, {pages} pages")
    for column in ("condition", "CPU s/page", "of which boxes", "wall s/page", "KiB/page",
                   "CPU vs clean", "goal", "met"):
        table.add_column(column, justify="right")
    for r in rows:
        clean = r["condition"] == "clean"
        table.add_row(r["condition"], f"{r.get('total_cpu_s_per_page', r['cpu_s_per_page']):.3f}",
                      "" if clean else f"{r['carry_cpu_s_per_page']:.3f}",
                      f"{r['wall_s_per_page']:.3f}", f"{r['kb_per_page']:.0f}",
                      "(render)" if clean else f"{r['ratio_to_clean']:.2f}x",
                      "" if clean else f"≤ {r['goal_cpu_s_per_page']:.3f}",
                      "" if clean else ("yes" if r["goal_met"] else "NO"))
    Console().print(table)
    args.out.parent.mkdir(exist_ok=True)
    args.out.write_text(json.dumps({
        "measured_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "documents": args.docs, "pages": pages, "cpus": os.cpu_count(),
        "load": [round(v, 1) for v in os.getloadavg()],
        "note": "clean = Chromium render CPU (browser tree + this process); the others, on "
                "top of the clean render: cpu_s_per_page = the capture step (raster, "
                "degradation, image PDF), carry_cpu_s_per_page = carrying the golden boxes "
                "(words, glyphs, lines, labels, cells: box, ink box and quads) through it, "
                "total_cpu_s_per_page = both, which the goal is held to",
        "rows": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main()
