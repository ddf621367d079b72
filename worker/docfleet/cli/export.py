"""``docfleet export``: a run's golden tables into Parquet, DuckDB, COCO, FUNSD, DocILE or
a Hugging Face dataset; ``docfleet card``: the run's dataset card."""

from __future__ import annotations

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
@click.option("--to", "to", required=True, metavar="URI",
              help="parquet://DIR | duckdb:///FILE.duckdb | coco://DIR | funsd://DIR | "
                   "docile://DIR | hf://DIR")
@out_option
@out_moved_option
@state_option
@click.option("--tables", help="Comma-separated golden tables to export [default: all].")
@click.option("--partial", is_flag=True,
              help="Export only the DONE units of a run that has no root manifest yet.")
@click.option("--dpi", type=int, default=150, show_default=True,
              help="Page image resolution for coco://, funsd:// and hf://.")
@friendly_errors
def export(run_id: str, to: str, out: str | None, out_moved: bool | None, state: str | None,
           tables: str | None, partial: bool, dpi: int) -> None:
    """Export a finished run's golden tables, verifying every shard's sha256 first.

    Re-running is idempotent (same tables, never duplicated rows). The run is read where
    it recorded its outputs (a --out other than that needs --out-moved).

    Example: docfleet export demo --to duckdb:///demo.duckdb
    """
    from docfleet.core.errors import ConfigError  # lazy: start-up
    from docfleet.core.settings import load_settings  # lazy: start-up
    from docfleet.export import RunReader, export_run, sink_path  # lazy: start-up

    sink_path(to)  # a bad target fails before the run is read
    settings = load_settings(out=out, state=state, out_moved=out_moved)
    reader = RunReader(run_output(run_id, settings), run_id, partial=partial,
                       state_uri=settings.state)
    if reader.note:
        click.echo(f"note: {reader.note}", err=True)
    wanted = [t.strip() for t in tables.split(",") if t.strip()] if tables else None
    try:
        result = export_run(reader, to, wanted, dpi)
    except OSError as exc:  # an unwritable target: one line, never a traceback
        where = f" ({exc.filename})" if exc.filename else ""
        raise ConfigError(f"cannot write the export to {to}: {exc.strerror or exc}{where}",
                          "give a target in an existing, writable place") from None
    detail = ", ".join(f"{t} {n} rows" for t, n in result.rows.items())
    detail = detail or ", ".join(f"{k} {v}" for k, v in result.extra.items() if k != "card")
    click.echo(f"exported run {run_id} ({result.units} unit(s)"
               f"{', partial' if result.partial else ''}) to {result.target}: {detail}")


@click.command()
@click.argument("run_id")
@out_option
@out_moved_option
@state_option
@click.option("--output", "output", type=click.Path(dir_okay=False),
              help="Write the card to this file instead of printing it.")
@click.option("--partial", is_flag=True,
              help="Describe only the DONE units of a run that has no root manifest yet.")
@friendly_errors
def card(run_id: str, out: str | None, out_moved: bool | None, state: str | None,
         output: str | None, partial: bool) -> None:
    """Print (or --output) the dataset card of a run: what is in it, the schema of every
    table, the tokenisation rule, the splits, the generator environment, the licence.

    Example: docfleet card demo --output README.md
    """
    from pathlib import Path

    from docfleet.core.settings import load_settings  # lazy: start-up
    from docfleet.export import RunReader  # lazy: start-up
    from docfleet.export.card import build_card, write_card  # lazy: start-up

    settings = load_settings(out=out, state=state, out_moved=out_moved)
    reader = RunReader(run_output(run_id, settings), run_id, partial=partial,
                       state_uri=settings.state)
    if reader.note:
        click.echo(f"note: {reader.note}", err=True)
    if output:
        click.echo(f"wrote the dataset card of run {run_id} to "
                   f"{write_card(reader, Path(output))}")
    else:
        click.echo(build_card(reader), nl=False)
