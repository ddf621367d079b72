"""``docfleet preview``: one document page with its golden boxes drawn, as a PNG."""

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
@click.argument("index", type=int)
@click.option("--output", type=click.Path(dir_okay=False, path_type=Path),
              help="PNG file to write [default: preview-RUN_ID-INDEX-pPAGE.png].")
@click.option("--page", type=int, default=1, show_default=True, help="1-based page.")
@click.option("--boxes", type=click.Choice(["box", "ink_box"]), default="box",
              show_default=True,
              help="Typographic boxes, or the ink-tight boxes of a run that has them.")
@click.option("--dpi", type=int, default=100, show_default=True, help="Page resolution.")
@out_option
@out_moved_option
@state_option
@click.option("--partial", is_flag=True,
              help="Read a run that has no root manifest yet (its DONE units).")
@friendly_errors
def preview(run_id: str, index: int, output: Path | None, page: int, boxes: str, dpi: int,
            out: str | None, out_moved: bool | None, state: str | None,
            partial: bool) -> None:
    """Draw document INDEX's page with its golden truth: field, word, key and heading
    boxes, key → value links and table cells, coloured by kind, with a legend. Boxes of a
    scanned, photographed or faxed page are drawn as their carried quads.

    Example: docfleet preview demo 42 --output doc42.png
    """
    from docfleet.core.errors import ConfigError  # lazy: start-up
    from docfleet.core.settings import load_settings  # lazy: start-up
    from docfleet.export.preview import preview_page  # lazy: extra

    settings = load_settings(out=out, state=state, out_moved=out_moved)
    reader = run_reader(run_id, settings, partial=partial)
    if reader.note:
        click.echo(f"note: {reader.note}", err=True)
    drawn = preview_page(reader, index, page, dpi, boxes)
    path = output or Path(f"preview-{run_id}-{index}-p{page}.png")
    try:
        drawn.save(path)
    except OSError as exc:
        raise ConfigError(f"cannot write the preview to {path}: {exc.strerror or exc}",
                          "give --output a file in an existing, writable folder") from None
    counts = ", ".join(f"{len(v)} {k}s" for k, v in drawn.shapes.items() if v)
    click.echo(f"document {index} page {page}/{drawn.pages} ({drawn.condition}) of run "
               f"{run_id}: {counts} -> {path}")
