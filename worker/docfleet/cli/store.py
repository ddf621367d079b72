"""``docfleet store init URI…``: make a state or output store ready (see
:mod:`docfleet.ops.storeinit`)."""

from __future__ import annotations

import sys

import click

from docfleet.cli.options import friendly_errors


@click.group()
def store() -> None:
    """Prepare state and output stores."""


@store.command("init")
@click.argument("uris", nargs=-1, required=True, metavar="URI...")
@friendly_errors
def init(uris: tuple[str, ...]) -> None:
    """Create what each store needs where that is legal (SQLite file, directory,
    DynamoDB table, buckets on emulators) and check the rest (real buckets, the
    Firestore database and its indexes); exit 1 if anything is missing.

    Example: docfleet store init "dynamodb://docfleet?region=us-east-1&endpoint=http://127.0.0.1:5000"
    """
    from docfleet.ops.storeinit import report  # lazy: start-up

    lines, ok = report(list(uris))
    for line in lines:
        click.echo(line)
    sys.exit(0 if ok else 1)
