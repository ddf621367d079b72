"""``docfleet work`` (one task: the container's entrypoint) and ``docfleet run`` (a local
fleet of them). ``work`` is the task path: this module imports nothing a task does not
use (no rich, no export), and the task itself is :func:`docfleet.kernel.task.work`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from docfleet.cli.options import flag_settings, friendly_errors, run_options


@click.command()
@run_options
@friendly_errors
def work(**flags: Any) -> None:
    """Run one task: plan the run if first, drain its units, finalize when complete.

    This is the container's entrypoint; every option also comes from DOCFLEET_* env
    vars, and the task index/count from the engine (Cloud Run, Kubernetes, AWS Batch).

    Example: DOCFLEET_RUN_ID=r1 DOCFLEET_TOTAL=1000 docfleet work
    """
    from docfleet.kernel.task import work as work_task  # lazy: start-up

    sys.exit(work_task(flag_settings(**flags)))


@click.command()
@run_options
@click.option("--tasks", type=click.IntRange(min=1, max=256), default=2, show_default=True,
              help="Worker processes to start on this machine.")
@click.option("--log-dir", type=click.Path(path_type=Path), default=None,
              help="Where each task's JSON log goes [default .docfleet/logs/RUN_ID].")
@click.option("--dry-run", is_flag=True, help="Print the plan (units, documents, pages, "
              "bytes, CPU time) and exit; writes no state and no outputs.")
@friendly_errors
def run(tasks: int, log_dir: Path | None, dry_run: bool, **flags: Any) -> None:
    """Run a local fleet: TASKS `docfleet work` processes on this machine, with a live
    progress bar; exits with the fleet's code (1 if units failed or the run ended FAILED).

    Example: docfleet run --run-id demo --total 200 --tasks 2
    """
    import functools
    import time

    from rich.console import Console

    from docfleet import telemetry  # lazy: start-up
    from docfleet.blob import open_blob_store  # lazy: start-up
    from docfleet.core.models import RunState, UnitState  # lazy: start-up
    from docfleet.dataset.manifest import RunFiles  # lazy: start-up
    from docfleet.kernel.admission import admit_out  # lazy: start-up
    from docfleet.ops.fleet import prepare_fleet, run_fleet  # lazy: start-up
    from docfleet.ops.runstatus import failed_unit_lines, failed_unit_rows  # lazy: start-up
    from docfleet.state import open_state_store  # lazy: start-up
    from docfleet.telemetry.logs import setup_logging  # lazy: start-up

    settings = flag_settings(**flags)
    log = setup_logging("text", "WARNING")
    if dry_run:
        from docfleet.ops.dryrun import dry_run_plan, plan_lines  # lazy: start-up

        plan = dry_run_plan(settings, tasks)
        for line in plan_lines(plan):
            click.echo(line)
        return
    store = open_state_store(settings.state)
    settings = admit_out(settings, store)  # a stored run's recorded output URI
    blob = open_blob_store(settings.out)
    spec = prepare_fleet(settings, store, tasks, log)  # said once, here; nothing planned
    console = Console(stderr=True)
    log_dir = log_dir or Path(".docfleet/logs") / spec.run_id
    started = time.monotonic()
    code = telemetry.run_root(
        "docfleet.fleet", lambda: run_fleet(settings, spec, store, tasks, log_dir, console),
        settings.trace, {"docfleet.run_id": spec.run_id, "docfleet.task.count": tasks})
    run_record = store.get_run(spec.run_id)
    units = store.units(spec.run_id)
    from docfleet.kernel.exits import EXIT_GONE  # lazy: start-up, no pyarrow

    state = (run_record.state.value if run_record
             else "deleted" if code == EXIT_GONE else "not planned")
    done = [u for u in units if u.state == UnitState.DONE]
    failed = failed_unit_rows(units)
    say = functools.partial(console.print, markup=False, highlight=False, soft_wrap=True)
    say(f"run {spec.run_id}: {state}, {sum(u.count for u in done)}/{spec.total} docs, "
        f"{len(done)}/{len(units)} units, {len(failed)} failed, "
        f"{time.monotonic() - started:.1f}s")
    for line in failed_unit_lines(failed, spec.run_id):
        say(line)
    if run_record and run_record.state == RunState.COMPLETED:
        say(f"output: {RunFiles(blob, spec.run_id).uri('manifest.json')}")
    say(f"logs: {log_dir}")
    if code == 0 and run_record and run_record.state == RunState.FAILED:
        code = 1  # the run ended FAILED (a refused root): never a success
    sys.exit(code)
