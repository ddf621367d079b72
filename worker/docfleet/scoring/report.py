"""Rendering a score report: a terminal table (rich), and a self-contained HTML page
(inline CSS and SVG, no external resource) with one bar chart per field."""

from __future__ import annotations

import html
from typing import Any

from rich.console import Console
from rich.table import Table

from docfleet.scoring.core import DIMENSIONS


def _pct(x: float) -> str:
    return f"{x * 100:.1f}"


def _loc(m: dict[str, Any]) -> str:
    loc = m.get("localisation")
    return f"{_pct(loc['accuracy'])} ({loc['mean_iou']:.2f})" if loc else "-"


def print_report(report: dict[str, Any], console: Console | None = None) -> None:
    """Per-field table, then one table per breakdown dimension."""
    if console is None:
        console = Console()
        if not console.is_terminal:  # piped: wide enough for every column
            console = Console(width=130)
    boxes = report["overall"].get("localisation") is not None
    title = (f"run {report.get('run_id', '?')}: {report['documents']} documents scored, "
             f"{report.get('predictions', 0)} predictions, {report['mode']} matching")
    if report.get("scope"):
        console.print(f"Scored {report['scope']}.")
    table = Table(title=title)
    table.add_column("field", no_wrap=True)
    for col in ("support", "TP", "FP", "FN", "precision %", "recall %", "F1 %"):
        table.add_column(col, justify="right")
    if boxes:
        table.add_column(f"IoU≥{report['iou_threshold']} % (mean)", justify="right")

    def row(name: str, m: dict[str, Any], style: str | None = None) -> None:
        cells = [name, str(m["support"]), str(m["tp"]), str(m["fp"]), str(m["fn"]),
                 _pct(m["precision"]), _pct(m["recall"]), _pct(m["f1"])]
        if boxes:
            cells.append(_loc(m))
        table.add_row(*cells, style=style)

    for name, m in report["fields"].items():
        row(name, m)
    table.add_section()
    row("overall", report["overall"], "bold")
    console.print(table)
    for dim in DIMENSIONS:
        groups = report["breakdown"].get(dim, {})
        if not groups:
            continue
        t = Table(title=f"by {dim}")
        for col in (dim, "documents", "TP", "FP", "FN", "precision %", "recall %", "F1 %"):
            t.add_column(col, justify="left" if col == dim else "right")
        for value, entry in groups.items():
            m = entry["overall"]
            t.add_row(value, str(entry["documents"]), str(m["tp"]), str(m["fp"]),
                      str(m["fn"]), _pct(m["precision"]), _pct(m["recall"]), _pct(m["f1"]))
        console.print(t)
    worst = report.get("worst_documents") or []
    if worst:
        t = Table(title="worst documents (field: expected → predicted)")
        for col in ("document", "TP", "FP", "FN", "F1 %", "differences"):
            t.add_column(col, justify="left" if col in ("document", "differences")
                         else "right")
        for doc in worst:
            t.add_row(f"{doc['document']} {doc['file']}\n{doc['locale']} "
                      f"{doc['archetype']} {doc['condition']}", str(doc["tp"]),
                      str(doc["fp"]), str(doc["fn"]), _pct(doc["f1"]),
                      "\n".join(diff_line(d) for d in doc["diffs"][:MAX_DIFF_LINES]) + (
                          f"\n… {len(doc['diffs']) - MAX_DIFF_LINES} more (--json)"
                          if len(doc["diffs"]) > MAX_DIFF_LINES else ""))
        console.print(t)


MAX_DIFF_LINES = 8  # per document in the terminal; the JSON has every diff


def diff_line(diff: dict[str, Any]) -> str:
    """``total: '1234.50' → '1234.51'`` (``line 2 sku: …`` for a row field; ``(missing)``
    or ``(not printed)`` for a side that is absent)."""
    where = f"line {diff['line']} " if diff["line"] is not None else ""
    expected = "(not printed)" if diff["expected"] is None else repr(diff["expected"])
    predicted = "(missing)" if diff["predicted"] is None else repr(diff["predicted"])
    return f"{where}{diff['field']}: {expected} → {predicted}"


COLORS = {"precision": "#4e79a7", "recall": "#f28e2b", "f1": "#59a14f"}


