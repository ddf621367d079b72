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

from pathlib import Path

from rich.console import Console
from rich.table import Table

from interleave import arguments, interleave, summarise, write

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


def main() -> None:
    args = arguments(__doc__, RESULTS / "layout_transfer.json", rounds=4, documents=96)
    rounds, load = interleave(CHILD, args.before, args.rounds, str(Path(__file__).parent),
                              str(args.documents))
    table = Table(title="layout, boxes and their JSON back to the task, no PDF "
                        f"({args.documents} clean A4 invoices, {args.rounds} rounds)")
    for col in ("tree", "Chromium + driver ms/doc (median; min)",
                "task ms/doc (median; min)", "JSON bytes/doc"):
        table.add_column(col)
    summary = {name: summarise(rs, ("chromium_ms", "task_ms", "json_bytes"))
               for name, rs in rounds.items()}
    for name, s in summary.items():
        table.add_row(name, f"{s['chromium_ms']['median']}; {s['chromium_ms']['min']}",
                      f"{s['task_ms']['median']}; {s['task_ms']['min']}",
                      str(s["json_bytes"]["median"]))
    Console().print(table)
    write(args.out, args.before, rounds, summary, load, documents=args.documents)


if __name__ == "__main__":
    main()
