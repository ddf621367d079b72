"""Export throughput and memory: rows/s and peak RSS of ``docfleet export`` to
``parquet://`` and ``duckdb://`` for runs of growing size, of ``docfleet score``, and
pages/s and peak RSS of the ``hf://`` export (a ``datasets`` DatasetDict with page images).

The runs are **synthesised**, not rendered: golden shards with the invoice pack's exact
schemas (:mod:`docfleet.packs.invoice.schema`), realistic row counts per document
(``--lines`` line items, one ``fields`` row per printed field, ~150 ``words``), real
manifest parts (sha256, bytes, rows) and a real root manifest, written to a ``file://``
output. Rendering 10,000 PDFs would measure Chromium, not export. The export then runs
exactly as a user runs it, in a fresh process (``python -m docfleet export``), and that
process's peak RSS (``ru_maxrss``) is read after it exits. Memory flat as runs grow
means the peak stays put while the document count grows.

    python bench/export.py                        # 2,000 and 10,500 documents
    python bench/export.py --sizes 500 --lines 4  # a quick look
    python bench/export.py --sizes 0 --hf-sizes 100,400   # only hf://

For ``hf://`` every synthesised document gets the same real one-page PDF (text drawn in
Helvetica, an A4 MediaBox), so the measurement is the export's own work: verify, render
the page with pdfium, encode PNG, write Arrow, ``save_to_disk``.

Writes bench/results/export.json (``--json NAME`` for another file under bench/results/).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from docfleet.blob.file import FileBlobStore
from docfleet.dataset.manifest import ROOT_KEY, Part, RunFiles, build_root, part_key, shard_key
from docfleet.dataset.shards import shard_bytes
from docfleet.packs.invoice.schema import TABLES

RESULTS = Path(__file__).parent / "results"
ARCHETYPES = ("classic", "sidebar", "boxed", "receipt")
LOCALES = ("en-US", "en-GB", "fr-FR", "de-DE")
HEADER = ("invoice_number", "issue_date", "due_date", "seller_name", "seller_address",
          "seller_tax_id", "seller_phone", "seller_email", "buyer_name", "buyer_address",
          "subtotal", "tax_total", "total", "tax_rate", "tax_base", "tax_amount")
PER_LINE = ("line_number", "sku", "description", "quantity", "unit", "unit_price",
            "line_tax_rate", "net_amount")
WORDS_PER_DOC = 150


def unit_rows(start: int, count: int, lines: int) -> dict[str, list[dict[str, Any]]]:
    """Golden rows of documents ``[start, start+count)``, shaped like the invoice pack's."""
    rows: dict[str, list[dict[str, Any]]] = {t: [] for t in TABLES}
    for d in range(start, start + count):
        net = [Decimal(10 + (d * 7 + k * 13) % 900) + Decimal("0.25") for k in range(lines)]
        subtotal = sum(net, Decimal(0))
        tax = (subtotal * Decimal("0.2")).quantize(Decimal("0.01"))
        rows["invoices"].append({
            "document": d, "invoice_number": f"INV-{d:07d}",
            "archetype": ARCHETYPES[d % 4], "locale": LOCALES[(d // 4) % 4],
            "condition": "scan" if d % 5 == 0 else "clean", "format": "pdf",
            "file": f"{d:06d}.pdf", "currency": "EUR",
            "issue_date": dt.date(2024, 1, 1) + dt.timedelta(days=d % 365),
            "due_date": dt.date(2024, 2, 1) + dt.timedelta(days=d % 365),
            "po_number": None, "seller_name": f"Seller {d % 97}",
            "seller_address": "1 rue de la Paix\n75002 Paris", "seller_tax_id": "FR00",
            "seller_phone": "01 23 45 67 89", "seller_email": "billing@example.fr",
            "seller_iban": "FR76 3000 6000 0112 3456 7890 189", "seller_bic": "AGRIFRPP",
            "seller_account": None, "buyer_name": f"Buyer {d % 89}",
            "buyer_address": "2 avenue Foch\n75116 Paris", "buyer_tax_id": None,
            "product_line": "saas", "document_type": "invoice",
            "line_count": lines, "subtotal": subtotal,
            "discount_total": Decimal(0), "tax_total": tax, "total": subtotal + tax,
            "taxes": [{"rate": Decimal(20), "base": subtotal, "amount": tax}],
            "page_count": 1, "page_width": 595.92, "page_height": 841.92,
            "split": ("train", "train", "train", "validation", "test")[d % 5],
        })
        for k, amount in enumerate(net, start=1):
            rows["line_items"].append({
                "document": d, "line": k, "page": 1, "sku": f"SKU-{k:03d}",
                "description": f"Service {k}", "pricing": "flat", "quantity": Decimal(1),
                "unit": "pce", "unit_price": amount, "discount_percent": Decimal(0),
                "discount_amount": Decimal(0), "net_amount": amount, "tax_rate": Decimal(20),
            })
        y = 40.0
        printed = [(f, None) for f in HEADER] + [
            (f, k) for k in range(1, lines + 1) for f in PER_LINE]
        for name, line in printed:
            rows["fields"].append({
                "document": d, "field": name, "line": line, "occurrence": 0,
                "text": f"{name} {d}", "value": f"{name}-{d}", "page": 1,
                "x0": 40.0, "y0": y, "x1": 200.0, "y1": y + 9.0})
            y = 40.0 + (y + 11.0) % 760
        for w in range(WORDS_PER_DOC):
            top = 40.0 + (w // 6) * 11.0
            rows["words"].append({
                "document": d, "page": 1, "word": w, "text": f"w{w}",
                "x0": 40.0 + (w % 6) * 80, "y0": top, "x1": 100.0 + (w % 6) * 80,
                "y1": top + 9.0, "field": None, "line": None, "occurrence": None,
                "text_line": w // 6, "label_id": None})
    return rows


def page_pdf(width: float = 595.92, height: float = 841.92) -> bytes:
    """A valid one-page PDF with 60 lines of Helvetica text (no fonts embedded)."""
    lines = "".join(f"BT /F1 10 Tf 40 {height - 40 - 12 * k:.2f} Td (Line {k} of an invoice "
                    f"page, item {k * 7} 1 234,50 EUR) Tj ET\n" for k in range(60))
    stream = lines.encode()
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>",
               b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {width} {height}] "
               "/Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>".encode(),
               b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += (f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n"
            "%%EOF\n").encode()
    return bytes(out)


def synthesise(out: Path, run_id: str, documents: int, unit_size: int, lines: int,
               pdf: bytes | None = None) -> dict[str, int]:
    """Write a complete run (shards, parts, root; with ``pdf``, that file as every
    document) under ``out``; return its row counts."""
    files = RunFiles(FileBlobStore(out), run_id)
    parts = []
    for unit, start in enumerate(range(0, documents, unit_size)):
        count = min(unit_size, documents - start)
        part = Part(run_id, unit, start, count)
        if pdf is not None:
            for d in range(start, start + count):
                files.put(f"documents/{d:06d}.pdf", pdf)
                part.add_document(f"documents/{d:06d}.pdf", pdf)
        for table, rows in unit_rows(start, count, lines).items():
            data = shard_bytes(TABLES[table], rows)
            files.put(shard_key(table, unit), data)
            part.add_shard(table, shard_key(table, unit), data, len(rows))
        data = part.to_bytes()
        files.put(part_key(unit), data)
        parts.append((unit, data))
    # the invoice pack's tables: the layout exports find them through the pack
    params = {"synthetic": True, "documents": documents, "pack": "invoice",
              "options": {"format": "pdf"}}
    root = build_root(run_id, params, "bench", parts)
    files.put(ROOT_KEY, root)
    return json.loads(root)["rows"]


def rasterise_floor_ms(pdf: bytes, dpi: int, pages: int = 40) -> float:
    """CPU milliseconds to rasterise one page of ``pdf`` at ``dpi`` and encode it as the
    export does (:func:`docfleet.export.raster.rasterise`), measured in this process:
    the floor every layout export pays once a page."""
    from docfleet.export.raster import rasterise

    rasterise(pdf, dpi)  # warm: imports, first-call costs
    started = time.process_time()
    for _ in range(pages):
        rasterise(pdf, dpi)
    return 1000 * (time.process_time() - started) / pages


def marginal_costs(results: list[dict[str, Any]], floor_ms: float) -> dict[str, Any]:
    """Per layout task run at two sizes or more: the CPU of one added page (the slope
    between the smallest and the largest run: start-up, imports and the worker
    processes' own start cancel out), as a ratio to the rasterise floor."""
    out: dict[str, Any] = {}
    for task in dict.fromkeys(r["task"] for r in results if "ratio_to_floor" in r):
        runs = sorted((r for r in results if r["task"] == task), key=lambda r: r["pages"])
        if len(runs) < 2 or runs[-1]["pages"] == runs[0]["pages"]:
            continue
        ms = 1000 * (runs[-1]["cpu_seconds"] - runs[0]["cpu_seconds"]) / (
            runs[-1]["pages"] - runs[0]["pages"])
        out[task] = {"ms_per_page": round(ms, 1), "ratio_to_floor": round(ms / floor_ms, 2),
                     "ms_beyond_floor": round(ms - floor_ms, 1),
                     "pages": f"{runs[0]['pages']} to {runs[-1]['pages']} pages"}
    return out


def timed(args: list[str]) -> tuple[float, int, float]:
    """Run ``python -m docfleet ARGS`` in a fresh process: (wall seconds, peak RSS bytes,
    CPU seconds of it and its worker processes). CPU time is the steadier figure on a
    shared machine."""
    code = ("import resource, runpy, sys; sys.argv = ['docfleet', *sys.argv[1:]]\n"
            "try:\n    runpy.run_module('docfleet', run_name='__main__')\n"
            "finally:\n    u = resource.getrusage(resource.RUSAGE_SELF)\n"
            "    c = resource.getrusage(resource.RUSAGE_CHILDREN)  # the rasterising pool\n"
            "    print('MAXRSS', u.ru_maxrss, u.ru_utime + u.ru_stime + c.ru_utime + c.ru_stime,"
            " file=sys.stderr)")
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True,
                          text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"docfleet {' '.join(args)} failed:\n{done.stderr}")
    _, rss, cpu = next(line.split() for line in done.stderr.splitlines()
                       if line.startswith("MAXRSS"))
    return seconds, int(rss) * 1024, float(cpu)


def baseline() -> tuple[float, int, float]:
    """Peak RSS of a docfleet process that only prints its help (imports, no work)."""
    return timed(["export", "--help"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2000,10500",
                        help="documents per synthesised run, comma-separated")
    parser.add_argument("--lines", type=int, default=10, help="line items per document")
    parser.add_argument("--unit-size", type=int, default=100)
    parser.add_argument("--dir", type=Path, default=None, help="work directory [temp]")
    parser.add_argument("--hf-sizes", default="100,400",
                        help="documents (one page each) per hf:// run; empty to skip")
    parser.add_argument("--hf-dpi", type=int, default=100)
    parser.add_argument("--json", default="export.json", help="result file in bench/results/")
    args = parser.parse_args()
    console = Console(width=140)
    work = Path(args.dir or tempfile.mkdtemp(prefix="docfleet-bench-export-"))
    results: list[dict[str, Any]] = []
    idle_wall, idle, idle_cpu = baseline()
    for size in (int(s) for s in args.sizes.split(",") if int(s) > 0):
        run_id = f"bench-export-{size}"
        out = work / f"out-{size}"
        started = time.perf_counter()
        rows = synthesise(out, run_id, size, args.unit_size, args.lines)
        console.print(f"synthesised {run_id}: {rows} in {time.perf_counter() - started:.1f}s")
        total_rows = sum(rows.values())
        # scoring input: the golden header fields as predictions
        preds = work / f"preds-{size}.jsonl"
        with preds.open("w") as fh:
            for d in range(size):
                for name in ("invoice_number", "seller_name", "buyer_name"):
                    fh.write(json.dumps({"document": d, "field": name,
                                         "value": f"{name}-{d}"}) + "\n")
        for sink, target in (("parquet", f"parquet://{work / f'pq-{size}'}"),
                             ("duckdb", f"duckdb:///{work / f'db-{size}.duckdb'}")):
            seconds, rss, cpu = timed(["export", run_id, "--out", f"file://{out}",
                                       "--to", target])
            results.append({"task": f"export {sink}", "documents": size,
                            "units": -(-size // args.unit_size), "rows": total_rows,
                            "line_items": rows["line_items"], "seconds": round(seconds, 3),
                            "cpu_seconds": round(cpu, 3),
                            "rows_per_s": round(total_rows / seconds),
                            "rows_per_cpu_s": round(total_rows / max(cpu - idle_cpu, 1e-3)),
                            "peak_rss_mb": round(rss / 2**20, 1)})
        seconds, rss, cpu = timed(["score", run_id, "--out", f"file://{out}", "--predictions",
                                 str(preds), "--json", str(work / f"score-{size}.json")])
        results.append({"task": "score", "documents": size,
                        "units": -(-size // args.unit_size), "rows": rows["fields"],
                        "line_items": rows["line_items"], "seconds": round(seconds, 3),
                        "cpu_seconds": round(cpu, 3),
                        "rows_per_s": round(rows["fields"] / seconds),
                        "rows_per_cpu_s": round(rows["fields"] / max(cpu - idle_cpu, 1e-3)),
                        "peak_rss_mb": round(rss / 2**20, 1)})
    pdf = page_pdf()
    floor_ms = rasterise_floor_ms(pdf, args.hf_dpi)
    console.print(f"rasterise floor: {floor_ms:.1f} ms CPU a page at {args.hf_dpi} dpi")
    for size in (int(s) for s in args.hf_sizes.split(",") if s.strip()):
        run_id = f"bench-hf-{size}"
        out = work / f"out-hf-{size}"
        rows = synthesise(out, run_id, size, args.unit_size, args.lines, pdf)
        for name, targets in (("hf", ["hf"]), ("coco", ["coco"]), ("funsd", ["funsd"]),
                              ("coco+funsd+hf", ["coco", "funsd", "hf"])):
            to = [a for t in targets for a in ("--to", f"{t}://{work / f'{t}-{size}'}")]
            seconds, rss, cpu = timed(["export", run_id, "--out", f"file://{out}", *to,
                                       "--dpi", str(args.hf_dpi)])
            per_page = 1000 * max(cpu - idle_cpu, 1e-3) / size
            results.append({"task": f"export {name} ({args.hf_dpi} dpi)", "documents": size,
                            "units": -(-size // args.unit_size), "rows": size,
                            "line_items": rows["line_items"], "seconds": round(seconds, 3),
                            "cpu_seconds": round(cpu, 3), "pages": size,
                            "rows_per_s": round(size / seconds, 1),
                            "rows_per_cpu_s": round(size / max(cpu - idle_cpu, 1e-3), 1),
                            "cpu_ms_per_page": round(per_page, 1),
                            "floor_ms_per_page": round(floor_ms, 1),
                            "ratio_to_floor": round(per_page / floor_ms, 2),
                            "ms_beyond_floor": round(per_page - floor_ms, 1),
                            "peak_rss_mb": round(rss / 2**20, 1)})
    table = Table(title=f"docfleet export ({os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; "
                        f"an idle process: {idle / 2**20:.0f} MB RSS, {idle_cpu:.2f} CPU s)")
    for col in ("task", "docs", "units", "rows", "line items", "wall s", "CPU s", "rows/s",
                "rows/CPU s", "peak RSS MB"):
        table.add_column(col, justify="left" if col == "task" else "right")
    for r in results:
        table.add_row(r["task"], f"{r['documents']:,}", str(r["units"]), f"{r['rows']:,}",
                      f"{r['line_items']:,}", f"{r['seconds']:.2f}", f"{r['cpu_seconds']:.2f}",
                      f"{r['rows_per_s']:,}", f"{r['rows_per_cpu_s']:,}",
                      f"{r['peak_rss_mb']:.0f}")
    console.print(table)
    console.print("hf rows are pages: rows/s = pages/s")
    for r in results:
        if "ratio_to_floor" in r:
            console.print(f"{r['task']}, {r['pages']} pages: {r['cpu_ms_per_page']} ms CPU a "
                          f"page = {r['ratio_to_floor']}x the rasterise floor "
                          f"({r['ms_beyond_floor']:+} ms beyond it, start-up included)")
    marginal = marginal_costs(results, floor_ms)
    for task, m in marginal.items():
        console.print(f"{task}: {m['ms_per_page']} ms CPU per added page = "
                      f"{m['ratio_to_floor']}x the floor ({m['ms_beyond_floor']:+} ms beyond it; "
                      f"{m['pages']})")
    RESULTS.mkdir(exist_ok=True)
    report = {"benchmark": "export", "synthetic_shards": True, "cpu_count": os.cpu_count(),
              "hf_dpi": args.hf_dpi,
              "lines_per_document": args.lines, "unit_size": args.unit_size,
              "baseline_rss_mb": round(idle / 2**20, 1), "baseline_cpu_s": round(idle_cpu, 3),
              "baseline_wall_s": round(idle_wall, 3), "load_average": os.getloadavg()[0],
              "results": results, "marginal": marginal,
              "self_peak_rss_mb": round(
                  resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}
    (RESULTS / args.json).write_text(json.dumps(report, indent=1) + "\n")
    console.print(f"wrote {RESULTS / args.json}")


if __name__ == "__main__":
    main()