def _bars(groups: list[tuple[str, dict[str, Any]]], width: int = 560) -> str:
    """A horizontal grouped bar chart (precision, recall, F1 per group) as inline SVG."""
    label_w, bar_h, gap = 150, 9, 8
    plot_w = width - label_w - 50
    height = len(groups) * (3 * bar_h + gap) + 30
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'role="img" font-family="sans-serif" font-size="11">']
    y = 5
    for label, m in groups:
        out.append(f'<text x="{label_w - 6}" y="{y + 1.5 * bar_h + 4}" '
                   f'text-anchor="end">{html.escape(label)}</text>')
        for metric, color in COLORS.items():
            w = m[metric] * plot_w
            out.append(f'<rect x="{label_w}" y="{y}" width="{w:.1f}" height="{bar_h - 1}" '
                       f'fill="{color}"><title>{metric} {_pct(m[metric])}%</title></rect>')
            out.append(f'<text x="{label_w + w + 4:.1f}" y="{y + bar_h - 1}" font-size="9">'
                       f'{_pct(m[metric])}</text>')
            y += bar_h
        y += gap
    axis_y = y + 2
    out.append(f'<line x1="{label_w}" y1="{axis_y}" x2="{label_w + plot_w}" y2="{axis_y}" '
               'stroke="#999"/>')
    for tick in (0, 50, 100):
        x = label_w + plot_w * tick / 100
        out.append(f'<text x="{x:.0f}" y="{axis_y + 13}" text-anchor="middle" '
                   f'font-size="9">{tick}%</text>')
    out.append("</svg>")
    return "".join(out)


def _metrics_table(rows: list[tuple[str, dict[str, Any]]]) -> str:
    head = ("<tr><th></th><th>support</th><th>TP</th><th>FP</th><th>FN</th>"
            "<th>precision</th><th>recall</th><th>F1</th><th>localisation</th></tr>")
    body = "".join(
        f"<tr><td>{html.escape(n)}</td><td>{m['support']}</td><td>{m['tp']}</td>"
        f"<td>{m['fp']}</td><td>{m['fn']}</td><td>{_pct(m['precision'])}</td>"
        f"<td>{_pct(m['recall'])}</td><td>{_pct(m['f1'])}</td><td>{_loc(m)}</td></tr>"
        for n, m in rows)
    return f"<table>{head}{body}</table>"


def html_report(report: dict[str, Any]) -> str:
    """The report as one self-contained HTML page."""
    legend = " ".join(f'<span style="color:{c}">■</span> {k}' for k, c in COLORS.items())
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'>",
        f"<title>docfleet score: {html.escape(str(report.get('run_id', '')))}</title>",
        "<style>body{font-family:sans-serif;margin:2em;max-width:1100px}"
        "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;"
        "padding:2px 8px;text-align:right}td:first-child{text-align:left}"
        "section{display:inline-block;vertical-align:top;margin:0 1.5em 1.5em 0}"
        "h3{margin:.2em 0}</style></head><body>",
        f"<h1>Score of run {html.escape(str(report.get('run_id', '')))}</h1>",
        f"<p>{report['documents']} documents scored, {report.get('predictions', 0)} "
        f"predictions, {report['mode']} matching. {legend}</p>",
        f"<p>Scored {html.escape(str(report.get('scope', '')))}.</p>",
        "<h2>Overall and per field</h2>",
        _bars([("overall", report["overall"]), *report["fields"].items()], 700),
        _metrics_table([("overall", report["overall"]), *report["fields"].items()]),
    ]
    for dim in DIMENSIONS:
        groups = report["breakdown"].get(dim, {})
        if groups:
            parts.append(f"<h2>By {dim}</h2>")
            parts.append(_bars([(v, e["overall"]) for v, e in groups.items()]))
    worst = report.get("worst_documents") or []
    if worst:
        parts.append("<h2>Worst documents</h2><table><tr><th>document</th><th>TP</th>"
                     "<th>FP</th><th>FN</th><th>F1</th><th>differences</th></tr>")
        parts += [f"<tr><td>{d['document']} {html.escape(d['file'])}</td><td>{d['tp']}</td>"
                  f"<td>{d['fp']}</td><td>{d['fn']}</td><td>{_pct(d['f1'])}</td>"
                  f"<td style='text-align:left'>"
                  f"{'<br>'.join(html.escape(diff_line(x)) for x in d['diffs'])}</td></tr>"
                  for d in worst]
        parts.append("</table>")
    parts.append("<h2>Each field by archetype, locale and condition</h2>")
    for name, m in report["fields"].items():
        groups = [("all", m)]
        for dim in DIMENSIONS:
            for value, entry in report["breakdown"].get(dim, {}).items():
                if name in entry["fields"]:
                    groups.append((f"{dim}={value}", entry["fields"][name]))
        parts.append(f"<section><h3>{html.escape(name)}</h3>{_bars(groups, 460)}</section>")
    parts.append("</body></html>\n")
    return "".join(parts)
