"""What a document costs: whole-process-tree CPU per document (marginal) and per run
(fixed) for ``html``, clean and scanned PDFs, documents/s with 1 and 2 tasks, the same for
a clean PDF of every pack (invoice, receipt, purchase_order, bank_statement, form: one row per
pack), and the bare-Chromium floor (one reused page printing the same invoice) measured in
the same sitting, and issue 32's plain floor (``--plain-floor``: a reused headless shell
printing a one-page heading + 30 paragraphs HTML, marginal over 40 -> 200 prints; every
clean-PDF row gets ``ratio_to_plain_floor``); prints tables and writes
``bench/results/documents.json``.

    python bench/documents.py                           # defaults: 30 and 150 PDFs
    python bench/documents.py --modes pdf-clean --packs receipt,bank_statement --tasks 1
    python bench/documents.py --modes '' --floor '' --tasks 1 \
        --packs receipt:content=1,receipt:content=2 --out bench/results/documents-content.json
    python bench/documents.py --small 20 --large 60 --chromium default,/usr/bin/chromium
    python bench/documents.py --modes '' --floor '' --plain-floor '' --packs '' \
        --ink 12 --out bench/results/documents-ink.json   # the ink truth's own stages
    python bench/documents.py --modes pdf-clean --packs '' --tasks 1 --floor '' \
        --by-process 20,120                       # and where a document's CPU goes
    python bench/documents.py --modes '' --packs '' --floor '' --plain-prints '' \
        --fixed-by-process 6          # where a run's fixed CPU goes, and its fixed floor
    python bench/documents.py --modes '' --packs '' --floor '' --floor-flags \
        '--disable-threaded-compositing --disable-threaded-animation'  # the floor with them
    PYTHONPATH=/path/to/other/checkout/worker python bench/documents.py --label base \\
        --out bench/results/documents-base.json         # the same bench on other code

CPU is counted for the whole tree (launcher, tasks, Chromium and its renderers): each
measured command runs in a cgroup of its own (cgroup v1 ``cpuacct`` or v2 ``cpu.stat``,
when this process may create one, e.g. as root), else by polling ``/proc`` for every
descendant (short-lived processes can then be missed: the JSON says which was used).
Marginal CPU per document is ``(cpu(large) - cpu(small)) / (large - small)`` of real
one-task ``docfleet run``s; fixed CPU is a one-document run's CPU less one marginal
document (the JSON also has what remains of the small run, a noisier estimate that
carries the marginal's error 30 times), each beside the fixed floor measured in the same
sitting (``--fixed-floor``: a Python that imports Playwright, starts the plain floor's
executable, prints its page once and exits). Documents/s is
given twice per task count: for the whole large run (start-up included) and steady (the
documents the large run adds over the small one per second of wall it adds). The bench imports
nothing from docfleet itself, so ``PYTHONPATH`` can point it at another checkout.
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
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from proctree import descendants, own_cpu

RESULTS = Path(__file__).parent / "results"
MODES = {
    "html": ["--option", "format=html", "--option", "conditions=clean"],
    "pdf-clean": ["--option", "conditions=clean"],
    "pdf-scan": ["--option", "conditions=scan"],
}
#: the packs measured per pack (clean PDFs, their default options otherwise)
PACKS = ("invoice", "receipt", "purchase_order", "bank_statement", "form")

#: one reused page printing the same invoice again and again (argv: executable, prints,
#: batch); prints the chromium version. Imports docfleet only to build the invoice HTML.
FLOOR_SCRIPT = r"""
import asyncio, re, sys
from playwright.async_api import async_playwright
from docfleet.packs.invoice.context import page_size
from docfleet.packs.invoice.options import parse_options
from docfleet.packs.invoice.pack import InvoiceSession

exe, prints, batch = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
session = InvoiceSession(parse_options({"conditions": "clean", "lines": "4-10"}), exe, 1)
invoice, html, _, _ = session.prepare("bench-floor", 0)
if batch > 1:  # the same document B times in one page.pdf: its pages repeated
    head, rest = html.split("<body>", 1)
    body, tail = rest.rsplit("</body>", 1)
    html = head + "<body>" + body * batch + "</body>" + tail
width, height = page_size(invoice)

async def main():
    pw = await async_playwright().start()
    browser = await pw.chromium.launch(executable_path=exe, headless=True,
                                       args=["--no-sandbox", "--disable-gpu"])
    page = await browser.new_page(viewport={"width": width, "height": height})
    for _ in range(prints):
        await page.set_content(html, wait_until="load")
        await page.pdf(prefer_css_page_size=True, print_background=True)
    print(browser.version)
    await browser.close()
    await pw.stop()

