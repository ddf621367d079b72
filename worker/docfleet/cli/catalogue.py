"""``docfleet catalogue``: build the LLM catalogue (a run of kind ``catalogue``) and
inspect a built one. Heavy imports (litellm) happen only inside the build's workers."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from docfleet.cli.options import friendly_errors, out_option, parse_options, state_option


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
    from docfleet.blob import open_blob_store  # lazy: start-up
    from docfleet.catalogue.llm import require_litellm  # lazy: start-up
    from docfleet.catalogue.pack import CataloguePack  # lazy: start-up
    from docfleet.catalogue.restart import reclaim_expired  # lazy: start-up
    from docfleet.catalogue.settings import CatalogueSettings  # lazy: start-up
    from docfleet.core.errors import ConfigError  # lazy: start-up
    from docfleet.core.models import RunState, UnitState  # lazy: start-up
    from docfleet.core.settings import load_settings  # lazy: start-up
    from docfleet.kernel.admission import admit_out, check_ready, resolve_spec  # lazy: start-up
    from docfleet.state import open_state_store  # lazy: start-up
    from docfleet.telemetry.logs import setup_logging  # lazy: start-up

    require_litellm()  # the generation image has none: said once, nothing planned
    given = {"concurrency": concurrency, "call_timeout": call_timeout, "retries": retries,
             "api_base": api_base, "block_calls": block_calls}
    task_flags = {key: value for key, value in given.items() if value is not None}
    CatalogueSettings.load(**task_flags)  # a bad value: said once, here, nothing planned
    base = load_settings(run_id=run_id, out=out, state=state)
    store = open_state_store(base.state)
    existing = store.get_run(run_id)
    total = None
    normalised: dict[str, Any] | None = None
    if models:
        normalised = CataloguePack().validate_options(
            _plan_options(models, fallback, prices, budget_usd, parse_options(options) or {}))
        from docfleet.catalogue.plan import parse_options as parse_catalogue  # lazy: start-up

        total = parse_catalogue(normalised).total
    elif existing is None:
        raise ConfigError(f"catalogue '{run_id}' does not exist yet",
                          "pass --model MODEL (repeatable) to build it")
    elif existing.spec.kind != "catalogue":
        raise ConfigError(f"run '{run_id}' is a {existing.spec.kind} run, not a catalogue")
    settings = load_settings(run_id=run_id, out=out, state=state, pack="catalogue",
                             total=total, unit_size=unit_size, options=normalised,
                             lease_seconds=lease_seconds, max_attempts=max_attempts)
    settings = admit_out(settings, store)  # a stored run's recorded output URI
    if existing is not None:
        reclaimed, released = reclaim_expired(store, existing)
        click.echo(f"catalogue {run_id}: reclaimed {reclaimed} expired lease(s), released "
                   f"{released} expired budget reservation(s)", err=True)
        if existing.state == RunState.COMPLETED:
            click.echo(f"catalogue {run_id} is already complete: "
                       f"{settings.out.rstrip('/')}/{run_id}", err=True)
            sys.exit(0)
    log = setup_logging(settings.log_format if tasks == 1 else "text",
                        settings.log_level if tasks == 1 else "WARNING")
    spec = resolve_spec(settings, store, tasks, log)
    # a bad DOCFLEET_CATALOGUE_* setting: said once, nothing planned
    check_ready(spec, store, settings, task_flags)
    blob = open_blob_store(settings.out)
    if tasks == 1:
        from docfleet.kernel.task import run_task  # lazy: start-up

        code = run_task(settings, spec, store, blob, log, pack_settings=task_flags)
    else:
        from rich.console import Console

        from docfleet.ops.fleet import run_fleet  # lazy: start-up

        log_dir = log_dir or Path(".docfleet/logs") / spec.run_id
        code = run_fleet(settings, spec, store, tasks, log_dir, Console(stderr=True),
                         env=CatalogueSettings.env_of(task_flags))
    progress = store.progress(run_id)
    ledger = store.budget_state(run_id)
    click.echo(f"catalogue {run_id}: {progress[UnitState.DONE]}/{progress.total} units "
               f"done, {progress[UnitState.FAILED]} failed; spent "
               f"${ledger.spent_nano / 1e9:.6f}", err=True)
    if code == 0 and (r := store.get_run(run_id)) and r.state == RunState.COMPLETED:
        click.echo(f"catalogue: {settings.out.rstrip('/')}/{run_id}", err=True)
    store.close()
    sys.exit(code)


@catalogue.command()
@click.argument("uri")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@friendly_errors
def show(uri: str, as_json: bool) -> None:
    """Summarise a built catalogue: items by source and reason, spend by model.

    Example: docfleet catalogue show file://./out/cat1
    """
    import json

    from docfleet.dataset.catalogue import Catalogue  # lazy: start-up

    summary = Catalogue.load(uri).summary()
    if as_json:
        click.echo(json.dumps(summary, sort_keys=True))
        return
    for key, value in summary.items():
        click.echo(f"{key}: {value}")
