"""The ``docfleet`` command line. Command and option names are a contract: deployment
manifests and other tools rely on them."""

from __future__ import annotations

import functools
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
from rich.console import Console
from rich.table import Table
from rich.text import Text

from docfleet import clock, telemetry
from docfleet.blob import open_blob_store
from docfleet.errors import DocfleetError, RunNotFoundError
from docfleet.identity import task_identity
from docfleet.logs import bind, setup_logging
from docfleet.manifest import RunFiles, verify_run
from docfleet.models import Run, RunState, UnitState
from docfleet.settings import DEFAULT_OUT, DEFAULT_STATE, load_settings
from docfleet.state import StateStore, open_state_store

F = TypeVar("F", bound=Callable[..., Any])
TERMINAL_STATES = {RunState.COMPLETED, RunState.FAILED, RunState.CANCELLED}


def friendly_errors(fn: F) -> F:
    """Turn a :class:`DocfleetError` into one line on stderr and its exit code."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except DocfleetError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(exc.exit_code)

    return wrapper  # type: ignore[return-value]


def parse_options(values: tuple[str, ...]) -> dict[str, Any] | None:
    if not values:
        return None
    options: dict[str, Any] = {}
    for item in values:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"{item!r} is not KEY=VALUE", param_hint="--option")
        try:
            options[key] = json.loads(value)
        except ValueError:
            options[key] = value
    return options


def state_option(fn: F) -> F:
    return click.option("--state", help=f"State store URI [env DOCFLEET_STATE; default "
                        f"{DEFAULT_STATE}].")(fn)


def out_option(fn: F) -> F:
    return click.option("--out", help=f"Output URI [env DOCFLEET_OUT; default "
                        f"{DEFAULT_OUT}].")(fn)


def run_options(fn: F) -> F:
    """The options that define a run, shared by ``work`` and ``run``."""
    for decorator in reversed([
        click.option("--run-id", help="Run identifier [env DOCFLEET_RUN_ID]."),
        click.option("--total", type=int, help="Documents in the run [env DOCFLEET_TOTAL]."),
        click.option("--pack", help="Document pack [env DOCFLEET_PACK; default invoice]."),
        click.option("--unit-size", type=int,
                     help="Documents per work unit [env DOCFLEET_UNIT_SIZE; default: about "
                          "3 units per task]."),
        state_option,
        out_option,
        click.option("--lease-seconds", type=float,
                     help="Lease length [env DOCFLEET_LEASE_SECONDS; default 30]."),
        click.option("--max-attempts", type=int,
                     help="Attempts before a unit is FAILED [env DOCFLEET_MAX_ATTEMPTS; "
                          "default 3]."),
        click.option("--option", "options", multiple=True, metavar="KEY=VALUE",
                     help="A pack option (repeatable) [env DOCFLEET_OPTIONS as JSON]."),
        click.option("--trace", help="Span exporter: none|otlp|console|gcp|file:PATH [env "
                     "DOCFLEET_TRACE, else OTEL_TRACES_EXPORTER; default none]."),
    ]):
        fn = decorator(fn)
    return fn


def _settings(**flags: Any) -> Any:
    flags["options"] = parse_options(flags.pop("options", ()))
    return load_settings(**flags)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="docfleet")
def main() -> None:
    """docfleet: synthetic document datasets with exact ground truth, built by a
    leaderless fleet of identical tasks sharing one state store."""


def entrypoint() -> None:
    """The ``docfleet`` program (console script and ``python -m docfleet``): :func:`main`
    in a process of its own. A task process (``docfleet work``) first keeps pyarrow
    from importing pandas, which it never uses (:func:`docfleet.shards.skip_pandas_probe`)."""
    if sys.argv[1:2] == ["work"]:
        from docfleet.shards import skip_pandas_probe

        skip_pandas_probe()
    main()


@main.command()
@run_options
@friendly_errors
def work(**flags: Any) -> None:
    """Run one task: plan the run if first, drain its units, finalize when complete.

    This is the container's entrypoint; every option also comes from DOCFLEET_* env
    vars, and the task index/count from the engine (Cloud Run, Kubernetes, AWS Batch).

    Example: DOCFLEET_RUN_ID=r1 DOCFLEET_TOTAL=1000 docfleet work
    """
    from docfleet.packs import load_pack
    from docfleet.runspec import check_ready, resolve_spec
    from docfleet.worker import Worker

    settings = _settings(**flags)
    log = setup_logging(settings.log_format, settings.log_level)
    identity = task_identity()
    bind(run_id=settings.run_id, task_index=identity.index, task_count=identity.count,
         execution=identity.execution, attempt=identity.attempt)
    store = open_state_store(settings.state)
    blob = open_blob_store(settings.out)
    spec = resolve_spec(settings, store, identity.count, log)
    check_ready(spec, store)  # a setup error found here never plans the run
    worker = Worker(settings, spec, identity, store, blob, load_pack(spec.pack), log)
    worker.install_signal_handlers()
    log.info("task %d/%d (%s) starting on %s → %s", identity.index, identity.count,
             identity.engine, store.uri, blob.uri, extra={"event": "task.start"})
    code = telemetry.run_task(worker.run, settings.trace, identity, spec.run_id, store.uri,
                              blob.uri)
    store.close()
    sys.exit(code)


@main.command()
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
    progress bar; exits with the fleet's code (1 if units failed).

    Example: docfleet run --run-id demo --total 200 --tasks 2
    """
    from docfleet.fleet import run_fleet
    from docfleet.fleetview import failed_unit_lines, failed_unit_rows
    from docfleet.runspec import check_ready, resolve_spec

    settings = _settings(**flags)
    log = setup_logging("text", "WARNING")
    if dry_run:
        from docfleet.dryrun import dry_run_plan, plan_lines

        plan = dry_run_plan(settings, tasks)
        for line in plan_lines(plan):
            click.echo(line)
        return
    store = open_state_store(settings.state)
    blob = open_blob_store(settings.out)
    spec = resolve_spec(settings, store, tasks, log)
    existing = store.get_run(spec.run_id)
    if existing is not None:  # refuse other parameters here, not in every task's log
        from docfleet.state.base import check_fingerprint

        check_fingerprint(existing, spec)
    check_ready(spec, store)  # a setup error: said once, here, and nothing is planned
    console = Console(stderr=True)
    log_dir = log_dir or Path(".docfleet/logs") / spec.run_id
    started = time.monotonic()
    code = telemetry.run_root(
        "docfleet.fleet", lambda: run_fleet(settings, spec, store, tasks, log_dir, console),
        settings.trace, {"docfleet.run_id": spec.run_id, "docfleet.task.count": tasks})
    run_record = store.get_run(spec.run_id)
    units = store.units(spec.run_id)
    state = run_record.state.value if run_record else "not planned"
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
    sys.exit(code)


