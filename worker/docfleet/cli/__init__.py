"""The ``docfleet`` command line. Command and option names are a contract: deployment
manifests and other tools rely on them.

One module per command group (:data:`COMMANDS`); what they share (one-line errors, option
decorators, flags → settings) is :mod:`docfleet.cli.options`. A command's module is
imported only when that command runs or help lists it, so a task (``docfleet work``) loads
neither the launcher's nor the export's modules; a module imports its heavy dependencies
inside its command function, never at import time. Command modules import
:mod:`docfleet.cli.options`, never this package's ``__init__``: no import cycle.
"""

from __future__ import annotations

import atexit
import contextlib
import faulthandler
import importlib
import os
import sys
import threading
from typing import NoReturn

import click

from docfleet.render.driver_cache import use_driver_cache

#: command name → ``module:attribute`` under ``docfleet.cli``
COMMANDS: dict[str, str] = {
    "work": "work:work", "run": "work:run",  # one task; a local fleet
    "launch": "launch:launch",  # issue 7: start a Cloud Run execution
    "status": "runs:status", "list": "runs:list_runs", "delete": "runs:delete",
    "pause": "runs:pause", "cancel": "runs:cancel", "resume": "runs:resume",
    "verify": "runs:verify",
    "catalogue": "catalogue:catalogue",  # issue 5: LLM catalogue build
    "export": "export:export", "card": "export:card", "score": "score:score",  # issues 8, 15
    "report": "report:report",  # issue 6: run report (HTML)
    "preview": "preview:preview",  # issue 28: one page with its golden boxes drawn
    "store": "store:store",  # issue 17: docfleet store init
}


class LazyGroup(click.Group):
    """A group whose commands are imported from :data:`COMMANDS` on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is None and cmd_name in COMMANDS:
            module, _, attr = COMMANDS[cmd_name].partition(":")
            command = getattr(importlib.import_module(f"docfleet.cli.{module}"), attr)
            self.add_command(command, cmd_name)
        return command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="docfleet")
def main() -> None:
    """docfleet: synthetic document datasets with exact ground truth, built by a
    leaderless fleet of identical tasks sharing one state store."""


def entrypoint() -> None:
    """The ``docfleet`` program (console script and ``python -m docfleet``): :func:`main`
    in a process of its own. A task process (``docfleet work``) first keeps pyarrow
    from importing pandas, which it never uses
    (:func:`docfleet.dataset.shards.skip_pandas_probe`). Every command's browser driver
    keeps its compiled code on disk (:func:`docfleet.render.driver_cache.use_driver_cache`).

    A native crash prints every thread's Python stack (:mod:`faulthandler`), so it names
    its thread. A finished command ends through :func:`finish`: its own exit code, never
    the interpreter's native teardown."""
    faulthandler.enable()
    use_driver_cache()  # before any thread: it sets an environment variable
    if sys.argv[1:2] == ["work"]:
        from docfleet.dataset.shards import skip_pandas_probe  # lazy: start-up

        skip_pandas_probe()
    try:
        main()  # standalone: always ends in SystemExit
    except SystemExit as stop:
        finish(stop.code)


def finish(code: int | str | None) -> NoReturn:
    """End the process with ``code`` (``SystemExit`` semantics: ``None`` is 0, a string
    is printed and is 1) once everything Python owes the command is done: the other
    non-daemon threads joined as the interpreter joins them, ``atexit`` handlers run
    (telemetry flush, log handlers, temporary directories), stdout and stderr flushed —
    then ``os._exit``, skipping the interpreter's teardown of extension modules and the
    C++ static destructors after it. That teardown is where native libraries (Arrow's
    and DuckDB's thread pools, pdfium) have aborted a command that had already
    succeeded ("terminate called without an active exception", SIGABRT, exit 134): it
    has nothing left to write, so a finished command never depends on it. The exit
    code is the command's own."""
    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:
        print(code, file=sys.stderr)
        status = 1
    # what the interpreter does first on its way out: the threading atexit hooks (an
    # executor's idle workers are told to stop), then every non-daemon thread joined
    getattr(threading, "_shutdown", lambda: None)()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(status)
