"""The repair path (``docfleet resume``): bring any run whose state store survives back to
a workable state, COMPLETED runs included. One call is enough; it is idempotent.

Order matters and is part of the contract:

1. expired leases are reclaimed first (a unit on its last attempt becomes FAILED here),
2. then every FAILED unit goes back to PENDING with its attempts reset, so one resume
   leaves every unit workable;
3. the outputs are verified as ``docfleet verify`` and finalize check them: the root (is it
   this run's?) and every DONE unit's part, documents and shards (re-hashed);
4. a root that does not match (damaged, foreign, over damaged units) is removed *before*
   any unit is reopened, so no reader takes a damaged run as complete;
5. the run moves back to RUNNING and every damaged unit is reopened (DONE → PENDING);
   workers then regenerate the same bytes (documents are seeded by index).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from docfleet.core import clock
from docfleet.core.errors import RunNotFoundError
from docfleet.core.models import RunState, UnitState
from docfleet.dataset.manifest import ROOT_KEY, RunFiles, check_part
from docfleet.kernel.finalize import root_problems
from docfleet.state.base import CoordinationStore


@dataclass
class RepairReport:
    """What one :func:`repair_run` did."""

    run_id: str
    reclaimed: int = 0
    reset: int = 0
    reopened: int = 0
    root_removed: str | None = None  # why, when a root was removed
    damaged: list[str] = field(default_factory=list)  # one line per damaged unit
    state_before: str = ""
    state_after: str = ""


def repair_run(store: CoordinationStore, files: RunFiles, *, now: float | None = None
               ) -> RepairReport:
    """Make run ``files.run_id`` workable again (see the module docstring for the order).
    Raises :class:`RunNotFoundError` for an unknown run. Idempotent: on an intact,
    COMPLETED run it changes nothing."""
    run = store.get_run(files.run_id)
    if run is None:
        raise RunNotFoundError(f"run '{files.run_id}' does not exist in {store.uri}",
                               "check the run id and --state")
    now = clock.now() if now is None else now
    report = RepairReport(run.run_id, state_before=run.state.value)
    report.reclaimed = store.reclaim_expired_units(run.run_id, run.spec.max_attempts, now)
    report.reset = store.reset_failed_units(run.run_id, now)
    units = store.units(run.run_id)
    params = run.spec.parameters()
    damaged: list[int] = []
    for unit in units:
        if unit.state != UnitState.DONE:
            continue
        problems, _ = check_part(files, unit.index, unit.part_sha256, params)
        if problems:
            damaged.append(unit.index)
            report.damaged.append(problems[0])
    root = root_problems(store, files, run, units)
    if root is not None and (root or damaged):
        report.root_removed = root[0] if root else (
            f"{len(damaged)} unit(s) it covers are damaged")
        files.blob.delete(files.key(ROOT_KEY))
    has_root = root is not None and not report.root_removed
    reopenable = [RunState.FAILED, RunState.PAUSED, RunState.CANCELLED]
    if not has_root:  # a COMPLETED run without a valid root is not complete
        reopenable.append(RunState.COMPLETED)
    store.set_run_state(run.run_id, RunState.RUNNING, now, expected=reopenable)
    if damaged:
        report.reopened = store.reopen_units(
            run.run_id, damaged, "outputs missing or damaged at resume", now)
    after = store.get_run(run.run_id)
    report.state_after = after.state.value if after else "?"
    return report
