"""``docfleet report``: one self-contained HTML page about a run, built from the state store
(units with ``worked_by``, ``claimed_at``, ``finished_at``, errors; the spend rollup) and
the manifest (root totals, parts present). No scripts, fonts or images are fetched: the
charts are inline SVG and the thumbnails PNG data URIs, so the file can be mailed or
attached to a CI job.

Sections: progress, a per-task timeline of units (Gantt: one row per task process, one
bar per unit from its latest claim to its end), throughput over time, failures with their
errors, spend by model, and for a complete run with pages, thumbnails of its first
documents with their golden boxes."""

from __future__ import annotations

import base64
import datetime as dt
import html
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from docfleet.core.errors import BlobNotFoundError, ManifestGapError
from docfleet.core.models import Unit, UnitState
from docfleet.dataset.manifest import ROOT_KEY, RunFiles, parse_json
from docfleet.ops.runstatus import documents_done, open_run
from docfleet.state.base import StateStore

#: Gantt geometry (px).
CHART_WIDTH, LABEL_WIDTH, ROW_HEIGHT, BAR_HEIGHT = 960, 170, 22, 14
THROUGHPUT_BUCKETS = 40  # at most
THUMBNAILS, THUMBNAIL_DPI = 4, 28  # documents drawn in a complete run's report
STATE_COLOURS = {"DONE": "#2e7d32", "RUNNING": "#1565c0", "FAILED": "#c62828",
                 "PENDING": "#9e9e9e"}


@dataclass
class TaskRow:
    """One task process (a lease owner) and the units it worked, as Gantt bars."""

    owner: str
    label: str
    sort_key: tuple[int, int, str]
    units: list[Unit] = field(default_factory=list)

    def summary(self, now: float) -> dict[str, Any]:
        """Units and documents done, busy seconds (sum of its bars) and busy share of
        the task's own span (first claim to last end)."""
        ends = [u.finished_at if u.finished_at is not None else now for u in self.units]
        starts = [u.claimed_at or now for u in self.units]
        busy = sum(e - s for s, e in zip(starts, ends, strict=True))
        window = max(ends) - min(starts) if self.units else 0.0
        done = [u for u in self.units if u.state == UnitState.DONE]
        return {"units": len(self.units), "done": len(done),
                "documents": sum(u.count for u in done), "busy": _duration(busy),
                "share": 100.0 * busy / window if window > 0 else 100.0}


def task_label(owner: str) -> tuple[str, tuple[int, int, str]]:
    """A readable label and a sort key for a lease owner
    ``{execution}/{index}/{attempt}/{pid}.{nonce}``."""
    parts = owner.rsplit("/", 3)
    if len(parts) == 4 and parts[1].isdigit() and parts[2].isdigit():
        _, index, attempt, proc = parts
        pid = proc.split(".")[0]
        label = f"task {index}" + (f" (attempt {attempt})" if attempt != "0" else "")
        return f"{label} · pid {pid}", (int(index), int(attempt), proc)
    return owner[-24:], (1 << 30, 0, owner)


def _usd(nano: int) -> str:
    return f"${nano / 1e9:,.4f}"


