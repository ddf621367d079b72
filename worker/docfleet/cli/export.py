"""``docfleet export``: a run's golden tables into Parquet, DuckDB, COCO, FUNSD, DocILE or
a Hugging Face dataset; ``docfleet card``: the run's dataset card."""

from __future__ import annotations

from typing import Any

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
@click.option("--to", "to", required=True, multiple=True, metavar="URI",
              help="parquet://DIR | duckdb:///FILE.duckdb | coco://DIR | funsd://DIR | "
                   "docile://DIR | hf://DIR; repeat it to write several formats in one "
                   "pass (each page rasterised once)")
@out_option
@out_moved_option
@state_option
@click.option("--tables", help="Comma-separated golden tables to export [default: all].")
@click.option("--partial", is_flag=True,
              help="Export only the DONE units of a run that has no root manifest yet.")
@click.option("--dpi", type=int, default=150, show_default=True,
              help="Page image resolution for coco://, funsd:// and hf://.")
@click.option("--box", default="box", show_default=True,
              help="The box column the layout formats read (box: x0, y0, x1, y1).")
@click.option("--images/--no-images", default=True, show_default=True,
              help="Whether hf:// holds the page images (--no-images: words and boxes "
                   "only, no page rasterised for it).")
@click.option("--workers", type=click.IntRange(min=1),
              help="Processes that rasterise pages [default: one per core].")
@click.option("--push", "push", metavar="REPO",
              help="After an hf:// export, publish it to this Hub dataset repo "
                   "(HF_TOKEN, HF_ENDPOINT).")
@friendly_errors
def export(run_id: str, to: tuple[str, ...], out: str | None, out_moved: bool | None,
           state: str | None, tables: str | None, partial: bool, dpi: int, box: str,
           images: bool, workers: int | None, push: str | None) -> None:
    """Export a finished run's golden tables, verifying every shard's sha256 first.

    Re-running is idempotent (same tables, never duplicated rows). The run is read where
    it recorded its outputs (a --out other than that needs --out-moved). On a terminal a
    progress line follows the documents of the layout formats.

    Example: docfleet export demo --to duckdb:///demo.duckdb
    """
    import sys

    from docfleet.core.errors import ConfigError  # lazy: start-up
    from docfleet.core.settings import load_settings  # lazy: start-up
    from docfleet.export import (  # lazy: start-up
        RunReader,
        export_targets,
        sink_path,
    )

    schemes = [sink_path(t)[0] for t in to]  # a bad target fails before the run is read
    hf = [t for t, s in zip(to, schemes, strict=True) if s == "hf"]
    if push and len(hf) != 1:
        raise ConfigError("--push publishes an hf:// export, and this export has "
                          f"{len(hf)} hf:// target(s)", "give exactly one --to hf://DIR")
    settings = load_settings(out=out, state=state, out_moved=out_moved)
    reader = RunReader(run_output(run_id, settings), run_id, partial=partial,
                       state_uri=settings.state)
    if reader.note:
        click.echo(f"note: {reader.note}", err=True)
    wanted = [t.strip() for t in tables.split(",") if t.strip()] if tables else None
    with _progress(sys.stderr.isatty(), run_id) as progress:
        try:
            results = export_targets(reader, list(to), wanted, dpi, box=box, images=images,
                                     workers=workers, progress=progress)
        except OSError as exc:  # an unwritable target: one line, never a traceback
            where = f" ({exc.filename})" if exc.filename else ""
            raise ConfigError(f"cannot write the export to {', '.join(to)}: "
                              f"{exc.strerror or exc}{where}",
                              "give a target in an existing, writable place") from None
    for result in results:
        detail = ", ".join(f"{t} {n} rows" for t, n in result.rows.items())
        detail = detail or ", ".join(f"{k} {v}" for k, v in result.extra.items()
                                     if k != "card")
        click.echo(f"exported run {run_id} ({result.units} unit(s)"
                   f"{', partial' if result.partial else ''}) to {result.target}: {detail}")
    if push:
        from docfleet.export.hf import push as push_hf  # lazy: extra

        url = push_hf(sink_path(hf[0])[1], push)
        click.echo(f"pushed {hf[0]} to {push}: {url}")


def _progress(tty: bool, run_id: str) -> Any:
    """A context giving a ``progress(done, total)`` callback: a rich progress line on
    stderr when it is a terminal, else ``None``."""
    import contextlib

    if not tty:
        return contextlib.nullcontext(None)
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    @contextlib.contextmanager
    def line() -> Any:
        with Progress("[progress.description]{task.description}", BarColumn(),
                      MofNCompleteColumn(), TimeRemainingColumn(),
                      console=Console(stderr=True), transient=True) as bar:
            task = bar.add_task(f"exporting {run_id}: documents", total=None)

            def update(done: int, total: int) -> None:
                bar.update(task, completed=done, total=total or None)

            yield update

    return line()


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
