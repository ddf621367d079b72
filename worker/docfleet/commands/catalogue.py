"""``docfleet catalogue``: build the LLM catalogue (a run of kind ``catalogue``) and
inspect a built one. Heavy imports (litellm) happen only inside the build's workers."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import click

from docfleet.cli import friendly_errors, out_option, state_option

#: task settings passed to every worker of the build through the environment
_TASK_ENV = {
    "concurrency": "DOCFLEET_CATALOGUE_CONCURRENCY",
    "call_timeout": "DOCFLEET_CATALOGUE_CALL_TIMEOUT",
    "retries": "DOCFLEET_CATALOGUE_RETRIES",
    "api_base": "DOCFLEET_CATALOGUE_API_BASE",
    "block_calls": "DOCFLEET_CATALOGUE_BLOCK_CALLS",
}


@click.group()
def catalogue() -> None:
    """Build and inspect LLM catalogues (text that generation runs draw from)."""


def _plan_options(models: tuple[str, ...], fallback: tuple[str, ...], prices: tuple[str, ...],
                  budget_usd: str | None, extra: dict[str, Any]) -> dict[str, Any]:
    options: dict[str, Any] = dict(extra)
    options["models"] = ",".join(models)
    if fallback:
        options["fallback"] = list(fallback)
    if budget_usd is not None:
        options["budget_usd"] = budget_usd
    if prices:
        table = {}
        for item in prices:
            model, sep, pair = item.rpartition("=")
            if not sep or "," not in pair:
                raise click.BadParameter(f"{item!r} is not MODEL=IN,OUT", param_hint="--price")
            table[model] = pair.split(",", 1)
        options["prices"] = table
    return options


@catalogue.command()
@click.option("--run-id", required=True, help="The catalogue run's id.")
@out_option
@state_option
@click.option("--model", "models", multiple=True, metavar="MODEL[=WEIGHT]",
              help="A litellm model string with an optional routing weight (repeatable).")
@click.option("--fallback-model", "fallback", multiple=True, metavar="MODEL",
              help="A model of the fallback pool (repeatable).")
@click.option("--price", "prices", multiple=True, metavar="MODEL=IN,OUT",
              help="Custom price in USD per 1M input,output tokens (repeatable); a model "
                   "without a price (here or in litellm's table) is never called.")
@click.option("--budget-usd", help="Fleet-wide spend cap; items past it are procedural.")
@click.option("--concurrency", type=click.IntRange(1, 1024),
              help="LLM calls in flight per task [default 8].")
@click.option("--tasks", type=click.IntRange(min=1), default=1, show_default=True,
              help="Worker processes on this machine (1: work in this process).")
@click.option("--unit-size", type=int, help="Items per work unit.")
@click.option("--lease-seconds", type=float, help="Unit lease length [default 30].")
@click.option("--max-attempts", type=int, help="Attempts before a unit is FAILED.")
@click.option("--call-timeout", type=float, help="Hard timeout of one call [default 30 s].")
@click.option("--retries", type=int, help="Retries of a rate-limited or timed-out call.")
@click.option("--api-base", help="Base URL for every model (an OpenAI-compatible server).")
@click.option("--block-calls", type=int,
              help="Worst-case calls per budget reservation write [default 1].")
@click.option("--option", "options", multiple=True, metavar="KEY=VALUE",
              help="Catalogue option: kinds, lines, locales, variants, max_tokens, "
                   "quarantine_after, max_models_per_item.")
@click.option("--log-dir", type=click.Path(path_type=Path), default=None,
              help="Where each task's JSON log goes (with --tasks > 1).")
@friendly_errors
def build(run_id: str, out: str | None, state: str | None, models: tuple[str, ...],
          fallback: tuple[str, ...], prices: tuple[str, ...], budget_usd: str | None,
          concurrency: int | None, tasks: int, unit_size: int | None,
          lease_seconds: float | None, max_attempts: int | None, call_timeout: float | None,
          retries: int | None, api_base: str | None, block_calls: int | None,
          options: tuple[str, ...], log_dir: Path | None) -> None:
    """Build (or resume) a catalogue: reclaim expired leases and budget reservations, then
    work its items with TASKS local processes (or this one).

    Example: docfleet catalogue build --run-id cat1 --model openai/gpt-4o-mini
    --budget-usd 2 --concurrency 16 --tasks 2
    """
    from rich.console import Console

    from docfleet import clock
    from docfleet.blob import open_blob_store
    from docfleet.catalogue.pack import CataloguePack
    from docfleet.cli import parse_options
    from docfleet.errors import ConfigError
    from docfleet.logs import setup_logging
    from docfleet.models import RunState, UnitState
    from docfleet.runspec import resolve_spec
    from docfleet.settings import load_settings
    from docfleet.state import open_state_store

    flags = {"concurrency": concurrency, "call_timeout": call_timeout, "retries": retries,
             "api_base": api_base, "block_calls": block_calls}
    for key, value in flags.items():
        if value is not None:
            os.environ[_TASK_ENV[key]] = str(value)
    base = load_settings(run_id=run_id, out=out, state=state)
    store = open_state_store(base.state)
    existing = store.get_run(run_id)
    total = None
    normalised: dict[str, Any] | None = None
    if models:
        normalised = CataloguePack().validate_options(
            _plan_options(models, fallback, prices, budget_usd, parse_options(options) or {}))
        from docfleet.catalogue.plan import parse_options as parse_catalogue

        total = parse_catalogue(normalised).total
    elif existing is None:
        raise ConfigError(f"catalogue '{run_id}' does not exist yet",
                          "pass --model MODEL (repeatable) to build it")
    elif existing.spec.kind != "catalogue":
        raise ConfigError(f"run '{run_id}' is a {existing.spec.kind} run, not a catalogue")
    settings = load_settings(run_id=run_id, out=out, state=state, pack="catalogue",
                             total=total, unit_size=unit_size, options=normalised,
                             lease_seconds=lease_seconds, max_attempts=max_attempts)
    console = Console(stderr=True)
    if existing is not None:
        now = clock.now()
        reclaimed = store.reclaim_expired_units(run_id, existing.spec.max_attempts, now)
        released = store.release_expired_reservations(run_id, now)
        click.echo(f"catalogue {run_id}: reclaimed {reclaimed} expired lease(s), released "
                      f"{released} expired budget reservation(s)", err=True)
        if existing.state == RunState.COMPLETED:
            click.echo(f"catalogue {run_id} is already complete: "
                       f"{settings.out.rstrip('/')}/{run_id}", err=True)
            sys.exit(0)
    log = setup_logging(settings.log_format if tasks == 1 else "text",
                        settings.log_level if tasks == 1 else "WARNING")
    spec = resolve_spec(settings, store, tasks, log)
    from docfleet.runspec import check_ready

    check_ready(spec, store)  # a bad DOCFLEET_CATALOGUE_* setting: said once, nothing planned
    open_blob_store(settings.out)
    if tasks == 1:
        code = _one_task(settings, spec, store, log)
    else:
        from docfleet.fleet import run_fleet

        log_dir = log_dir or Path(".docfleet/logs") / spec.run_id
        code = run_fleet(settings, spec, store, tasks, log_dir, console)
    progress = store.progress(run_id)
    ledger = store.budget_state(run_id)
    click.echo(f"catalogue {run_id}: {progress[UnitState.DONE]}/{progress.total} units "
               f"done, {progress[UnitState.FAILED]} failed; spent "
               f"${ledger.spent_nano / 1e9:.6f}", err=True)
    if code == 0 and (r := store.get_run(run_id)) and r.state == RunState.COMPLETED:
        click.echo(f"catalogue: {settings.out.rstrip('/')}/{run_id}", err=True)
    store.close()
    sys.exit(code)


def _one_task(settings: Any, spec: Any, store: Any, log: Any) -> int:
    from docfleet.blob import open_blob_store
    from docfleet.identity import task_identity
    from docfleet.logs import bind
    from docfleet.packs import load_pack
    from docfleet.telemetry import run_task
    from docfleet.worker import Worker

    identity = task_identity()
    bind(run_id=spec.run_id, task_index=identity.index, task_count=identity.count)
    worker = Worker(settings, spec, identity, store, open_blob_store(settings.out),
                    load_pack(spec.pack), log)
    worker.install_signal_handlers()
    return run_task(worker.run, settings.trace, identity, spec.run_id, store.uri, settings.out)


@catalogue.command()
@click.argument("uri")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@friendly_errors
def show(uri: str, as_json: bool) -> None:
    """Summarise a built catalogue: items by source and reason, spend by model.

    Example: docfleet catalogue show file://./out/cat1
    """
    import json

    from docfleet.catalogue.artifact import Catalogue

    summary = Catalogue.load(uri).summary()
    if as_json:
        click.echo(json.dumps(summary, sort_keys=True))
        return
    for key, value in summary.items():
        click.echo(f"{key}: {value}")
