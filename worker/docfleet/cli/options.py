"""What every command shares: the one-line error handler, the option decorators and the
flags → :class:`~docfleet.core.settings.Settings` step. Imports only click and settings, so a
command module that needs these costs nothing more."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from typing import Any, TypeVar, cast

import click

from docfleet.core.errors import DocfleetError
from docfleet.core.settings import DEFAULT_OUT, DEFAULT_STATE, Settings, load_settings

F = TypeVar("F", bound=Callable[..., Any])


def friendly_errors(fn: F) -> F:
    """Turn a :class:`DocfleetError` into one line on stderr and its exit code."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except DocfleetError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(exc.exit_code)

    return cast(F, wrapper)  # functools.wraps keeps the signature


def parse_options(values: tuple[str, ...]) -> dict[str, Any] | None:
    """``--option KEY=VALUE`` values as a dict (a VALUE that is JSON is decoded), ``None``
    when none is given. Raises :class:`click.BadParameter` for an item without ``=``."""
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


def out_moved_option(fn: F) -> F:
    return click.option("--out-moved", is_flag=True, default=None,
                        help="The run's outputs were copied to --out: use it although the "
                        "run recorded another output URI when it was planned [env "
                        "DOCFLEET_OUT_MOVED].")(fn)


def run_output(run_id: str, settings: Settings, store: Any = None, *,
               flag: str = "--out") -> str:
    """The output URI a command uses for run ``run_id``
    (:func:`docfleet.core.outputs.run_out`): the run as ``store`` holds it, or, with no
    ``store`` (the readers: ``verify``, ``export``, ``card``), as ``settings.state`` holds
    it (a local store or a run that does not exist there: the given URI or the default,
    as for a run that recorded none). A reader given an output URI but no state store
    (neither ``--state`` nor ``DOCFLEET_STATE``) reads the outputs there without asking
    the default store. Raises :class:`ConfigError` for a given URI that is not the
    recorded one."""
    from docfleet.core.errors import RunNotFoundError  # lazy: start-up
    from docfleet.core.outputs import given_out, run_out  # lazy: start-up

    if store is not None:
        return run_out(run_id, settings, store.get_run(run_id), flag=flag)
    if given_out(settings) is not None and "state" not in settings.model_fields_set:
        return run_out(run_id, settings, None, flag=flag)
    from docfleet.state import open_state_store  # lazy: start-up

    try:
        own = open_state_store(settings.state, create=False)
    except RunNotFoundError:  # a local database that does not exist holds no run
        return run_out(run_id, settings, None, flag=flag)
    try:
        return run_out(run_id, settings, own.get_run(run_id), flag=flag)
    finally:
        own.close()


def run_reader(run_id: str, settings: Settings, *, partial: bool = False) -> Any:
    """The :class:`~docfleet.export.RunReader` of run ``run_id`` at its output URI
    (:func:`run_output`). A run that has no root manifest there and that the state store
    (when one is asked, as :func:`run_output` asks it) does not hold either is refused as
    unknown (:class:`ConfigError` naming both places), not as incomplete."""
    from docfleet.core.errors import ConfigError, RunNotFoundError  # lazy: start-up
    from docfleet.core.outputs import given_out  # lazy: start-up
    from docfleet.core.uris import redact  # lazy: start-up
    from docfleet.export import RunIncompleteError, RunReader  # lazy: start-up
    from docfleet.state import open_state_store  # lazy: start-up

    out = run_output(run_id, settings)
    try:
        return RunReader(out, run_id, partial=partial, state_uri=settings.state)
    except RunIncompleteError:
        if given_out(settings) is not None and "state" not in settings.model_fields_set:
            raise  # the outputs alone were asked
        try:
            store = open_state_store(settings.state, create=False)
        except RunNotFoundError:  # a local database that does not exist holds no run
            store = None
        try:
            known = store is not None and store.get_run(run_id) is not None
        finally:
            if store is not None:
                store.close()
        if known:
            raise
        raise ConfigError(f"run {run_id} is not in state store {redact(settings.state)} "
                          f"and has no outputs under {redact(out)}",
                          "check the run id (docfleet list) and --state / --out") from None


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
        out_moved_option,
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


def flag_settings(**flags: Any) -> Settings:
    """Settings from the environment with the :func:`run_options` flags on top (``options``
    parsed from its ``KEY=VALUE`` items). Raises :class:`ConfigError` for a bad value."""
    from docfleet.telemetry.exporters import check_trace_target  # lazy: start-up

    flags["options"] = parse_options(flags.pop("options", ()))
    settings = load_settings(**flags)
    check_trace_target(settings.trace)
    return settings
