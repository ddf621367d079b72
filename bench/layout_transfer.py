"""What a document's boxes cost on their way from the laid-out page to the task: CPU of
laying out batches of 8 clean A4 invoices in one reused page, extracting their boxes
(the batch script with ``EXTRACT_JS``), passing the JSON back through Playwright and
parsing it (``json.loads`` + :func:`~docfleet.render.layout.parse_layout`), with no PDF:
in Chromium's tree (browser, renderer, GPU process and Playwright's driver: every
descendant of the measuring process) and in the measuring process itself; with the
JSON's size per document. For this checkout and, with ``--before DIR``, another
checkout's ``worker`` directory, interleaved round by round in one sitting. Prints a table
and writes ``bench/results/layout_transfer.json``.

    git archive BASE worker | tar -x -C /tmp/base
    python bench/layout_transfer.py --before /tmp/base/worker --rounds 6

Each round is a fresh process (its own Chromium); the first pass over the documents
warms the page and is not counted, the best of the next three is. Median and minimum
over the rounds. The bench imports nothing from docfleet itself, so ``PYTHONPATH`` (set
per tree) decides which code runs.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

RESULTS = Path(__file__).parent / "results"

CHILD = r"""
import asyncio, json, os, sys, time
sys.path.insert(0, sys.argv[1])
from proctree import tree_cpu
from docfleet.core.settings import load_settings
from docfleet.packs.invoice import InvoicePack
from docfleet.render.browser import BATCH_JS, CHROMIUM_FLAGS, SKELETON
from docfleet.render.layout import parse_layout

WIDTH, HEIGHT, BATCH = 794, 1123, 8
count = int(sys.argv[2])
pack = InvoicePack()
session = pack.session(pack.validate_options({"conditions": "clean"}), "", 1, None)
docs, index = [], 0
while len(docs) < count:
    record, html, _, _ = session.prepare("layout-transfer", index)
    index += 1
    if session.page_size(record) == (WIDTH, HEIGHT):
        docs.append(html)


async def main() -> dict:
    from playwright.async_api import async_playwright

    pw = await async_playwright().start()
    browser = await pw.chromium.launch(executable_path=load_settings().chromium_path,
                                       args=list(CHROMIUM_FLAGS))
    page = await browser.new_page()
    await page.set_content(SKELETON)
    await page.set_viewport_size({"width": WIDTH, "height": HEIGHT})
    best, size = (float("inf"), float("inf")), 0
    for rep in range(4):
        chromium, own, size = tree_cpu(os.getpid(), False), time.process_time(), 0
        for k in range(0, len(docs), BATCH):
            raw = await page.evaluate(BATCH_JS, {
                "docs": docs[k:k + BATCH], "extract": [True] * BATCH, "width": WIDTH,
                "height": HEIGHT})
            size += len(raw)
            for doc in json.loads(raw):
                parse_layout(doc["layout"])
        if rep:  # the first pass warms the page
            best = (min(best[0], tree_cpu(os.getpid(), False) - chromium),
                    min(best[1], time.process_time() - own))
    await browser.close()
    await pw.stop()
    return {"chromium_ms": round(best[0] * 1000 / len(docs), 2),
            "task_ms": round(best[1] * 1000 / len(docs), 2),
            "json_bytes": size // len(docs)}


print(json.dumps(asyncio.run(main())))
"""


def child(tree: str | None, documents: int) -> dict[str, Any]:
    env = dict(os.environ)
    if tree:
        env["PYTHONPATH"] = tree
    done = subprocess.run([sys.executable, "-c", CHILD, str(Path(__file__).parent),
                           str(documents)], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"the measuring process failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", help="another checkout's worker directory")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--documents", type=int, default=96)
    parser.add_argument("--out", type=Path, default=RESULTS / "layout_transfer.json")
    args = parser.parse_args()
    trees = {"this": None, **({"before": args.before} if args.before else {})}
    rounds: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
    load = [os.getloadavg()[0]]
    for _ in range(args.rounds):
        for name, tree in reversed(trees.items()):  # before first in each round
            rounds[name].append(child(tree, args.documents))
        load.append(os.getloadavg()[0])
    table = Table(title="layout, boxes and their JSON back to the task, no PDF "
                        f"({args.documents} clean A4 invoices, {args.rounds} rounds)")
    for col in ("tree", "Chromium + driver ms/doc (median; min)",
                "task ms/doc (median; min)", "JSON bytes/doc"):
        table.add_column(col)
    summary = {}
    for name, rs in rounds.items():
        summary[name] = {
            key: {"median": round(statistics.median(r[key] for r in rs), 2),
                  "min": round(min(r[key] for r in rs), 2)}
            for key in ("chromium_ms", "task_ms", "json_bytes")}
        s = summary[name]
        table.add_row(name, f"{s['chromium_ms']['median']}; {s['chromium_ms']['min']}",
                      f"{s['task_ms']['median']}; {s['task_ms']['min']}",
                      str(s["json_bytes"]["median"]))
    Console().print(table)
    args.out.write_text(json.dumps({
        "documents": args.documents, "rounds": rounds, "summary": summary,
        "trees": trees, "load": [round(v, 2) for v in load],
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
    }, indent=1, sort_keys=True) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
