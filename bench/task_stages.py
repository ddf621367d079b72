"""What the task spends on a clean invoice's boxes, stage by stage, on the same inputs:
the page's JSON parsed (``json.loads`` + ``parse_layout``), the ink truth
(``measure_ink`` with the visibility check), and the ``words`` and ``chars`` rows with
the ``chars`` shard; in one process under the task's collector policy
(``kernel.heap.tune_collector``, as a ``docfleet work`` task runs), each stage the best
of seven passes over N documents. For this checkout and, with ``--before DIR``, another
checkout's ``worker`` directory, interleaved round by round in one sitting. Prints a
table and writes ``bench/results/task_stages.json``.

    git archive BASE worker | tar -x -C /tmp/base
    python bench/task_stages.py --before /tmp/base/worker --rounds 3

Why in process: a whole run's CPU (``bench/documents.py``) carries the machine's drift
between runs, which on a shared VM can exceed a few milliseconds a document; the best
of several passes over the same inputs does not. The bench imports nothing from docfleet
itself, so ``PYTHONPATH`` (set per tree) decides which code runs.
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table

from interleave import arguments, interleave, summarise, write

RESULTS = Path(__file__).parent / "results"

CHILD = r"""
import json, sys, time
import docfleet.dataset.shards as shards
import docfleet.packs.sdk.session as session_module
import docfleet.render.browser as browser
from docfleet.core.settings import load_settings
from docfleet.kernel.heap import tune_collector
from docfleet.packs.invoice import InvoicePack
from docfleet.packs.sdk.capture import Carry
from docfleet.packs.sdk.rows import char_rows, word_rows
from docfleet.packs.sdk.schema import CHARS
from docfleet.render.ink import measure_ink
from docfleet.render.layout import parse_layout

count = int(sys.argv[1])
raws, printed = [], []
loads = json.loads
browser.json = type("Json", (), {"loads": staticmethod(
    lambda text: (raws.append(text), loads(text))[1])})
measure = session_module.measure_ink
session_module.measure_ink = lambda pdf, layout, visibility=True: (
    printed.append((pdf, layout)), measure(pdf, layout, visibility))[1]
pack = InvoicePack()
chromium = browser.Chromium(load_settings().chromium_path, 2)
session = pack.session(pack.validate_options({"conditions": "clean"}), "", 2, chromium)
for _ in session.render("task-stages", range(count)):
    pass
chromium.close()
tune_collector()
inks = [measure_ink(pdf, layout) for pdf, layout in printed]


def best(stage):
    out = float("inf")
    for _ in range(7):
        t = time.process_time()
        stage()
        out = min(out, time.process_time() - t)
    return round(out * 1000 / count, 2)


def transfer():
    for raw in raws:
        for doc in loads(raw):
            parse_layout(doc["layout"])


def chars():
    rows = shards.TableRows() if hasattr(shards, "TableRows") else []
    for (_, layout), ink in zip(printed, inks):
        rows.extend(char_rows(0, ink, word_rows(0, layout, Carry(), ink)))
    shards.shard_bytes(CHARS, rows)


stages = {"layout_json": best(transfer),
          "ink_truth": best(lambda: [measure_ink(pdf, layout) for pdf, layout in printed]),
          "chars": best(chars)}
stages["total"] = round(sum(stages.values()), 2)
print(json.dumps(stages))
"""

STAGES = ("layout_json", "ink_truth", "chars", "total")


def main() -> None:
    args = arguments(__doc__, RESULTS / "task_stages.json", rounds=3, documents=64)
    rounds, load = interleave(CHILD, args.before, args.rounds, str(args.documents))
    table = Table(title=f"task CPU ms per clean invoice by stage ({args.documents} "
                        f"documents, best of 7 passes, {args.rounds} rounds: median; min)")
    table.add_column("tree")
    for stage in STAGES:
        table.add_column(stage)
    summary = {name: summarise(rs, STAGES) for name, rs in rounds.items()}
    for name, s in summary.items():
        table.add_row(name, *(f"{s[stage]['median']}; {s[stage]['min']}" for stage in STAGES))
    Console().print(table)
    write(args.out, args.before, rounds, summary, load, documents=args.documents)


if __name__ == "__main__":
    main()