def _read_store(uri: str, run_id: str) -> StateStore:
    """Open a state store for a command that only reads or updates a run: a missing
    SQLite file is not created, and the error names the run."""
    try:
        return open_state_store(uri, create=False)
    except RunNotFoundError as exc:
        raise RunNotFoundError(f"run '{run_id}' does not exist: {exc.message}",
                               exc.hint) from None


def _open_run(store: StateStore, run_id: str) -> Run:
    run = store.get_run(run_id)
    if run is None:
        raise RunNotFoundError(f"run '{run_id}' does not exist in {store.uri}",
                               "check the run id and --state")
    return run


def _status(store: StateStore, run_id: str, out: str) -> dict[str, Any]:
    from docfleet.fleetview import failed_unit_rows

    run = _open_run(store, run_id)
    units = store.units(run_id)
    info = {
        "run_id": run_id,
        "state": run.state.value,
        "planned": run.planned,
        "total": run.spec.total,
        "unit_size": run.spec.unit_size,
        "units": store.progress(run_id).as_dict(),
        "documents_done": sum(u.count for u in units if u.state == UnitState.DONE),
        "failed_units": failed_unit_rows(units),
        "created_at": run.created_at,
        "updated_at": run.updated_at,
        "spend_nano_usd": store.total_spend(run_id),
    }
    if run.state == RunState.COMPLETED:  # COMPLETED only with a valid root of this run
        from docfleet.finalize import root_problems

        problems = root_problems(store, RunFiles(open_blob_store(out), run_id), run)
        if problems is None or problems:
            info["state"] = INCOMPLETE
            info["problem"] = (problems or [f"no root manifest at {out.rstrip('/')}/{run_id}/"
                                            "manifest.json"])[0]
    return info


