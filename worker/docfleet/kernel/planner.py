"""Planning: turn (total, unit_size) into units, and the race every task runs to get the
run planned exactly once (docs/design.md, contract point 1)."""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Iterator

from docfleet import telemetry
from docfleet.core import clock, faults
from docfleet.core.errors import ConfigError
from docfleet.core.models import Run, RunSpec, Unit
from docfleet.core.settings import MAX_TOTAL  # the most documents one run may hold
from docfleet.kernel import pacing
from docfleet.state.base import CoordinationStore, CreateResult, check_fingerprint
from docfleet.state.optional import write_ramp

#: Units per planned batch (one write each), between which the planner heartbeats.
PLAN_BATCH = faults.PLAN_BATCH or 500
#: Bounds of the automatic unit size.
MIN_UNIT_SIZE, MAX_UNIT_SIZE = 1, 1000
UNITS_PER_TASK = 3
#: The most units one run may plan: planning writes every unit once (in PLAN_BATCH
#: writes) and ``status`` / finalize read them all, so a larger run uses larger units.
MAX_PLAN_UNITS = 1_000_000
#: Longest pause between two heartbeats of a planner pacing itself under a write ramp.
PLAN_PACE_HEARTBEAT = 5.0


def check_plannable(spec: RunSpec) -> None:
    """Refuse a run no store can plan, before anything is written (no marker is left).
    Raises :class:`ConfigError` naming the limit and what to do."""
    if spec.total > MAX_TOTAL:
        raise ConfigError(f"--total {spec.total} is more documents than one run can hold "
                          f"(at most {MAX_TOTAL:,})", "split it into several runs")
    if spec.unit_count > MAX_PLAN_UNITS:
        need = -(-spec.total // MAX_PLAN_UNITS)
        raise ConfigError(
            f"--total {spec.total} in units of {spec.unit_size} would plan {spec.unit_count:,} "
            f"units; a run plans at most {MAX_PLAN_UNITS:,}",
            f"pass --unit-size {need} or more, or split the run")


def choose_unit_size(total: int, tasks: int) -> int:
    """About ``UNITS_PER_TASK`` units per task, within [MIN_UNIT_SIZE, MAX_UNIT_SIZE]."""
    wanted_units = max(1, UNITS_PER_TASK * max(tasks, 1))
    size = -(-total // wanted_units)
    return max(MIN_UNIT_SIZE, min(MAX_UNIT_SIZE, size))


def plan_units(spec: RunSpec) -> Iterator[Unit]:
    """The units of ``spec``: contiguous ranges ``[start, start + count)``."""
    for index in range(spec.unit_count):
        start = index * spec.unit_size
        yield Unit(spec.run_id, index, start, min(spec.unit_size, spec.total - start))


def _write_plan(store: CoordinationStore, spec: RunSpec, planner: str, log: logging.Logger,
                stop: threading.Event | None = None,
                heartbeat: float = PLAN_PACE_HEARTBEAT) -> bool:
    """Write the units in batches, heartbeating between them. ``stop`` (SIGTERM) ends it
    after the current batch and hands the plan over: its heartbeat is set to 0, so a peer
    takes it over at once (units already written are kept: put_units is idempotent).

    On a store that declares a write ramp the batches are paced at
    :func:`pacing.plan_wait` (the plan writes its document ids and ``idx`` in order:
    sequential values), heartbeating every ``heartbeat`` seconds while it waits."""
    batch: list[Unit] = []
    declared = write_ramp(store)
    started, written = time.monotonic(), 0
    pause = stop or threading.Event()

    def touch() -> bool:
        if store.touch_plan(spec.run_id, planner, clock.now()):
            return True
        log.warning("lost the plan of run %s to another task", spec.run_id)
        return False

    if faults.ARMED:
        faults.hit("plan.start")
    for unit in plan_units(spec):
        batch.append(unit)
        if len(batch) >= PLAN_BATCH:
            store.put_units(spec.run_id, batch)
            written += len(batch)
            if faults.ARMED:
                faults.hit("plan.batch")
            batch = []
            if stop is not None and stop.is_set():
                store.touch_plan(spec.run_id, planner, 0.0)  # stale now: a peer takes over
                log.warning("stopped planning run %s; a peer takes the plan over",
                            spec.run_id, extra={"event": "plan.handover"})
                return False
            if not touch():
                return False
            if declared is not None:
                wait = pacing.plan_wait(declared[0], written, time.monotonic() - started)
                while wait > 0 and not pause.is_set():
                    # in slices with a heartbeat each, so peers never see the plan stale
                    pause.wait(min(wait, heartbeat))
                    wait -= heartbeat
                    if wait > 0 and not touch():
                        return False
    if batch:
        store.put_units(spec.run_id, batch)
        if faults.ARMED:
            faults.hit("plan.batch")
    return store.mark_planned(spec.run_id, planner, clock.now())


class QuietPlanner:
    """Decides when a waiting task may take the plan over, whatever the planner's clock.

    The marker is stale when either its heartbeat is older than ``stale_seconds`` by this
    task's clock (a heartbeat of 0 is a SIGTERMed planner's hand-over: stale at once), or
    the heartbeat *value* has not moved for ``stale_seconds`` of this task's monotonic
    clock. The second rule is what frees a run whose planner had a fast clock and died: its
    last heartbeat lies in the future of every honest reader and would otherwise stall
    them for as long as the skew. The takeover it allows is a compare-and-set on the value
    seen (``stale_before`` just above it), so a heartbeat that moved in the meantime keeps
    its planner. On a store that translates heartbeats to the caller's clock (PostgreSQL:
    one database clock), the value moves on every read, and only the first rule applies,
    which there is free of skew."""

    #: ``stale_before`` above the heartbeat seen: past rounding in the stores' number types.
    EPSILON = 1e-3

    def __init__(self, stale_seconds: float) -> None:
        self.stale_seconds = stale_seconds
        self._seen: tuple[str | None, float] | None = None
        self._since = 0.0

    def stale_before(self, run: Run, now: float) -> float | None:
        """The ``stale_before`` to take over with, or ``None`` while the planner is live."""
        if run.plan_heartbeat < now - self.stale_seconds:
            return now - self.stale_seconds
        seen = (run.planner, run.plan_heartbeat)
        tick = time.monotonic()
        if seen != self._seen:
            self._seen, self._since = seen, tick
            return None
        if tick - self._since >= self.stale_seconds:
            return run.plan_heartbeat + self.EPSILON
        return None


def ensure_planned(
    store: CoordinationStore,
    spec: RunSpec,
    planner: str,
    *,
    stale_seconds: float,
    poll_seconds: float,
    stop: threading.Event,
    log: logging.Logger,
    tasks: int = 1,
    task_index: int = 0,
) -> Run | None:
    """Race to plan ``spec``; return the planned run (``None`` if ``stop`` was set while
    waiting, or the run was deleted meanwhile). One caller wins ``create_run`` and writes
    the units; a loser resumes at once if the run is already planned (``already planned;
    resuming``), otherwise waits for the plan to land, taking it over once the planner's
    heartbeat is stale (older than ``stale_seconds``, or unmoved for that long:
    :class:`QuietPlanner`). Raises :class:`RunConflictError` for other parameters and
    :class:`ConfigError` for a run too large to plan (nothing written).

    Fleet-safe (``tasks`` peers, this one ``task_index``): a task other than the first
    looks at the run marker before racing to create it, after a random pause spread over
    :func:`pacing.cold_start_spread`, and the plan wait backs off with jitter up to a
    ceiling that keeps the fleet under ``FLEET_PLAN_POLLS_PER_SECOND`` reads."""
    check_plannable(spec)
    beat = min(PLAN_PACE_HEARTBEAT, stale_seconds / 3)  # a paced plan is never stale
    result: CreateResult | None = None
    if task_index > 0 and tasks > 1:
        if stop.wait(random.uniform(0, pacing.cold_start_spread(tasks))):
            return None
        seen = store.get_run(spec.run_id)
        if seen is not None:
            check_fingerprint(seen, spec)
            result = CreateResult(False, seen)
    if result is None:
        result = store.create_run(spec, planner, clock.now())
    if result.won:
        log.info("planning run %s: %d units of %d documents", spec.run_id, spec.unit_count,
                 spec.unit_size, extra={"event": "plan.won"})
        telemetry.set_attributes({"docfleet.plan.outcome": "won"})
        if _write_plan(store, spec, planner, log, stop, beat):
            log.info("plan landed: %d units", spec.unit_count, extra={"event": "plan.landed"})
    elif result.run.planned:
        log.info("already planned; resuming", extra={"event": "plan.resumed"})
        telemetry.set_attributes({"docfleet.plan.outcome": "resumed"})
        return result.run
    else:
        log.info("run %s is being planned by %s; waiting", spec.run_id, result.run.planner,
                 extra={"event": "plan.wait"})
        telemetry.set_attributes({"docfleet.plan.outcome": "lost"})
    backoff = pacing.fleet_backoff(poll_seconds, tasks, pacing.FLEET_PLAN_POLLS_PER_SECOND)
    quiet = QuietPlanner(stale_seconds)
    while not stop.is_set():
        run = store.get_run(spec.run_id)
        if run is None:  # deleted while it was being planned (docfleet delete --force)
            return None
        if run.planned:
            return run
        now = clock.now()
        stale_before = quiet.stale_before(run, now)
        if stale_before is not None and store.take_over_plan(
            spec.run_id, planner, stale_before, now
        ):
            log.warning("planner %s went quiet; taking over the plan", run.planner,
                        extra={"event": "plan.takeover"})
            telemetry.set_attributes({"docfleet.plan.outcome": "takeover"})
            _write_plan(store, spec, planner, log, stop, beat)
            backoff.reset()
            continue
        stop.wait(backoff.next())
    return None