asyncio.run(main())
"""


#: issue 32's floor: one reused headless shell page printing a one-page HTML (a heading
#: and 30 short paragraphs) again and again (argv: executable, prints); no docfleet import.
PLAIN_FLOOR_SCRIPT = r"""
import asyncio, sys
from playwright.async_api import async_playwright

exe, prints = sys.argv[1], int(sys.argv[2])
flags = sys.argv[3].split() if len(sys.argv) > 3 else []
html = ("<!doctype html><html><head><meta charset='utf-8'></head><body><h1>Floor</h1>"
        + "".join(f"<p>Short paragraph number {i} of the floor page.</p>" for i in range(30))
        + "</body></html>")

async def main():
    pw = await async_playwright().start()
    browser = await pw.chromium.launch(executable_path=exe, headless=True,
                                       args=["--no-sandbox", "--disable-gpu", *flags])
    page = await browser.new_page()
    for _ in range(prints):
        await page.set_content(html, wait_until="load")
        await page.pdf()
    print(browser.version)
    await browser.close()
    await pw.stop()

asyncio.run(main())
"""


class CgroupMeter:
    """Runs a command in a fresh cgroup and returns its CPU seconds (all descendants,
    exited ones included)."""

    def __init__(self, root: Path, v2: bool) -> None:
        self.root, self.v2 = root, v2

    @classmethod
    def find(cls) -> CgroupMeter | None:
        candidates = [(Path("/sys/fs/cgroup/cpuacct"), False), (Path("/sys/fs/cgroup"), True)]
        for root, v2 in candidates:
            probe = root / f"docfleet-bench-probe-{os.getpid()}"
            usage = probe / ("cpu.stat" if v2 else "cpuacct.usage")
            try:
                probe.mkdir()
            except OSError:
                continue
            ok = usage.exists()
            probe.rmdir()
            if ok:
                return cls(root, v2)
        return None

    @property
    def method(self) -> str:
        return "cgroup v2 cpu.stat" if self.v2 else "cgroup v1 cpuacct.usage"

    def _usage(self, group: Path) -> float:
        if self.v2:
            for line in (group / "cpu.stat").read_text().splitlines():
                key, value = line.split()
                if key == "usage_usec":
                    return int(value) / 1e6
            raise RuntimeError("cpu.stat has no usage_usec")
        return int((group / "cpuacct.usage").read_text()) / 1e9

    def run(self, cmd: list[str], **kw: Any) -> tuple[subprocess.CompletedProcess[str], float]:
        group = self.root / f"docfleet-bench-{uuid.uuid4().hex[:12]}"
        group.mkdir()
        procs = group / "cgroup.procs"

        def enter() -> None:
            procs.write_text(str(os.getpid()))

        try:
            result = subprocess.run(cmd, preexec_fn=enter, **kw)
            deadline = time.monotonic() + 10  # orphans (if any) still count until gone
            while procs.read_text().strip() and time.monotonic() < deadline:
                time.sleep(0.05)
            return result, self._usage(group)
        finally:
            for _ in range(100):
                try:
                    group.rmdir()
                    break
                except OSError:
                    time.sleep(0.05)


class ProcMeter:
    """Fallback: polls ``/proc`` for the command's descendants every 20 ms and sums the
    last CPU time seen of each (a process living less than a poll may be missed)."""

    method = "/proc polling (20 ms)"

    @staticmethod
    def _tree(root: int) -> dict[int, float]:
        """Own CPU seconds of ``root`` and each live descendant, by pid."""
        cpu = {pid: own_cpu(pid) for pid in descendants(root)}
        return {pid: seconds for pid, seconds in cpu.items() if seconds is not None}

    def run(self, cmd: list[str], each: Callable[[int, dict[int, float]], None] | None = None,
            **kw: Any) -> tuple[subprocess.CompletedProcess[str], float]:
        """Run ``cmd`` (``Popen`` keywords) to its end: its result and CPU seconds;
        ``each(root, tree)``: called with every poll's CPU seconds by pid."""
        seen: dict[int, float] = {}
        if kw.pop("capture_output", False):  # subprocess.run's keyword, not Popen's
            kw |= {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
        proc = subprocess.Popen(cmd, **kw)
        done = threading.Event()

        def poll() -> None:
            while not done.is_set():
                tree = self._tree(proc.pid)
                seen.update(tree)
                if each is not None:
                    each(proc.pid, tree)
                time.sleep(0.02)

        poller = threading.Thread(target=poll, daemon=True)
        poller.start()
        stdout, stderr = proc.communicate()
        done.set()
        poller.join()
        return subprocess.CompletedProcess(cmd, proc.returncode, stdout, stderr), \
            sum(seen.values())


Meter = CgroupMeter | ProcMeter


def process_kind(pid: int, root: int) -> str:
    """What a process of a ``docfleet run`` tree is: the launcher (``root``), a task, the
    Playwright driver (node) or a Chromium process by its ``--type`` (Chromium rewrites
    its command line into one space-separated string: read it either way)."""
    if pid == root:
        return "launcher"
    try:
        comm = Path(f"/proc/{pid}/comm").read_text().strip()
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return "gone"
    if not cmd.strip():  # exiting: its command line is gone already
        return "gone"
    if comm.startswith("node"):
        return "playwright driver"
    if "chrom" in comm or "chromium" in cmd.split(" ", 1)[0]:
        kind = next((a[len("--type="):] for a in cmd.split() if a.startswith("--type=")),
                    "browser")
        return f"chromium {kind}"
    return "task" if "python" in comm or "docfleet" in cmd else comm


def _cpu_by_kind(docs: int) -> dict[str, float]:
    """CPU seconds by kind of process of a one-task clean-invoice run of ``docs``."""
    with tempfile.TemporaryDirectory(prefix="docfleet-bench-") as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith("DOCFLEET_")}
        cmd = [sys.executable, "-m", "docfleet", "run", "--run-id", "kinds", "--total",
               str(docs), "--tasks", "1", "--state", f"sqlite:///{tmp}/state.db",
               "--out", f"file://{tmp}/out", *MODES["pdf-clean"]]
        seen: dict[int, tuple[str, float]] = {}

        def record(root: int, tree: dict[int, float]) -> None:
            # a process seen as the zygote is looked at again: a renderer forked from it
            # shows the zygote's command line until it rewrites its own
            for pid, used in tree.items():
                known = seen[pid][0] if pid in seen else "gone"
                now = process_kind(pid, root) if known in ("gone", "chromium zygote") \
                    else known
                seen[pid] = (known if now == "gone" else now, used)

        result, _ = ProcMeter().run(cmd, each=record, env=env, cwd=tmp,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                    text=True)
        if result.returncode != 0:
            raise SystemExit(f"{' '.join(cmd)} failed:\n{result.stderr[-3000:]}")
    totals: dict[str, float] = {}
    for kind, used in seen.values():
        totals[kind] = totals.get(kind, 0.0) + used
    return totals