#: ``status`` of a run the store calls COMPLETED whose root is missing or not its own.
INCOMPLETE = "INCOMPLETE"


def _explain_incomplete(run_id: str, info: dict[str, Any]) -> None:
    if "problem" in info:
        click.echo(f"run {run_id} is not complete: {info['problem']} (run 'docfleet "
                   f"resume {run_id}' to repair it)", err=True)


def _status_view(info: dict[str, Any]) -> Any:
    from rich.console import Group

    from docfleet.fleetview import failed_unit_lines

    table = Table(title=f"run {info['run_id']}: {info['state']}, "
                        f"{info['documents_done']}/{info['total']} documents")
    for s in UnitState:
        table.add_column(s.value, justify="right")
    table.add_row(*(str(info["units"][s.value]) for s in UnitState))
    lines = failed_unit_lines(info["failed_units"], info["run_id"])
    return Group(table, *(Text(line) for line in lines))


@main.command()
@click.argument("run_id")
@state_option
@out_option
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--wait", is_flag=True, help="Wait until the run is COMPLETED, FAILED or "
              "CANCELLED; exit 0 only if COMPLETED.")
@click.option("--watch", is_flag=True, help="Refresh the view every --interval seconds "
              "until the run is COMPLETED, FAILED or CANCELLED (exit as --wait).")
@click.option("--interval", type=click.FloatRange(min=0.1, max=3600), default=2.0,
              show_default=True, help="Seconds between polls with --wait/--watch.")
@friendly_errors
def status(run_id: str, state: str | None, out: str | None, as_json: bool, wait: bool,
           watch: bool, interval: float) -> None:
    """Show a run's state, its units by state and its failed units with their errors. A
    run is shown COMPLETED only when its root manifest (under --out) is there and is this
    run's; otherwise INCOMPLETE.

    Example: docfleet status demo --json
    """
    settings = load_settings(state=state, out=out)
    store = _read_store(settings.state, run_id)
    info = _status(store, run_id, settings.out)
    terminal = {s.value for s in TERMINAL_STATES} | {INCOMPLETE}
    if watch and not as_json:
        from rich.live import Live

        console = Console()
        if console.is_terminal:
            with Live(_status_view(info), console=console, auto_refresh=False) as live:
                while info["state"] not in terminal:
                    time.sleep(interval)
                    info = _status(store, run_id, settings.out)
                    live.update(_status_view(info), refresh=True)
        else:  # not a terminal: one plain line per change
            from docfleet.fleetview import failed_unit_lines

            last = ""
            while True:
                units = " ".join(f"{k}={v}" for k, v in info["units"].items())
                line = (f"run {run_id}: {info['state']}, {info['documents_done']}/"
                        f"{info['total']} documents; units {units}")
                if line != last:
                    click.echo(line)
                    last = line
                if info["state"] in terminal:
                    break
                time.sleep(interval)
                info = _status(store, run_id, settings.out)
            for text in failed_unit_lines(info["failed_units"], run_id):
                click.echo(text)
        _explain_incomplete(run_id, info)
        sys.exit(0 if info["state"] == RunState.COMPLETED.value else 1)
    while (wait or watch) and info["state"] not in terminal:
        time.sleep(interval)
        info = _status(store, run_id, settings.out)
    if as_json:
        click.echo(json.dumps(info, sort_keys=True))
    else:
        Console().print(_status_view(info))
        _explain_incomplete(run_id, info)
    if (wait or watch) and info["state"] != RunState.COMPLETED.value:
        sys.exit(1)


