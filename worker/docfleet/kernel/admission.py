"""Admitting a run: the values of its spec (:class:`~docfleet.core.models.RunSpec`, the
record every task of a run must agree on) decided from settings, a stored run and the
pack, and the pack's preflight on this machine before anything is planned. Writes
nothing; the plan race (:mod:`.planner`) takes it from here."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from docfleet.core.errors import ConfigError
from docfleet.core.models import Run, RunSpec, RunState
from docfleet.core.outputs import canonical_out, run_out, same_out
from docfleet.core.settings import Settings
from docfleet.core.uris import redact
from docfleet.kernel.planner import check_plannable, choose_unit_size
from docfleet.packs import load_pack
from docfleet.packs.base import pack_context
from docfleet.state.base import CoordinationStore


def require_run_id(settings: Settings) -> str:
    if not settings.run_id:
        raise ConfigError("no run id given", "pass --run-id ID or set DOCFLEET_RUN_ID")
    return settings.run_id


def admit_out(settings: Settings, store: CoordinationStore) -> Settings:
    """``settings`` with ``out`` the URI this task writes run ``settings.run_id`` to: the
    one the stored run recorded when no other is given, the given one for a new run or
    one planned before URIs were recorded (:func:`docfleet.core.outputs.run_out`).
    Raises :class:`ConfigError` for a given URI that is not the recorded one (without
    ``--out-moved``). Writes nothing."""
    run_id = require_run_id(settings)
    out = run_out(run_id, settings, store.get_run(run_id))
    return settings if out == settings.out else settings.model_copy(update={"out": out})


def writes_where_recorded(run: Run, settings: Settings, log: logging.Logger) -> bool:
    """Whether this task's output URI (``settings.out``) is the one the planned ``run``
    recorded (or the run recorded none, or ``--out-moved`` says the outputs are elsewhere
    now). A peer that planned the run first with another ``--out`` wins: this task says
    so in one line (``run.out_mismatch``) and writes nothing (the worker exits 2)."""
    recorded = run.spec.out
    if recorded is None or settings.out_moved or same_out(recorded, settings.out):
        return True
    log.error("run %s keeps its outputs at %s (recorded when it was planned), not "
              "%s: this task writes nothing; start it with that --out",
              run.run_id, redact(recorded), redact(settings.out),
              extra={"event": "run.out_mismatch"})
    return False


def resolve_spec(
    settings: Settings, store: CoordinationStore, tasks: int, log: logging.Logger
) -> RunSpec:
    """The run's spec from ``settings``. Without ``total`` the stored run is resumed as it
    was; without ``unit_size`` a stored run keeps its own, a new one gets about three
    units per task. Raises :class:`ConfigError` for a bad pack, option or missing value."""
    run_id = require_run_id(settings)
    existing = store.get_run(run_id)
    if settings.total is None:
        if existing is None:
            raise ConfigError(
                f"run '{run_id}' does not exist yet and no total was given",
                "pass --total N or set DOCFLEET_TOTAL to plan it",
            )
        return existing.spec
    pack = load_pack(settings.pack)
    options = pack.validate_options(settings.options)
    unit_size = settings.unit_size
    if unit_size is None:
        if existing is not None:
            unit_size = existing.spec.unit_size
        else:
            unit_size = choose_unit_size(settings.total, tasks)
    spec = RunSpec(
        run_id=run_id, total=settings.total, unit_size=unit_size, pack=pack.name,
        kind=pack.kind, max_attempts=settings.max_attempts,
        options=options, out=canonical_out(settings.out),
    )
    check_plannable(spec)
    if spec.unit_count < tasks:
        log.warning("only %d unit(s) for %d task(s): some tasks will have nothing to do; "
                    "use a smaller --unit-size", spec.unit_count, tasks)
    return spec


def check_ready(spec: RunSpec, store: CoordinationStore, settings: Settings,
                pack_settings: Mapping[str, Any] | None = None) -> None:
    """Check, before anything is planned, what this machine needs to work ``spec``: the
    pack's settings load (``pack_settings``: a command's flags over the environment) and
    its ``preflight(options, context)`` passes (its browser, a catalogue it reads; the
    context has no store). Skipped for a run that is already COMPLETED (there is nothing
    left to work). Raises :class:`ConfigError` naming what is missing and how to fix it;
    writes nothing."""

    existing = store.get_run(spec.run_id)
    if existing is not None and existing.state == RunState.COMPLETED:
        return
    pack = load_pack(spec.pack)
    pack.preflight(spec.options, pack_context(pack, spec.run_id, settings,
                                              overrides=pack_settings))