def by_process(small: int, large: int) -> dict[str, Any]:
    """Where a clean invoice's CPU goes: the marginal CPU ms per document of each kind of
    process (:func:`process_kind`) between a ``small`` and a ``large`` one-task run,
    from ``/proc`` polled every 20 ms (each process's own user + system time, last seen)."""
    cpu = {docs: _cpu_by_kind(docs) for docs in (small, large)}
    kinds = sorted(set(cpu[small]) | set(cpu[large]))
    per = {k: round((cpu[large].get(k, 0.0) - cpu[small].get(k, 0.0)) * 1000
                    / (large - small), 1) for k in kinds}
    return {"documents": [small, large], "cpu_ms_per_document": per,
            "total_ms_per_document": round(sum(per.values()), 1)}


def fixed_by_process(rounds: int) -> dict[str, Any]:
    """Where a run's fixed CPU goes: a one-document one-task clean-invoice run's CPU
    seconds by kind of process (:func:`process_kind`), the median of ``rounds`` runs per
    kind and of their totals. A kind under 5 ms in every run is left out."""
    runs = [_cpu_by_kind(1) for _ in range(rounds)]
    kinds = sorted({k for r in runs for k in r})
    per = {k: round(statistics.median(r.get(k, 0.0) for r in runs), 3) for k in kinds
           if max(r.get(k, 0.0) for r in runs) >= 0.005}
    return {"rounds": rounds, "cpu_s": per,
            "total_cpu_s": round(statistics.median(sum(r.values()) for r in runs), 3),
            "runs": [{k: round(v, 3) for k, v in r.items()} for r in runs]}


