"""``docfleet score``: grade an extractor's predictions against a run's golden truth."""

from __future__ import annotations

import click

from docfleet.cli import friendly_errors


@click.command()
@click.argument("run_id")
@friendly_errors
def score(run_id: str) -> None:
    """Score predictions against a run (being built)."""
    raise click.ClickException("not yet")
