"""The commands about stored runs: ``status``, ``list``, ``verify``, ``pause``,
``cancel``, ``resume`` and ``delete``. What they decide (is a run complete? how is it
repaired?) lives in :mod:`docfleet.ops.runstatus` and :mod:`docfleet.ops.repair`; here are the
flags and what is printed."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any, Literal

import click

from docfleet.cli.options import (
    friendly_errors,
    out_moved_option,
    out_option,
    run_output,
    state_option,
)
from docfleet.core.models import RunState


def _when(epoch: float | None) -> str:
    return time.strftime("%m-%d %H:%M", time.localtime(epoch)) if epoch else "-"


def run_rows(store: Any) -> list[dict[str, Any]]:
    """One row per run: id, pack, state, documents, units by state, created and
    completed times (epoch seconds; completed only for a COMPLETED run)."""

    rows = []
    for run in store.list_runs():
        units = store.progress(run.run_id).as_dict()
        rows.append({
            "run_id": run.run_id, "pack": run.spec.pack, "kind": run.spec.kind,
            "state": run.state.value, "total": run.spec.total,
            "unit_size": run.spec.unit_size, "units": units,
            "created_at": run.created_at,
            "completed_at": run.updated_at if run.state == RunState.COMPLETED else None,
        })
    return rows


@click.command("list")
@state_option
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output (a list).")
@friendly_errors
def list_runs(state: str | None, as_json: bool) -> None:
    """List the runs in a state store: state, documents, units by state, created and
    completed times.

    Example: docfleet list --state sqlite:///.docfleet/state.db
    """
    from rich import box
    from rich.console import Console
    from rich.table import Table

    from docfleet.core.settings import load_settings  # lazy: start-up
    from docfleet.state import open_state_store  # lazy: start-up

    store = open_state_store(load_settings(state=state).state, create=False)
    rows = run_rows(store)
    store.close()
    if as_json:
        click.echo(json.dumps(rows, sort_keys=True))
        return
    if not rows:
        click.echo(f"no runs in {store.uri}")
        return
    table = Table(title=f"runs in {store.uri}", box=box.SIMPLE, pad_edge=False,
                  caption="units: done/failed/all; times local; --json for epochs")
    columns: tuple[tuple[str, Literal["left", "right"]], ...] = (
        ("run", "left"), ("pack", "left"), ("state", "left"),
        ("docs", "right"), ("units", "right"),
        ("created", "left"), ("completed", "left"))
    for name, justify in columns:
        table.add_column(name, justify=justify)
    for r in rows:
        u = r["units"]
        table.add_row(r["run_id"], r["pack"], r["state"], str(r["total"]),
                      f"{u['DONE']}/{u['FAILED']}/{sum(u.values())}", _when(r["created_at"]),
                      _when(r["completed_at"]))
    Console().print(table)


@click.command()
@click.argument("run_id")
@state_option
@out_option
@out_moved_option
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@click.option("--force", is_flag=True, help="Delete a run that is still RUNNING or PENDING: "
              "its state first (its workers stop at their next write), then, a lease later, "
              "its outputs.")
@click.option("--lease-seconds", type=float, help="With --force: the fleet's lease, how long "
              "to wait for its workers to stop writing [env DOCFLEET_LEASE_SECONDS; "
              "default 30].")
@friendly_errors
def delete(run_id: str, state: str | None, out: str | None, out_moved: bool | None, yes: bool,
           force: bool, lease_seconds: float | None) -> None:
    """Delete a run: its outputs (documents, golden shards, manifests, and the folders
    they leave empty) and its state (run marker, units, spend). Refuses a run that is
    still running unless --force, and outputs whose root manifest is not this run's.

    Example: docfleet delete demo --yes
    """
    from docfleet.blob import open_blob_store  # lazy: start-up
    from docfleet.core.errors import ConfigError  # lazy: start-up
    from docfleet.core.settings import load_settings  # lazy: start-up
    from docfleet.ops.deletion import carry_out, plan_deletion  # lazy: start-up
    from docfleet.state import open_state_store  # lazy: start-up

    settings = load_settings(state=state, out=out, out_moved=out_moved,
                             lease_seconds=lease_seconds)
    store = open_state_store(settings.state, create=False)
    blob = open_blob_store(run_output(run_id, settings, store))
    deletion = plan_deletion(store, blob, run_id, force=force)
    what = deletion.describe(store.uri)
    if not yes:
        if not sys.stdin.isatty():
            raise ConfigError(f"would delete {what}", "pass --yes to confirm")
        click.confirm(f"delete {what}?", abort=True)
    existed, deleted = carry_out(deletion, store, settings.lease_seconds,
                                 lambda line: click.echo(line, err=True))
    store.close()
    if existed or deleted:
        click.echo(f"deleted run '{run_id}': " + ("its state in " + store.uri if existed
                                                   else "no state")
                   + f" and {deleted} output file(s) under {blob.uri}/{run_id}/")
    else:
        click.echo(f"run '{run_id}': nothing to delete")


def _read_store(uri: str, run_id: str) -> Any:
    """Open a state store for a command that only reads or updates a run: a missing
    SQLite file is not created, and the error names the run."""
    from docfleet.core.errors import RunNotFoundError  # lazy: start-up
    from docfleet.state import open_state_store  # lazy: start-up

    try:
        return open_state_store(uri, create=False)
    except RunNotFoundError as exc:
        raise RunNotFoundError(f"run '{run_id}' does not exist: {exc.message}",
                               exc.hint) from None


def _explain_incomplete(run_id: str, info: dict[str, Any], moved: bool) -> None:
    """Why a COMPLETED run is INCOMPLETE, and what to do: ``resume`` (with the same
    ``--out``) for damaged outputs; for none at all, first whether they are elsewhere."""
    if "problem" not in info:
        return
    where = f" --out {info['out']} --out-moved" if moved else ""
    if info.get("outputs_found") is False:
        click.echo(f"run {run_id} is not complete: {info['problem']}, and none of its "
                   f"outputs is there (if they were copied elsewhere, pass --out URI "
                   f"--out-moved; if they are lost, 'docfleet resume {run_id}{where}' "
                   f"regenerates them)", err=True)
        return
    click.echo(f"run {run_id} is not complete: {info['problem']} (run 'docfleet "
               f"resume {run_id}{where}' to repair it)", err=True)


def _status_view(info: dict[str, Any]) -> Any:
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    from docfleet.core.models import UnitState  # lazy: start-up
    from docfleet.ops.runstatus import failed_unit_lines  # lazy: start-up

    table = Table(title=f"run {info['run_id']}: {info['state']}, "
                        f"{info['documents_done']}/{info['total']} documents")
    for s in UnitState:
        table.add_column(s.value, justify="right")
    table.add_row(*(str(info["units"][s.value]) for s in UnitState))
    lines = failed_unit_lines(info["failed_units"], info["run_id"])
    return Group(table, *(Text(line) for line in lines))


@click.command()
@click.argument("run_id")
@state_option
@out_option
@out_moved_option
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--wait", is_flag=True, help="Wait until the run is COMPLETED, FAILED or "
              "CANCELLED; exit 0 only if COMPLETED.")
@click.option("--watch", is_flag=True, help="Refresh the view every --interval seconds "
              "until the run is COMPLETED, FAILED or CANCELLED (exit as --wait).")
@click.option("--interval", type=click.FloatRange(min=0.1, max=3600), default=2.0,
              show_default=True, help="Seconds between polls with --wait/--watch.")
@friendly_errors
def status(run_id: str, state: str | None, out: str | None, out_moved: bool | None,
           as_json: bool, wait: bool, watch: bool, interval: float) -> None:
    """Show a run's state, its units by state and its failed units with their errors. A
    run is shown COMPLETED only when its root manifest (under the output URI it recorded,
    or --out with --out-moved) is there and is this run's; otherwise INCOMPLETE.

    Example: docfleet status demo --json
    """
    from rich.console import Console

    from docfleet.core.settings import load_settings  # lazy: start-up
    from docfleet.ops.runstatus import INCOMPLETE, TERMINAL_STATES, run_status  # lazy: start-up

    settings = load_settings(state=state, out=out, out_moved=out_moved)
    store = _read_store(settings.state, run_id)
    out_uri = run_output(run_id, settings, store)
    moved = settings.out_moved
    info = run_status(store, run_id, out_uri)
    terminal = {s.value for s in TERMINAL_STATES} | {INCOMPLETE}
    if watch and not as_json:
        from rich.live import Live

        console = Console()
        if console.is_terminal:
            with Live(_status_view(info), console=console, auto_refresh=False) as live:
                while info["state"] not in terminal:
                    time.sleep(interval)
                    info = run_status(store, run_id, out_uri)
                    live.update(_status_view(info), refresh=True)
        else:  # not a terminal: one plain line per change
            from docfleet.ops.runstatus import failed_unit_lines  # lazy: start-up

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
                info = run_status(store, run_id, out_uri)
            for text in failed_unit_lines(info["failed_units"], run_id):
                click.echo(text)
        _explain_incomplete(run_id, info, moved)
        sys.exit(0 if info["state"] == RunState.COMPLETED.value else 1)
    while (wait or watch) and info["state"] not in terminal:
        time.sleep(interval)
        info = run_status(store, run_id, out_uri)
    if as_json:
        click.echo(json.dumps(info, sort_keys=True))
    else:
        Console().print(_status_view(info))
        _explain_incomplete(run_id, info, moved)
    if (wait or watch) and info["state"] != RunState.COMPLETED.value:
        sys.exit(1)


@click.command()
@click.argument("run_id")
@out_option
@out_moved_option
@click.option("--state", help="State store URI: also check the root is bound to the run "
              "this store holds (fingerprint, totals, every part's sha256).")
@friendly_errors
def verify(run_id: str, out: str | None, out_moved: bool | None, state: str | None) -> None:
    """Re-hash a run's root manifest, parts, documents and shards; exit 0 only if the
    root exists and everything matches (the checks finalize makes before writing it).
    Without --out, the outputs are where the run recorded them (in --state, else the
    default store); a --out other than that needs --out-moved.

    Example: docfleet verify demo --out file://./out
    """
    from docfleet.blob import open_blob_store  # lazy: start-up
    from docfleet.core.settings import load_settings  # lazy: start-up
    from docfleet.dataset.manifest import RunFiles, verify_run  # lazy: start-up

    settings = load_settings(out=out, state=state, out_moved=out_moved)
    out_uri = run_output(run_id, settings)
    binding = None
    if state is not None:
        from docfleet.kernel.finalize import binding_of  # lazy: start-up
        from docfleet.ops.runstatus import open_run  # lazy: start-up

        store = _read_store(settings.state, run_id)
        run = open_run(store, run_id)
        binding = binding_of(run, store.units(run_id))
    if out_uri.startswith("file://") and not Path(out_uri[len("file://"):]).is_dir():
        # a reader creates nothing: opening the file store would make the directory
        click.echo(f"verify {run_id}: no output root at {out_uri} (nothing there to verify; "
                   "check --out)", err=True)
        sys.exit(1)
    files = RunFiles(open_blob_store(out_uri), run_id)
    problems = verify_run(files, binding)
    for problem in problems:
        click.echo(f"MISMATCH {problem}", err=True)
    if problems:
        click.echo(f"verify {run_id}: {len(problems)} problem(s)", err=True)
        sys.exit(1)
    click.echo(f"verify {run_id}: ok")


def _set_state(run_id: str, state: str | None, target: RunState, allowed: list[RunState]) -> None:
    from docfleet.core import clock  # lazy: start-up
    from docfleet.core.settings import load_settings  # lazy: start-up
    from docfleet.ops.runstatus import open_run  # lazy: start-up

    store = _read_store(load_settings(state=state).state, run_id)
    run = open_run(store, run_id)
    if store.set_run_state(run_id, target, clock.now(), expected=allowed):
        click.echo(f"run {run_id}: {run.state.value} → {target.value}")
    else:
        click.echo(f"run {run_id} is {run.state.value}; nothing to do")


@click.command()
@click.argument("run_id")
@state_option
@friendly_errors
def pause(run_id: str, state: str | None) -> None:
    """Pause a run: workers stop claiming (their current unit finishes).

    Example: docfleet pause demo
    """
    _set_state(run_id, state, RunState.PAUSED, [RunState.PENDING, RunState.RUNNING])


@click.command()
@click.argument("run_id")
@state_option
@friendly_errors
def cancel(run_id: str, state: str | None) -> None:
    """Cancel a run: workers stop claiming; the run never completes.

    Example: docfleet cancel demo
    """
    _set_state(run_id, state, RunState.CANCELLED,
               [RunState.PENDING, RunState.RUNNING, RunState.PAUSED, RunState.FAILED])


@click.command()
@click.argument("run_id")
@state_option
@out_option
@out_moved_option
@friendly_errors
def resume(run_id: str, state: str | None, out: str | None, out_moved: bool | None) -> None:
    """Make a run workable again, COMPLETED runs included: expired leases reclaimed,
    failed units reset, outputs verified, a root that no longer matches removed and
    every damaged unit reopened; then start workers (they regenerate the same bytes).
    The outputs are where the run recorded them when it was planned; a --out other than
    that needs --out-moved (outputs copied there), and so do the workers then.

    Example: docfleet resume demo && docfleet run --run-id demo --tasks 2
    """
    from docfleet.blob import open_blob_store  # lazy: start-up
    from docfleet.core.settings import load_settings  # lazy: start-up
    from docfleet.dataset.manifest import RunFiles  # lazy: start-up
    from docfleet.ops.repair import repair_run  # lazy: start-up

    settings = load_settings(state=state, out=out, out_moved=out_moved)
    store = _read_store(settings.state, run_id)
    out_uri = run_output(run_id, settings, store)
    report = repair_run(store, RunFiles(open_blob_store(out_uri), run_id))
    for line in report.damaged:
        click.echo(f"damaged {line}", err=True)
    if report.root_removed:
        click.echo(f"run {run_id}: removed the root manifest ({report.root_removed}); a "
                   "worker writes it again once every unit is intact")
    click.echo(f"run {run_id}: {report.reclaimed} expired lease(s) reclaimed, {report.reset} "
               f"failed unit(s) reset, {report.reopened} damaged unit(s) reopened; "
               f"{report.state_before} → {report.state_after}; start workers"
               f"{f' (--out {out_uri} --out-moved)' if settings.out_moved else ''} to finish it")