def fleet(meter: Meter, mode: str, tasks: int, docs: int, chromium: str | None,
          pack: str = "invoice") -> dict[str, Any]:
    """CPU and wall time of a real ``docfleet run --pack PACK`` of ``docs`` documents, and
    its documents' mean size in bytes."""
    with tempfile.TemporaryDirectory(prefix="docfleet-bench-") as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith("DOCFLEET_")}
        if chromium:
            env["DOCFLEET_CHROMIUM_PATH"] = chromium
        name, _, extra = pack.partition(":")  # receipt:content=1 -> --option content=1
        run_id = f"bench-{name}-{mode}-{tasks}"
        cmd = [sys.executable, "-m", "docfleet", "run", "--run-id", run_id,
               "--total", str(docs), "--tasks", str(tasks), "--state",
               f"sqlite:///{tmp}/state.db", "--out", f"file://{tmp}/out", *MODES[mode]]
        if name != "invoice":  # the default pack: its command line as before
            cmd += ["--pack", name]
        for option in filter(None, extra.split(";")):
            cmd += ["--option", option]
        t0 = time.perf_counter()
        result, cpu = meter.run(cmd, env=env, capture_output=True, text=True, cwd=tmp)
        seconds = time.perf_counter() - t0
        if result.returncode != 0:
            raise SystemExit(f"{' '.join(cmd)} failed:\n{result.stderr[-3000:]}")
        sizes = [p.stat().st_size for p in Path(tmp, "out", run_id, "documents").iterdir()]
        if len(sizes) != docs:
            raise SystemExit(f"{' '.join(cmd)} wrote {len(sizes)} documents, not {docs}")
    return {"mode": mode, "pack": pack, "tasks": tasks, "documents": docs,
            "seconds": round(seconds, 2), "cpu_s": round(cpu, 3),
            "documents_per_s": round(docs / seconds, 2),
            "bytes_per_document": round(sum(sizes) / docs)}


