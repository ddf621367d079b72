"""``docfleet list`` and ``docfleet delete``: the runs a state store holds, and removing
one (its state and its outputs)."""

from __future__ import annotations

import json
import sys
import time
from typing import Any

import click

from docfleet.cli import friendly_errors, out_option, state_option


def _when(epoch: float | None) -> str:
    return time.strftime("%m-%d %H:%M", time.localtime(epoch)) if epoch else "-"


def run_rows(store: Any) -> list[dict[str, Any]]:
    """One row per run: id, pack, state, documents, units by state, created and
    completed times (epoch seconds; completed only for a COMPLETED run)."""
    from docfleet.models import RunState

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

    from docfleet.settings import load_settings
    from docfleet.state import open_state_store

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
    for name, justify in (("run", "left"), ("pack", "left"), ("state", "left"),
                          ("docs", "right"), ("units", "right"),
                          ("created", "left"), ("completed", "left")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
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
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@click.option("--force", is_flag=True, help="Delete a run that is still RUNNING or PENDING "
              "(its workers then fail their next write).")
@friendly_errors
def delete(run_id: str, state: str | None, out: str | None, yes: bool, force: bool) -> None:
    """Delete a run: its outputs (documents, golden shards, manifests) and its state
    (run marker, units, spend). Refuses a run that is still running unless --force.

    Example: docfleet delete demo --yes
    """
    from docfleet.blob import open_blob_store
    from docfleet.errors import ConfigError, RunNotFoundError
    from docfleet.models import RunState
    from docfleet.settings import load_settings
    from docfleet.state import open_state_store

    settings = load_settings(state=state, out=out)
    store = open_state_store(settings.state, create=False)
    run = store.get_run(run_id)
    blob = open_blob_store(settings.out)
    keys = list(blob.list(f"{run_id}/"))
    if run is None and not keys:
        raise RunNotFoundError(f"run '{run_id}' is neither in {store.uri} nor under "
                               f"{blob.uri}", "check the run id, --state and --out")
    if run is not None and run.state in (RunState.RUNNING, RunState.PENDING) and not force:
        raise ConfigError(f"run '{run_id}' is {run.state.value}",
                          f"stop it first (docfleet cancel {run_id}), or pass --force")
    what = (f"run '{run_id}': " + ("its state in " + store.uri if run else "no state")
            + f" and {len(keys)} output file(s) under {blob.uri}/{run_id}/")
    if not yes:
        if not sys.stdin.isatty():
            raise ConfigError(f"would delete {what}", "pass --yes to confirm")
        click.confirm(f"delete {what}?", abort=True)
    # outputs first, the root manifest first of them (a half-deleted run never looks
    # complete), then the state, whose marker goes last
    root = f"{run_id}/manifest.json"
    for key in sorted(keys, key=lambda k: k == root, reverse=True):
        blob.delete(key)
    existed = store.delete_run(run_id)
    store.close()
    click.echo(f"deleted {what}" if existed or keys else f"run '{run_id}': nothing to delete")
