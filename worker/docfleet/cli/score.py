"""``docfleet score``: grade an extractor's predictions against a run's golden truth."""

from __future__ import annotations

from pathlib import Path

import click

from docfleet.cli.options import (
    friendly_errors,
    out_moved_option,
    out_option,
    run_output,
    state_option,
)


@click.command()
@click.argument("run_id")
@click.option("--predictions", required=True, type=click.Path(path_type=Path),
              help="JSONL or CSV of document, field, value [, line] [, page, x0, y0, x1, y1].")
@out_option
@out_moved_option
@state_option
@click.option("--exact", is_flag=True,
              help="Compare values to the canonical golden value byte for byte.")
@click.option("--iou", "iou_threshold", type=click.FloatRange(0, 1), default=0.5,
              show_default=True, help="IoU at which a predicted box counts as localised.")
@click.option("--output", "outputs", multiple=True, type=click.Path(path_type=Path),
              help="Write the full report to this file (repeatable): a self-contained HTML "
              "page with bar charts for .html/.htm, else JSON ('-': JSON on stdout).")
@click.option("--json", "json_path", type=click.Path(path_type=Path), hidden=True,
              help="Deprecated spelling of --output FILE.json.")
@click.option("--html", "html_path", type=click.Path(path_type=Path), hidden=True,
              help="Deprecated spelling of --output FILE.html.")
@click.option("--partial", is_flag=True,
              help="Score against the DONE units of a run that is not complete.")
@friendly_errors
def score(run_id: str, predictions: Path, out: str | None, out_moved: bool | None,
          state: str | None, exact: bool, iou_threshold: float, outputs: tuple[Path, ...],
          json_path: Path | None, html_path: Path | None, partial: bool) -> None:
    """Score predictions against a run: precision, recall and F1 per field and overall,
    by archetype, locale and condition (and IoU localisation when boxes are given).

    --out is the run's output URI (as for every command), --output a report file. The
    old spellings (--json FILE, --html FILE) still work, with a note.

    Example: docfleet score demo --predictions preds.jsonl --output score.html
    """
    import json

    from docfleet.core.settings import load_settings  # lazy: start-up
    from docfleet.export import RunReader  # lazy: start-up
    from docfleet.scoring import score_run  # lazy: start-up
    from docfleet.scoring.report import html_report, print_report  # lazy: start-up

    json_paths = [p for p in outputs if not _is_html(p)]
    html_paths = [p for p in outputs if _is_html(p)]
    for flag, old_path, into in (("--json", json_path, json_paths),
                                 ("--html", html_path, html_paths)):
        if old_path is not None:
            click.echo(f"note: 'score {flag} FILE' is deprecated; use --output FILE", err=True)
            into.append(old_path)
    settings = load_settings(out=out, state=state, out_moved=out_moved)
    reader = RunReader(run_output(run_id, settings), run_id, partial=partial,
                       state_uri=settings.state)
    if reader.note:
        click.echo(f"note: {reader.note}", err=True)
    report = score_run(reader, predictions, exact=exact, iou_threshold=iou_threshold)
    unknown = report.get("unknown_fields") or {}
    if unknown:
        names = ", ".join(f"{name} ({n})" for name, n in unknown.items())
        click.echo(f"warning: {sum(unknown.values())} prediction(s) name fields run "
                   f"{run_id} does not have, not scored: {names}; its fields are: "
                   f"{', '.join(report['known_fields'])}", err=True)
    text = json.dumps(report, indent=1, sort_keys=True)
    if any(str(p) == "-" for p in json_paths):
        click.echo(text)
    else:
        print_report(report)
    for path in json_paths:
        if str(path) != "-":
            path.write_text(text + "\n")
    for path in html_paths:
        path.write_text(html_report(report))


def _is_html(path: Path) -> bool:
    return path.suffix.lower() in (".html", ".htm")
