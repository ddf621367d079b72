"""``docfleet score``: grade an extractor's predictions against a run's golden truth."""

from __future__ import annotations

from pathlib import Path

import click

from docfleet.cli.options import (
    friendly_errors,
    out_moved_option,
    out_option,
    run_reader,
    state_option,
)


@click.command()
@click.argument("run_id")
@click.option("--predictions", required=True, type=click.Path(path_type=Path),
              help="JSONL or CSV of document, field, value [, line] [, page, x0, y0, x1, y1].")
@out_option
@out_moved_option
@state_option
@click.option("--split", type=click.Choice(["train", "validation", "test"]),
              help="Score every document of this split (predicted or not).")
@click.option("--all", "every", is_flag=True,
              help="Score every document of the run (predicted or not).")
@click.option("--fields", help="Comma-separated golden fields to score [default: all].")
@click.option("--worst", type=click.IntRange(0, 1000), default=10, show_default=True,
              help="Worst documents to show with their field diffs.")
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
          state: str | None, split: str | None, every: bool, fields: str | None,
          worst: int, exact: bool, iou_threshold: float, outputs: tuple[Path, ...],
          json_path: Path | None, html_path: Path | None, partial: bool) -> None:
    """Score predictions against a run: precision, recall and F1 per field and overall,
    by archetype, locale and condition (and IoU localisation when boxes are given), and
    the worst documents with their field diffs.

    The documents scored are those the predictions name, unless --split or --all says
    otherwise; --fields restricts the fields. --out is the run's output URI (as for
    every command), --output a report file; the old spellings (--json FILE, --html FILE)
    still work, with a note.

    Example: docfleet score demo --predictions preds.jsonl --split test --output score.html
    """
    import json

    from docfleet.core.errors import ConfigError  # lazy: start-up
    from docfleet.core.settings import load_settings  # lazy: start-up
    from docfleet.scoring import score_run  # lazy: start-up
    from docfleet.scoring.report import html_report, print_report  # lazy: start-up

    if split is not None and every:
        raise ConfigError("--split and --all both choose the documents", "give one of them")
    json_paths = [p for p in outputs if not _is_html(p)]
    html_paths = [p for p in outputs if _is_html(p)]
    for flag, old_path, into in (("--json", json_path, json_paths),
                                 ("--html", html_path, html_paths)):
        if old_path is not None:
            use = "--output -" if str(old_path) == "-" else "--output FILE"
            click.echo(f"note: 'score {flag} {old_path}' is deprecated; use {use}", err=True)
            into.append(old_path)
    to_stdout = any(str(p) == "-" for p in json_paths)
    settings = load_settings(out=out, state=state, out_moved=out_moved)
    reader = run_reader(run_id, settings, partial=partial)
    if reader.note:
        click.echo(f"note: {reader.note}", err=True)
    wanted = [f.strip() for f in fields.split(",") if f.strip()] if fields is not None \
        else None
    report = score_run(reader, predictions, exact=exact, iou_threshold=iou_threshold,
                       split=split, fields=wanted, every=every, worst=worst)
    if to_stdout:  # else the text report says it
        click.echo(f"note: scored {report['scope']}", err=True)
    if report["outside_scope"] or report["outside_fields"]:
        click.echo(f"note: {report['outside_scope']} prediction(s) of documents outside "
                   f"that scope and {report['outside_fields']} of fields outside --fields "
                   "were not scored", err=True)
    unknown = report.get("unknown_fields") or {}
    if unknown:
        names = ", ".join(f"{name} ({n})" for name, n in unknown.items())
        click.echo(f"warning: {sum(unknown.values())} prediction(s) name fields run "
                   f"{run_id} does not have, not scored: {names}; its fields are: "
                   f"{', '.join(report['known_fields'])}", err=True)
    text = json.dumps(report, indent=1, sort_keys=True)
    if to_stdout:
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
