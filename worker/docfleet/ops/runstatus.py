"""What ``docfleet status`` says about a run: its state, units and failures, and whether a
run the store calls COMPLETED really is (its root manifest present and its own). Reads
only; any number of readers may call it while the fleet works."""

from __future__ import annotations

from typing import Any

from docfleet.blob import open_blob_store
from docfleet.core.errors import RunNotFoundError
from docfleet.core.models import Run, RunState, UnitState
from docfleet.dataset.manifest import RunFiles
from docfleet.state.base import StateStore

#: the states after which a run changes no more by itself
TERMINAL_STATES = {RunState.COMPLETED, RunState.FAILED, RunState.CANCELLED}
#: ``status`` of a run the store calls COMPLETED whose root is missing or not its own.
INCOMPLETE = "INCOMPLETE"


def open_run(store: StateStore, run_id: str) -> Run:
    """The stored run ``run_id``; raises :class:`RunNotFoundError` if there is none."""
    run = store.get_run(run_id)
    if run is None:
        raise RunNotFoundError(f"run '{run_id}' does not exist in {store.uri}",
                               "check the run id and --state")
    return run


def run_status(store: StateStore, run_id: str, out: str) -> dict[str, Any]:
    """The status of run ``run_id`` as ``status --json`` prints it. ``state`` is
    :data:`INCOMPLETE` (with a ``problem``) for a COMPLETED run whose root manifest under
    ``out`` is missing or does not match the run. Raises :class:`RunNotFoundError`."""
    from docfleet.ops.fleetview import failed_unit_rows

    run = open_run(store, run_id)
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
        from docfleet.kernel.finalize import root_problems

        problems = root_problems(store, RunFiles(open_blob_store(out), run_id), run)
        if problems is None or problems:
            info["state"] = INCOMPLETE
            info["problem"] = (problems or [f"no root manifest at {out.rstrip('/')}/{run_id}/"
                                            "manifest.json"])[0]
    return info