def _when(ts: float | None) -> str:
    if ts is None:
        return "—"
    return dt.datetime.fromtimestamp(ts, dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _duration(seconds: float) -> str:
    seconds = max(0.0, seconds)
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, sec = divmod(int(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {sec:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def _bytes(n: int) -> str:
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{n} B"


def gantt_svg(rows: list[TaskRow], t0: float, t1: float, now: float) -> str:
    """The per-task timeline: one row per task, one bar per unit it worked last."""
    span = max(t1 - t0, 1e-6)
    plot = CHART_WIDTH - LABEL_WIDTH - 10
    height = ROW_HEIGHT * len(rows) + 30
    out = [f'<svg class="gantt" width="{CHART_WIDTH}" '
           f'height="{height}" role="img" aria-label="per-task timeline of units">']
    for tick in range(6):
        x = LABEL_WIDTH + plot * tick / 5
        out.append(f'<line x1="{x:.1f}" y1="0" x2="{x:.1f}" y2="{height - 20}" '
                   'class="grid"/>')
        anchor = "start" if tick == 0 else "end" if tick == 5 else "middle"
        out.append(f'<text x="{x:.1f}" y="{height - 6}" class="tick" text-anchor="{anchor}">'
                   f'+{_duration(span * tick / 5)}</text>')
    for r, row in enumerate(rows):
        y = r * ROW_HEIGHT
        out.append(f'<text x="4" y="{y + ROW_HEIGHT - 7}" class="label">'
                   f'{html.escape(row.label)}<title>{html.escape(row.owner)}</title></text>')
        for unit in row.units:
            start = unit.claimed_at if unit.claimed_at is not None else t0
            end = unit.finished_at if unit.finished_at is not None else now
            x = LABEL_WIDTH + plot * (start - t0) / span
            w = max(plot * (end - start) / span, 2.0)
            state = unit.state.value
            tip = (f"unit {unit.index} (documents {unit.start}-{unit.stop - 1}) {state}, "
                   f"attempt {unit.attempts}, {_duration(end - start)}")
            if unit.last_error:
                tip += f": {unit.last_error}"
            out.append(
                f'<rect class="unit {state.lower()}" data-unit="{unit.index}" '
                f'data-state="{state}" x="{x:.1f}" y="{y + (ROW_HEIGHT - BAR_HEIGHT) / 2}" '
                f'width="{w:.1f}" height="{BAR_HEIGHT}" rx="2" '
                f'fill="{STATE_COLOURS[state]}"><title>{html.escape(tip)}</title></rect>')
    out.append("</svg>")
    return "".join(out)


def throughput_svg(units: list[Unit], t0: float, t1: float) -> str:
    """Documents completed per second in equal time buckets (bars) and in total (line)."""
    width, height, pad = CHART_WIDTH, 200, 40
    span = max(t1 - t0, 1e-6)
    done = sorted((u.finished_at, u.count) for u in units
                  if u.state == UnitState.DONE and u.finished_at is not None)
    buckets = max(5, min(THROUGHPUT_BUCKETS, len(done) // 2))  # ~2 units a bucket at least
    bucket = span / buckets
    counts = [0] * buckets
    for finished, count in done:
        counts[min(int((finished - t0) / bucket), buckets - 1)] += count
    rates = [c / bucket for c in counts]
    top = max(rates) or 1.0
    total = sum(counts) or 1
    plot_w, plot_h = width - 2 * pad, height - 2 * pad + 10
    out = [f'<svg class="throughput" width="{width}" '
           f'height="{height}" role="img" aria-label="throughput over time">']
    bar_w = plot_w / buckets
    for i, rate in enumerate(rates):
        h = plot_h * rate / top
        out.append(f'<rect x="{pad + i * bar_w + 1:.1f}" y="{pad - 10 + plot_h - h:.1f}" '
                   f'width="{bar_w - 2:.1f}" height="{h:.1f}" class="rate">'
                   f'<title>+{_duration(i * bucket)}: {rate:.1f} documents/s</title></rect>')
    points = [f"{pad:.1f},{pad - 10 + plot_h:.1f}"]
    cumulative = 0
    for finished, count in done:
        cumulative += count
        x = pad + plot_w * (finished - t0) / span
        points.append(f"{x:.1f},{pad - 10 + plot_h * (1 - cumulative / total):.1f}")
    out.append(f'<polyline points="{" ".join(points)}" class="cumulative"/>')
    out.append(f'<text x="{pad}" y="14" class="tick">peak {top:.1f} documents/s (bars); '
               f'cumulative documents (line, up to {sum(counts)})</text>')
    out.append(f'<text x="{pad}" y="{height - 6}" class="tick">+0 s</text>')
    out.append(f'<text x="{width - pad}" y="{height - 6}" class="tick" text-anchor="end">'
               f'+{_duration(span)}</text>')
    out.append("</svg>")
    return "".join(out)


def report_data(
    store: StateStore, run_id: str, files: RunFiles | None, now: float
) -> dict[str, Any]:
    """Everything the page shows, read once from the store and the manifest."""
    run = open_run(store, run_id)
    units = store.units(run_id)
    progress = store.progress(run_id)
    claimed = [u.claimed_at for u in units if u.claimed_at is not None]
    finished = [u.finished_at for u in units if u.finished_at is not None]
    t0 = min(claimed, default=run.created_at)
    running = any(u.state == UnitState.RUNNING for u in units)
    t1 = max([*finished, *claimed, now if running else t0 + 1e-3])
    rows: dict[str, TaskRow] = {}
    for unit in units:
        if unit.worked_by is None or unit.claimed_at is None:
            continue
        if unit.worked_by not in rows:
            label, key = task_label(unit.worked_by)
            rows[unit.worked_by] = TaskRow(unit.worked_by, label, key)
        rows[unit.worked_by].units.append(unit)
    task_rows = sorted(rows.values(), key=lambda r: r.sort_key)
    docs_done = documents_done(units)
    by_state: dict[str, int] = defaultdict(int)
    for unit in units:
        by_state[unit.state.value] += unit.count
    failures = [u for u in units if u.last_error and (u.state != UnitState.DONE)]
    retried = [u for u in units if u.state == UnitState.DONE and u.attempts > 1]
    manifest: dict[str, Any] = {"root": None, "parts": None, "uri": None, "problem": None,
                                "thumbnails": []}
    if files is not None:
        manifest["uri"] = files.uri(ROOT_KEY)
        try:
            manifest["root"] = parse_json(files.get(ROOT_KEY), files.uri(ROOT_KEY))
        except BlobNotFoundError:
            pass
        except ManifestGapError as exc:
            manifest["problem"] = exc.message
        manifest["parts"] = sum(1 for k in files.blob.list(files.key("manifest/"))
                                if k.endswith(".json"))
        if manifest["root"] is not None:
            manifest["thumbnails"] = thumbnails(files, run_id)
    elapsed = (max(finished) if finished and not running else now) - t0 if claimed else 0.0
    spend_total = store.total_spend(run_id)
    spend_models = sorted(store.spend_by_model(run_id).items(), key=lambda kv: -kv[1])
    budget = store.budget_state(run_id)
    return {
        "run": run, "spec": run.spec, "now": now, "generated": _when(now),
        "units": units, "unit_total": len(units), "progress": progress.as_dict(),
        "progress_pct": 100.0 * progress[UnitState.DONE] / max(len(units), 1),
        "docs_done": docs_done, "docs_by_state": dict(by_state),
        "tasks": task_rows, "t0": t0, "t1": t1, "started": _when(t0 if claimed else None),
        "elapsed": _duration(elapsed),
        "rate": docs_done / elapsed if elapsed > 0 else 0.0,
        "gantt": gantt_svg(task_rows, t0, t1, now),
        "throughput": throughput_svg(units, t0, t1),
        "failures": failures, "retried": retried, "manifest": manifest,
        "spend_total": _usd(spend_total), "spend_nano": spend_total,
        "spend_models": [(m, _usd(n), n) for m, n in spend_models],
        "reserved": (_usd(budget.reserved_nano), budget.reservations)
        if budget.reservations else None,
        "colours": STATE_COLOURS, "bytes": _bytes, "when": _when,
    }


def thumbnails(files: RunFiles, run_id: str, count: int = THUMBNAILS) -> list[dict[str, Any]]:
    """The first page of a complete run's first ``count`` PDF documents with their golden
    boxes drawn (:func:`docfleet.export.preview.thumbnails`), each as a PNG data URI; none
    for a run without pages or whose outputs cannot be read as they were recorded."""
    from docfleet.export.preview import thumbnails as draw  # lazy: extra (pdfium, pillow)
    from docfleet.export.reader import ExportError, RunReader  # lazy: extra

    try:
        drawn = draw(RunReader(files.blob, run_id), count, dpi=THUMBNAIL_DPI)
    except ExportError:  # a damaged run: the manifest section says what is wrong
        return []
    return [{"document": p.document, "condition": p.condition,
             "src": "data:image/png;base64," + base64.b64encode(p.png()).decode("ascii")}
            for p in drawn]


_TEMPLATE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>docfleet run {{ spec.run_id }}</title>
<style>
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 24px;
       color: #212121; max-width: 1000px; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 28px 0 8px; }
.muted { color: #616161; } .state { display: inline-block; padding: 1px 8px;
  border-radius: 10px; color: #fff; font-weight: 600; font-size: 12px; }
.state.COMPLETED { background: #2e7d32; } .state.RUNNING, .state.PENDING { background: #1565c0; }
.state.FAILED, .state.CANCELLED { background: #c62828; } .state.PAUSED { background: #ef6c00; }
.cards { display: flex; gap: 12px; flex-wrap: wrap; }
.card { border: 1px solid #e0e0e0; border-radius: 6px; padding: 8px 14px; min-width: 120px; }
.card b { display: block; font-size: 20px; }
.bar { display: flex; height: 18px; border-radius: 4px; overflow: hidden;
       background: #eeeeee; margin: 10px 0 4px; }
.bar span { display: block; height: 100%; }
table { border-collapse: collapse; width: 100%; }
td, th { border-bottom: 1px solid #eeeeee; padding: 4px 8px; text-align: left;
         vertical-align: top; }
th { font-weight: 600; background: #fafafa; } td.num, th.num { text-align: right; }
code, .err { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12px; }
.err { color: #b71c1c; white-space: pre-wrap; word-break: break-word; }
svg .grid { stroke: #eeeeee; } svg .tick, svg .label { font-size: 11px; fill: #616161; }
svg .label { fill: #212121; } svg .rate { fill: #90caf9; }
svg .cumulative { fill: none; stroke: #0d47a1; stroke-width: 2; }
.thumbs { display: flex; gap: 12px; flex-wrap: wrap; align-items: flex-start; }
.thumbs figure { margin: 0; border: 1px solid #e0e0e0; padding: 4px; }
.thumbs figcaption { font-size: 12px; color: #616161; }
.legend span { display: inline-block; width: 10px; height: 10px; margin: 0 4px 0 12px;
               border-radius: 2px; }
</style></head>
<body>
<h1>Run <code>{{ spec.run_id }}</code> <span class="state {{ run.state.value }}"
  id="run-state">{{ run.state.value }}</span></h1>
<div class="muted">pack <b>{{ spec.pack }}</b> · {{ spec.total }} documents in
{{ unit_total }} units of {{ spec.unit_size }} · max {{ spec.max_attempts }} attempts ·
created {{ when(run.created_at) }} · report generated {{ generated }}</div>

<h2>Progress</h2>
<div class="cards" id="progress">
  <div class="card"><b id="units-done">{{ progress.DONE }} / {{ unit_total }}</b>units done</div>
  <div class="card"><b>{{ docs_done }}</b>documents done</div>
  <div class="card"><b>{{ progress.RUNNING }}</b>running</div>
  <div class="card"><b>{{ progress.PENDING }}</b>pending</div>
  <div class="card"><b id="units-failed">{{ progress.FAILED }}</b>failed</div>
  <div class="card"><b>{{ tasks|length }}</b>task processes</div>
  <div class="card"><b>{{ elapsed }}</b>elapsed</div>
  <div class="card"><b>{{ "%.1f"|format(rate) }}</b>documents / s</div>
</div>
<div class="bar" title="{{ '%.1f'|format(progress_pct) }}% of units done">
{% for state in ["DONE", "RUNNING", "FAILED", "PENDING"] %}{% if progress[state] %}
<span style="width: {{ 100.0 * progress[state] / unit_total }}%; background:
{{ colours[state] }}" title="{{ state }}: {{ progress[state] }}"></span>{% endif %}{% endfor %}
</div>
<div class="legend muted">{% for state, colour in colours.items() %}<span
 style="background: {{ colour }}"></span>{{ state }} {{ progress[state] }}{% endfor %}</div>

<h2>Timeline by task</h2>
<div class="muted">One row per task process (lease owner), one bar per unit from its
latest claim to its end; hover a bar for the unit. Started {{ started }}.</div>
{% if tasks %}{{ gantt|safe }}
<table id="tasks"><tr><th>task</th><th class="num">units (latest claim)</th>
<th class="num">done</th><th class="num">documents</th><th class="num">busy</th>
<th class="num">busy share</th></tr>
{% for t in tasks %}{% set s = t.summary(now) %}<tr><td title="{{ t.owner }}">{{ t.label }}</td>
<td class="num">{{ s.units }}</td><td class="num">{{ s.done }}</td>
<td class="num">{{ s.documents }}</td><td class="num">{{ s.busy }}</td>
<td class="num">{{ "%.0f"|format(s.share) }}%</td></tr>{% endfor %}</table>
{% else %}<p class="muted">No unit has been claimed yet.</p>{% endif %}

<h2>Throughput</h2>
{{ throughput|safe }}

<h2>Failures</h2>
{% if failures or retried %}
<table id="failures"><tr><th class="num">unit</th><th>documents</th><th>state</th>
<th class="num">attempts</th><th>last error</th></tr>
{% for u in failures %}<tr data-unit="{{ u.index }}"><td class="num">{{ u.index }}</td>
<td>{{ u.start }}&ndash;{{ u.stop - 1 }}</td><td>{{ u.state.value }}</td>
<td class="num">{{ u.attempts }}</td><td class="err">{{ u.last_error }}</td></tr>{% endfor %}
{% for u in retried %}<tr data-unit="{{ u.index }}"><td class="num">{{ u.index }}</td>
<td>{{ u.start }}&ndash;{{ u.stop - 1 }}</td><td>DONE after retry</td>
<td class="num">{{ u.attempts }}</td><td class="err">{{ u.last_error or "" }}</td></tr>
{% endfor %}</table>
{% else %}<p id="failures" class="muted">No failures.</p>{% endif %}

<h2>Spend</h2>
<p>Total <b id="spend-total">{{ spend_total }}</b>
<span class="muted">(fleet rollup in the state store)</span>
{% if reserved %}; {{ reserved[0] }} held by {{ reserved[1] }} in-flight
reservation(s){% endif %}</p>
{% if spend_models %}<table><tr><th>model</th><th class="num">spend</th>
<th class="num">nano-USD</th></tr>{% for model, usd, nano in spend_models %}
<tr><td><code>{{ model }}</code></td><td class="num">{{ usd }}</td>
<td class="num">{{ nano }}</td></tr>{% endfor %}</table>{% endif %}

<h2>Manifest</h2>
{% if manifest.root %}
<p id="manifest">Complete: <code>{{ manifest.uri }}</code> lists {{ manifest.root.units }}
units, {{ manifest.root.files }} files, {{ bytes(manifest.root.bytes) }}.</p>
{% if manifest.root.rows %}<table><tr><th>golden table</th><th class="num">rows</th></tr>
{% for table, rows in manifest.root.rows.items() %}<tr><td><code>{{ table }}</code></td>
<td class="num">{{ rows }}</td></tr>{% endfor %}</table>{% endif %}
{% elif manifest.uri %}
<p id="manifest">No root manifest yet at <code>{{ manifest.uri }}</code>:
{{ manifest.parts }} of {{ unit_total }} unit parts written.
{% if manifest.problem %}<span class="err">{{ manifest.problem }}</span>{% endif %}</p>
{% else %}<p id="manifest" class="muted">Manifest not read (no --out).</p>{% endif %}
{% if manifest.thumbnails %}
<h2>Documents</h2>
<div class="muted">The first page of the first documents with their golden boxes drawn
(<code>docfleet preview RUN INDEX</code> draws any page larger).</div>
<div class="thumbs" id="thumbnails">{% for t in manifest.thumbnails %}<figure
 data-document="{{ t.document }}"><img alt="document {{ t.document }}" src="{{ t.src }}">
<figcaption>document {{ t.document }} · {{ t.condition }}</figcaption></figure>
{% endfor %}</div>
{% endif %}
</body></html>
"""


def render_report(data: dict[str, Any]) -> str:
    """The HTML page for :func:`report_data`'s result (autoescaped; no external URLs)."""
    from jinja2 import Environment

    env = Environment(autoescape=True, trim_blocks=True, lstrip_blocks=True)
    return env.from_string(_TEMPLATE).render(**data)