@main.command()
@click.argument("run_id")
@out_option
@click.option("--state", help="State store URI: also check the root is bound to the run "
              "this store holds (fingerprint, totals, every part's sha256).")
@friendly_errors
def verify(run_id: str, out: str | None, state: str | None) -> None:
    """Re-hash a run's root manifest, parts, documents and shards; exit 0 only if the
    root exists and everything matches (the checks finalize makes before writing it).

    Example: docfleet verify demo --out file://./out
    """
    settings = load_settings(out=out, state=state)
    files = RunFiles(open_blob_store(settings.out), run_id)
    binding = None
    if state is not None:
        from docfleet.finalize import binding_of

        store = _read_store(settings.state, run_id)
        run = _open_run(store, run_id)
        binding = binding_of(run, store.units(run_id))
    problems = verify_run(files, binding)
    for problem in problems:
        click.echo(f"MISMATCH {problem}", err=True)
    if problems:
        click.echo(f"verify {run_id}: {len(problems)} problem(s)", err=True)
        sys.exit(1)
    click.echo(f"verify {run_id}: ok")


def _set_state(run_id: str, state: str | None, target: RunState, allowed: list[RunState]) -> None:
    store = _read_store(load_settings(state=state).state, run_id)
    run = _open_run(store, run_id)
    if store.set_run_state(run_id, target, clock.now(), expected=allowed):
        click.echo(f"run {run_id}: {run.state.value} → {target.value}")
    else:
        click.echo(f"run {run_id} is {run.state.value}; nothing to do")


@main.command()
@click.argument("run_id")
@state_option
@friendly_errors
def pause(run_id: str, state: str | None) -> None:
    """Pause a run: workers stop claiming (their current unit finishes).

    Example: docfleet pause demo
    """
    _set_state(run_id, state, RunState.PAUSED, [RunState.PENDING, RunState.RUNNING])


@main.command()
@click.argument("run_id")
@state_option
@friendly_errors
def cancel(run_id: str, state: str | None) -> None:
    """Cancel a run: workers stop claiming; the run never completes.

    Example: docfleet cancel demo
    """
    _set_state(run_id, state, RunState.CANCELLED,
               [RunState.PENDING, RunState.RUNNING, RunState.PAUSED, RunState.FAILED])


@main.command()
@click.argument("run_id")
@state_option
@out_option
@friendly_errors
def resume(run_id: str, state: str | None, out: str | None) -> None:
    """Make a run workable again, COMPLETED runs included: expired leases reclaimed,
    failed units reset, outputs verified, a root that no longer matches removed and
    every damaged unit reopened; then start workers (they regenerate the same bytes).

    Example: docfleet resume demo && docfleet run --run-id demo --tasks 2
    """
    from docfleet.repair import repair_run

    settings = load_settings(state=state, out=out)
    store = _read_store(settings.state, run_id)
    report = repair_run(store, RunFiles(open_blob_store(settings.out), run_id))
    for line in report.damaged:
        click.echo(f"damaged {line}", err=True)
    if report.root_removed:
        click.echo(f"run {run_id}: removed the root manifest ({report.root_removed}); a "
                   "worker writes it again once every unit is intact")
    click.echo(f"run {run_id}: {report.reclaimed} expired lease(s) reclaimed, {report.reset} "
               f"failed unit(s) reset, {report.reopened} damaged unit(s) reopened; "
               f"{report.state_before} → {report.state_after}; start workers to finish it")


def _add_feature_commands() -> None:
    from docfleet.commands import add_commands

    add_commands(main)


_add_feature_commands()
