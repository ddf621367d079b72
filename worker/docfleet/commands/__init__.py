"""Commands that live in their own modules (one per feature), added to the ``docfleet``
group by :func:`docfleet.cli.main`. A module here must import heavy dependencies inside
its command function, never at import time, so ``docfleet --help`` stays fast."""

from __future__ import annotations

import importlib

import click

#: ``module:attribute`` of each extra command.
COMMANDS: list[str] = []
COMMANDS += ["catalogue:catalogue"]  # issue 5: LLM catalogue build
COMMANDS += ["export:export", "score:score"]  # issue 8: export and scoring
COMMANDS += ["launch:launch"]  # issue 7: start a Cloud Run execution
COMMANDS += ["report:report"]  # issue 6: run report (HTML)
COMMANDS += ["runs:list_runs", "runs:delete"]  # issue 17: list and delete runs
COMMANDS += ["store:store"]  # issue 17: docfleet store init


def add_commands(group: click.Group) -> None:
    for ref in COMMANDS:
        module, _, attr = ref.partition(":")
        group.add_command(getattr(importlib.import_module(f"docfleet.commands.{module}"), attr))