def measure(meter: Meter, mode: str, pack: str, tasks: list[int], small: int, large: int,
            chromium: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """One summary row (marginal CPU per document and fixed CPU from one-task runs, docs/s
    per task count) of ``pack`` in ``mode``, and the runs it was computed from."""
    exe = None if chromium == "default" else chromium
    runs: dict[int, dict[str, Any]] = {}
    smalls: dict[int, dict[str, Any]] = {}
    for t in tasks:
        smalls[t] = fleet(meter, mode, t, small, exe, pack)
        runs[t] = fleet(meter, mode, t, large, exe, pack)
    results = [*smalls.values(), *runs.values()]
    row: dict[str, Any] = {"chromium": chromium, "mode": mode, "pack": pack}
    if 1 in runs:
        per, fixed = marginal(smalls[1], runs[1])
        one = fleet(meter, mode, 1, 1, exe, pack)
        results.append(one)
        row |= {"cpu_ms_per_document": round(per * 1000, 1),
                "fixed_cpu_s": round(one["cpu_s"] - per, 2),
                "fixed_cpu_s_from_small_run": round(fixed, 2)}
    for t in tasks:
        row[f"documents_per_s_{t}_tasks"] = runs[t]["documents_per_s"]
        row[f"steady_documents_per_s_{t}_tasks"] = steady(smalls[t], runs[t])
    for r in results:
        r["chromium"] = chromium
    return results, row


def floor(meter: Meter, executable: str, small: int, large: int, batch: int
          ) -> dict[str, Any]:
    """Marginal CPU of one more ``set_content`` + ``page.pdf`` on one reused page (the
    same invoice; ``batch`` copies of it per call when > 1), per printed invoice."""
    cpu = {}
    version = ""
    for prints in (small, large):
        result, cpu[prints] = meter.run(
            [sys.executable, "-c", FLOOR_SCRIPT, executable, str(prints), str(batch)],
            capture_output=True, text=True)
        if result.returncode != 0:
            raise SystemExit(f"floor on {executable} failed:\n{result.stderr[-3000:]}")
        version = result.stdout.strip()
    per = (cpu[large] - cpu[small]) / ((large - small) * batch)
    return {"executable": executable, "batch": batch, "version": version,
            "ms_per_document": round(per * 1000, 1)}


def plain_floor(meter: Meter, executable: str, small: int = 40, large: int = 200,
                flags: str = "") -> dict[str, Any]:
    """Issue 32's floor: marginal CPU of one more ``set_content`` + ``page.pdf`` of a
    one-page HTML (a heading, 30 short paragraphs) on one reused page, per print; with
    ``flags`` (space-separated) added to the bare ``--no-sandbox --disable-gpu``."""
    cpu = {}
    version = ""
    for prints in (small, large):
        result, cpu[prints] = meter.run(
            [sys.executable, "-c", PLAIN_FLOOR_SCRIPT, executable, str(prints), flags],
            capture_output=True, text=True)
        if result.returncode != 0:
            raise SystemExit(f"plain floor on {executable} failed:\n{result.stderr[-3000:]}")
        version = result.stdout.strip()
    per = (cpu[large] - cpu[small]) / (large - small)
    return {"executable": executable, "prints": [small, large], "version": version,
            "flags": flags, "ms_per_page": round(per * 1000, 1)}


def fixed_floor(meter: Meter, executable: str, rounds: int = 3) -> dict[str, Any]:
    """The fixed floor of a run that prints: a Python process that imports Playwright,
    starts ``executable`` (headless, one page), prints the plain floor page once and
    exits (:data:`PLAIN_FLOOR_SCRIPT` with one print), whole-tree CPU, median of
    ``rounds``. What any Playwright-and-Chromium tool pays before its first document."""
    cpu = []
    for _ in range(rounds):
        result, used = meter.run([sys.executable, "-c", PLAIN_FLOOR_SCRIPT, executable, "1"],
                                 capture_output=True, text=True)
        if result.returncode != 0:
            raise SystemExit(f"fixed floor on {executable} failed:\n{result.stderr[-3000:]}")
        cpu.append(used)
    return {"executable": executable, "rounds": rounds, "cpu_s": round(statistics.median(cpu), 3),
            "runs": [round(c, 3) for c in cpu]}


#: the ink truth's stages, in process (argv: packs, documents per pack): per pack, CPU ms
#: per clean page of the glyph boxes (pdfium text page, matching, ink unions), of the
#: visibility raster on top, and of the rows the ink adds (ink columns of ``words`` and
#: ``labels``, ``chars``)
INK_SCRIPT = r"""
import json, sys, time
import docfleet.packs.sdk.session as session_module
from docfleet.core.settings import load_settings
from docfleet.packs.sdk.rows import char_rows, label_rows, word_rows
from docfleet.packs.sdk.capture import Carry
from docfleet.render.ink import measure_ink
from docfleet.render.browser import Chromium
from docfleet.packs.invoice.pack import InvoicePack
from docfleet.packs.receipt import ReceiptPack
from docfleet.packs.purchase_order import PurchaseOrderPack
from docfleet.packs.bank_statement import BankStatementPack

PACKS = {"invoice": InvoicePack(), "receipt": ReceiptPack(),
         "purchase_order": PurchaseOrderPack(), "bank_statement": BankStatementPack()}
seen = []
session_module.measure_ink = lambda pdf, layout, visibility=True: (
    seen.append((pdf, layout)), measure_ink(pdf, layout, visibility))[1]
chromium = Chromium(load_settings().chromium_path, 2)
out = {}
for name in sys.argv[1].split(","):
    pack = PACKS[name]
    seen.clear()
    s = pack.session({"conditions": "clean", "content": pack.content_versions[-1]}, "", 2,
                     chromium)
    for _ in s.render("bench-ink", range(int(sys.argv[2]))):
        pass
    pages = sum(layout.pages for _, layout in seen)
    def cpu(f):
        t = time.process_time()
        for pdf, layout in seen:
            f(pdf, layout)
        return (time.process_time() - t) * 1000 / pages
    cpu(lambda pdf, layout: measure_ink(pdf, layout, False))  # warm
    boxes = cpu(lambda pdf, layout: measure_ink(pdf, layout, False))
    both = cpu(lambda pdf, layout: measure_ink(pdf, layout, True))
    inks = [measure_ink(pdf, layout, False) for pdf, layout in seen]
    def rows(ink):
        t = time.process_time()
        for (_, layout), i in zip(seen, inks):
            words = word_rows(0, layout, Carry(), i if ink else None)
            label_rows(0, layout, Carry(), i if ink else None)
            if ink:
                char_rows(0, i, words, Carry())
        return (time.process_time() - t) * 1000 / pages
    rows(False)
    plain, with_ink = rows(False), rows(True)
    out[name] = {"pages": pages, "chars_per_page": round(
                     sum(len(i.glyphs) for i in inks) / pages),
                 "glyph_boxes_ms_per_page": round(boxes, 2),
                 "visibility_ms_per_page": round(both - boxes, 2),
                 "rows_ms_per_page": round(with_ink - plain, 2)}
chromium.close()
print(json.dumps(out))
"""


def ink_cost(packs: list[str], documents: int) -> dict[str, Any]:
    """The ink truth's in-process CPU per clean page of each pack (:data:`INK_SCRIPT`)."""
    done = subprocess.run([sys.executable, "-c", INK_SCRIPT, ",".join(packs), str(documents)],
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def steady(small: dict[str, Any], large: dict[str, Any]) -> float:
    """Documents per second once the fleet runs: the documents the large run adds over
    the small one, over the wall time they add (start-up and finalize cancel out)."""
    extra = large["seconds"] - small["seconds"]
    return round((large["documents"] - small["documents"]) / extra, 2) if extra > 0 else 0.0


def marginal(small: dict[str, Any], large: dict[str, Any]) -> tuple[float, float]:
    per = (large["cpu_s"] - small["cpu_s"]) / (large["documents"] - small["documents"])
    return per, small["cpu_s"] - per * small["documents"]


def table(console: Console, title: str, cols: list[str], rows: list[list[str]]) -> None:
    t = Table(title=title)
    for i, col in enumerate(cols):
        t.add_column(col, justify="left" if i == 0 else "right", no_wrap=i < 2)
    for row in rows:
        t.add_row(*row)
    console.print(t)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", type=int, default=30, help="documents of the small run")
    parser.add_argument("--large", type=int, default=150, help="documents of the large run")
    parser.add_argument("--html-scale", type=int, default=4,
                        help="html runs are this many times larger (they are cheap)")
    parser.add_argument("--tasks", default="1,2", help="task counts for docs/s")
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--packs", default=",".join(PACKS),
                        help="packs measured as clean PDFs, one row each ('' to skip); the "
                             "invoice's row reuses its pdf-clean mode when that ran; "
                             "PACK:KEY=VALUE;KEY=VALUE adds pack options (receipt:content=1)")
    parser.add_argument("--chromium", default="default",
                        help="comma list of DOCFLEET_CHROMIUM_PATH values for the fleet "
                             "runs; 'default' leaves it unset (the settings' default)")
    parser.add_argument("--floor",
                        default="/usr/lib/chromium/chromium-headless-shell,/usr/bin/chromium",
                        help="executables for the bare-Chromium floor ('' to skip)")
    parser.add_argument("--floor-batch", default="1,10",
                        help="documents per page.pdf call for the floor")
    parser.add_argument("--plain-floor", default="/usr/lib/chromium/chromium-headless-shell",
                        help="executable for issue 32's floor: a one-page heading + 30 "
                             "paragraphs HTML, marginal over --plain-prints ('' to skip)")
    parser.add_argument("--plain-prints", default="40,200",
                        help="small,large print counts of the plain floor")
    parser.add_argument("--floor-flags", default="",
                        help="Chromium flags added to the plain floor's bare ones (e.g. the "
                             "renderer's own, to see what they save the floor)")
    parser.add_argument("--ink", type=int, default=0,
                        help="documents per pack to time the ink truth's stages on (0: not)")
    parser.add_argument("--by-process", default="",
                        help="small,large: a clean invoice's marginal CPU per document by "
                             "kind of process (task, driver, Chromium renderer, ...)")
    parser.add_argument("--fixed-floor", type=int, default=3, metavar="ROUNDS",
                        help="runs of the fixed floor (Playwright + the plain-floor "
                             "executable, one print; 0: none): every fixed CPU gets its ratio")
    parser.add_argument("--fixed-by-process", type=int, default=0,
                        help="ROUNDS: a one-document clean invoice run's whole CPU by kind "
                             "of process (launcher, task, driver, Chromium...), median of "
                             "ROUNDS runs (0: not)")
    parser.add_argument("--label", default="this checkout")
    parser.add_argument("--out", type=Path, default=RESULTS / "documents.json")
    args = parser.parse_args()
    console = Console()
    meter: Meter = CgroupMeter.find() or ProcMeter()
    report: dict[str, Any] = {
        "label": args.label, "cpu_method": meter.method,
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "load_before": os.getloadavg()},
        "sizes": {"small": args.small, "large": args.large, "html_scale": args.html_scale},
    }
    console.print(f"[bold]{args.label}[/]: CPU by {meter.method}")

    floors = []
    for exe in filter(None, args.floor.split(",")):
        if not Path(exe).exists():
            console.print(f"floor: {exe} is missing, skipped")
            continue
        for batch in (int(b) for b in args.floor_batch.split(",")):
            floors.append(floor(meter, exe, 10, 40, batch))
    report["floor"] = floors
    plain = None
    if args.plain_floor and Path(args.plain_floor).exists() and args.plain_prints:
        lo, hi = (int(n) for n in args.plain_prints.split(","))
        plain = plain_floor(meter, args.plain_floor, lo, hi, args.floor_flags)
        console.print(f"plain floor ({plain['executable']}): {plain['ms_per_page']} ms/page")
    elif args.plain_floor:
        console.print(f"plain floor: {args.plain_floor} is missing, skipped")
    report["plain_floor"] = plain
    fixed_base = None
    if args.fixed_floor and args.plain_floor and Path(args.plain_floor).exists():
        fixed_base = fixed_floor(meter, args.plain_floor, args.fixed_floor)
        console.print(f"fixed floor (Playwright + {fixed_base['executable']}, one print): "
                      f"{fixed_base['cpu_s']} s")
    report["fixed_floor"] = fixed_base
    table(console, "bare Chromium floor: CPU ms per invoice, one reused page",
          ["executable", "per page.pdf", "ms/doc"],
          [[f["executable"], str(f["batch"]), f"{f['ms_per_document']:.1f}"] for f in floors])

    results: list[dict[str, Any]] = []
    summary: list[dict[str, Any]] = []
    per_pack: list[dict[str, Any]] = []
    tasks = [int(t) for t in args.tasks.split(",")]
    packs = [p for p in args.packs.split(",") if p]
    unknown = sorted({p.partition(":")[0] for p in packs} - set(PACKS))
    if unknown:
        raise SystemExit(f"--packs: unknown pack {', '.join(unknown)} (use {', '.join(PACKS)})")
    for chromium in args.chromium.split(","):
        for mode in filter(None, args.modes.split(",")):
            scale = args.html_scale if mode == "html" else 1
            runs, row = measure(meter, mode, "invoice", tasks, args.small * scale,
                                args.large * scale, chromium)
            results += runs
            summary.append(row)
        for pack in packs:
            row = next((r for r in summary if r["chromium"] == chromium
                        and r["mode"] == "pdf-clean" and pack == "invoice"), None)
            if row is None:
                runs, row = measure(meter, "pdf-clean", pack, tasks, args.small, args.large,
                                    chromium)
                results += runs
            per_pack.append(row)
    report["fleet"] = results
    report["summary"] = summary
    report["packs"] = per_pack
    default_exe = subprocess.run(
        [sys.executable, "-c", "from docfleet.core.settings import load_settings; "
         "print(load_settings().chromium_path)"], capture_output=True, text=True).stdout.strip()
    report["default_chromium"] = default_exe
    real = {f["executable"]: os.path.realpath(f["executable"]) for f in floors}

    def floor_of(chromium: str, batch: int) -> float | None:
        exe = os.path.realpath(default_exe if chromium == "default" else chromium)
        return next((f["ms_per_document"] for f in floors
                     if real[f["executable"]] == exe and f["batch"] == batch), None)

    batches = sorted({f["batch"] for f in floors})
    cols = ["chromium", "mode", "CPU ms/doc", "fixed CPU s",
            *(f"docs/s {t} task{'s' if t > 1 else ''} (run; steady)" for t in tasks)]
    rows = []
    for row in summary:
        for batch in batches:
            ms = floor_of(row["chromium"], batch)
            if ms and row["mode"] == "pdf-clean" and "cpu_ms_per_document" in row:
                row.setdefault("ratio_to_floor", {})[str(batch)] = {
                    "floor_ms": ms, "ratio": round(row["cpu_ms_per_document"] / ms, 2)}
        rows.append([row["chromium"], row["mode"], f"{row.get('cpu_ms_per_document', '-')}",
                     f"{row.get('fixed_cpu_s', '-')}",
                     *(f"{row[f'documents_per_s_{t}_tasks']:.1f}; "
                       f"{row[f'steady_documents_per_s_{t}_tasks']:.1f}" for t in tasks)])
    table(console, f"docfleet run ({args.label}): whole-tree CPU and speed", cols, rows)
    base = next((r.get("cpu_ms_per_document") for r in per_pack if r["pack"] == "invoice"),
                None)
    for row in per_pack:
        if base and row.get("cpu_ms_per_document") is not None:
            row["cpu_ratio_to_invoice"] = round(row["cpu_ms_per_document"] / base, 2)
    table(console, f"clean PDF per pack ({args.label}): whole-tree CPU and speed",
          ["chromium", "pack", "CPU ms/doc", "x invoice", "fixed CPU s",
           *(f"docs/s {t} task{'s' if t > 1 else ''} (run; steady)" for t in tasks)],
          [[row["chromium"], row["pack"], f"{row.get('cpu_ms_per_document', '-')}",
            f"{row.get('cpu_ratio_to_invoice', '-')}", f"{row.get('fixed_cpu_s', '-')}",
            *(f"{row[f'documents_per_s_{t}_tasks']:.1f}; "
              f"{row[f'steady_documents_per_s_{t}_tasks']:.1f}" for t in tasks)]
           for row in per_pack])
    if plain and plain["ms_per_page"] > 0:
        for row in {id(r): r for r in summary + per_pack}.values():
            if row["mode"] == "pdf-clean" and row.get("cpu_ms_per_document") is not None:
                row["ratio_to_plain_floor"] = round(
                    row["cpu_ms_per_document"] / plain["ms_per_page"], 2)
                console.print(f"{row['chromium']} {row.get('pack', 'invoice')}: clean PDF "
                              f"CPU/doc = {row['ratio_to_plain_floor']}x the plain floor "
                              f"({plain['ms_per_page']} ms/page; goal <= 2x)")
    for row in summary:
        for batch, r in row.get("ratio_to_floor", {}).items():
            console.print(f"{row['chromium']}: clean PDF CPU/doc = {r['ratio']}x the bare "
                          f"floor of its Chromium with {batch} per page.pdf "
                          f"({r['floor_ms']} ms)")
    if args.ink:
        report["ink"] = ink_cost(list(PACKS), args.ink)
        table(console, "ink truth (content versions with ink): CPU ms per clean page",
              ["pack", "pages", "chars/page", "glyph boxes", "visibility", "rows"],
              [[name, str(r["pages"]), str(r["chars_per_page"]),
                f"{r['glyph_boxes_ms_per_page']}", f"{r['visibility_ms_per_page']}",
                f"{r['rows_ms_per_page']}"] for name, r in report["ink"].items()])
    if args.by_process:
        lo, hi = (int(n) for n in args.by_process.split(","))
        report["by_process"] = kinds = by_process(lo, hi)
        table(console, f"clean invoice ({args.label}): marginal CPU ms per document by "
              "process (/proc, 20 ms polls)", ["process", "ms/doc"],
              [[k, f"{v}"] for k, v in sorted(kinds["cpu_ms_per_document"].items(),
                                              key=lambda kv: -kv[1])]
              + [["all", f"{kinds['total_ms_per_document']}"]])
        if plain and plain["ms_per_page"] > 0:
            kinds["ratio_to_plain_floor"] = {
                k: round(v / plain["ms_per_page"], 2)
                for k, v in kinds["cpu_ms_per_document"].items()}
    if fixed_base and fixed_base["cpu_s"] > 0:
        for row in {id(r): r for r in summary + per_pack}.values():
            if row.get("fixed_cpu_s") is not None:
                row["fixed_ratio_to_floor"] = round(row["fixed_cpu_s"] / fixed_base["cpu_s"], 2)
                console.print(f"{row['chromium']} {row.get('pack', 'invoice')} {row['mode']}: "
                              f"fixed CPU = {row['fixed_ratio_to_floor']}x the fixed floor "
                              f"({fixed_base['cpu_s']} s)")
    if args.fixed_by_process:
        report["fixed_by_process"] = fixed = fixed_by_process(args.fixed_by_process)
        if fixed_base and fixed_base["cpu_s"] > 0:
            fixed["ratio_to_fixed_floor"] = round(fixed["total_cpu_s"] / fixed_base["cpu_s"], 2)
        table(console, f"one-document clean invoice run ({args.label}): CPU s by process "
              f"(/proc, 20 ms polls; median of {args.fixed_by_process})", ["process", "CPU s"],
              [[k, f"{v}"] for k, v in sorted(fixed["cpu_s"].items(), key=lambda kv: -kv[1])]
              + [["all (median of the runs' totals)", f"{fixed['total_cpu_s']}"]])
    report["machine"]["load_after"] = os.getloadavg()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1, sort_keys=True) + "\n")
    console.print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
