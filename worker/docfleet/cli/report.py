"""``docfleet report``: a self-contained HTML page about one run (issue 6)."""

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
@click.option("--output", "output", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="HTML file to write [default: report-RUN_ID.html].")
@out_option
@state_option
@click.option("--out-uri", hidden=True, help="Deprecated spelling of --out.")
@out_moved_option
@friendly_errors
def report(run_id: str, output: Path | None, out: str | None, state: str | None,
           out_uri: str | None, out_moved: bool | None) -> None:
    """Write an HTML report of a run: progress, a per-task timeline of units, throughput
    over time, failures with their errors, spend. The page loads nothing from the
    network; it works while the run is live (RUNNING units end at 'now').

    --out is the run's output URI (as for every command), --output the HTML file. The
    old spellings (--out FILE without '://', --out-uri URI) still work, with a note.

    Example: docfleet report demo --output demo.html
    """
    if out is not None and "://" not in out and output is None:
        click.echo("note: 'report --out FILE' is deprecated; use --output FILE (--out is "
                   "the output URI)", err=True)
        output, out = Path(out), None
    if out_uri is not None:
        click.echo("note: 'report --out-uri' is deprecated; use --out", err=True)
        out = out if out is not None else out_uri
    from docfleet.blob import open_blob_store  # lazy: start-up
    from docfleet.core import clock  # lazy: start-up
    from docfleet.core.settings import load_settings  # lazy: start-up
    from docfleet.dataset.manifest import RunFiles  # lazy: start-up
    from docfleet.ops.report import render_report, report_data  # lazy: start-up
    from docfleet.state import open_state_store  # lazy: start-up

    settings = load_settings(state=state, out=out, out_moved=out_moved)
    store = open_state_store(settings.state, create=False)
    files = RunFiles(open_blob_store(run_output(run_id, settings, store)),
                     run_id)
    data = report_data(store, run_id, files, clock.now())
    path = output or Path(f"report-{run_id}.html")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_report(data), encoding="utf-8")
    store.close()
    click.echo(f"report of run {run_id} ({data['progress']['DONE']}/{data['unit_total']} "
               f"units done): {path}")
