"""``docfleet export``: a run's golden tables into Parquet, DuckDB, COCO or FUNSD."""

from __future__ import annotations

import click

from docfleet.cli import friendly_errors, out_option, state_option


@click.command()
@click.argument("run_id")
@click.option("--to", "to", required=True, metavar="URI",
              help="parquet://DIR | duckdb:///FILE.duckdb | coco://DIR | funsd://DIR")
@out_option
@state_option
@click.option("--tables", help="Comma-separated golden tables to export [default: all].")
@click.option("--partial", is_flag=True,
              help="Export only the DONE units of a run that has no root manifest yet.")
@click.option("--dpi", type=int, default=150, show_default=True,
              help="Page image resolution for coco:// and funsd://.")
@friendly_errors
def export(run_id: str, to: str, out: str | None, state: str | None, tables: str | None,
           partial: bool, dpi: int) -> None:
    """Export a finished run's golden tables, verifying every shard's sha256 first.

    Re-running is idempotent (same tables, never duplicated rows).

    Example: docfleet export demo --to duckdb:///demo.duckdb
    """
    from docfleet.export import RunReader, export_run, sink_path
    from docfleet.settings import load_settings

    sink_path(to)  # a bad target fails before the run is read
    settings = load_settings(out=out, state=state)
    reader = RunReader(settings.out, run_id, partial=partial, state_uri=settings.state)
    if reader.note:
        click.echo(f"note: {reader.note}", err=True)
    wanted = [t.strip() for t in tables.split(",") if t.strip()] if tables else None
    result = export_run(reader, to, wanted, dpi)
    detail = ", ".join(f"{t} {n} rows" for t, n in result.rows.items())
    detail = detail or ", ".join(f"{k} {v}" for k, v in result.extra.items())
    click.echo(f"exported run {run_id} ({result.units} unit(s)"
               f"{', partial' if result.partial else ''}) to {result.target}: {detail}")
