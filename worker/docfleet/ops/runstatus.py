"""One run's state, read once from its store: what ``docfleet status`` says (its state,
units and failures, and whether a run the store calls COMPLETED really is: its root
manifest present and its own), and the readings the other views share: the run or a
one-line error (:func:`open_run`), the documents done (:func:`documents_done`), the failed
units as rows and lines (:func:`failed_unit_rows`, :func:`failed_unit_lines`). Reads
only; any number of readers may call it while the fleet works.

One of three views of a run, each with one job: this module (``status``), :mod:`.fleetview`
(a local fleet while it works, on the terminal), :mod:`.report` (the HTML page)."""

from __future__ import annotations

from typing import Any

from docfleet.blob import open_blob_store
from docfleet.core.errors import RunNotFoundError
from docfleet.core.models import Run, RunState, Unit, UnitState
from docfleet.dataset.manifest import RunFiles, part_key
from docfleet.kernel.finalize import root_problems
from docfleet.state.base import StateStore

#: the states after which a run changes no more by itself
TERMINAL_STATES = {RunState.COMPLETED, RunState.FAILED, RunState.CANCELLED}
#: ``status`` of a run the store calls COMPLETED whose root is missing or not its own.
INCOMPLETE = "INCOMPLETE"
#: Failed units listed on the terminal (the rest: ``docfleet status ID --json``).
FAILED_SHOWN = 20


def open_run(store: StateStore, run_id: str) -> Run:
    """The stored run ``run_id``; raises :class:`RunNotFoundError` if there is none."""
    run = store.get_run(run_id)
    if run is None:
        raise RunNotFoundError(f"run '{run_id}' does not exist in {store.uri}",
                               "check the run id and --state")
    return run


def documents_done(units: list[Unit]) -> int:
    """The documents of the DONE units."""
    return sum(u.count for u in units if u.state == UnitState.DONE)


def failed_unit_rows(units: list[Unit]) -> list[dict[str, Any]]:
    """The FAILED units as ``{index, documents: [first, last], attempts, error}``."""
    return [{"index": u.index, "documents": [u.start, u.stop - 1], "attempts": u.attempts,
             "error": u.last_error or ""} for u in units if u.state == UnitState.FAILED]


def failed_unit_lines(rows: list[dict[str, Any]], run_id: str) -> list[str]:
    """One line per failed unit (at most :data:`FAILED_SHOWN`), then how to see the rest
    and how to retry them."""
    lines = [f"unit {r['index']} (documents {r['documents'][0]}-{r['documents'][1]}) failed "
             f"after {r['attempts']} attempt(s): {r['error']}" for r in rows[:FAILED_SHOWN]]
    if len(rows) > FAILED_SHOWN:
        lines.append(f"… and {len(rows) - FAILED_SHOWN} more: docfleet status {run_id} --json")
    if rows:
        lines.append(f"fix the cause, then: docfleet resume {run_id} && docfleet run "
                     f"--run-id {run_id}")
    return lines


def outputs_present(files: RunFiles, unit_count: int) -> bool:
    """Whether anything of the run is under ``files``: the part of its first, middle or
    last unit (three reads, whatever the run's size). False says the outputs are
    elsewhere or gone, not that they are damaged."""
    picks = {0, unit_count // 2, max(0, unit_count - 1)}
    return any(files.exists(part_key(i)) for i in sorted(picks))


def run_status(store: StateStore, run_id: str, out: str) -> dict[str, Any]:
    """The status of run ``run_id`` as ``status --json`` prints it. ``state`` is
    :data:`INCOMPLETE` (with a ``problem``) for a COMPLETED run whose root manifest under
    ``out`` is missing or does not match the run; with no root, ``outputs_found`` says
    whether any of its parts is there (:func:`outputs_present`: if none is, the outputs
    may simply be elsewhere). ``out``: the output URI read, also in the result and
    ``out_recorded`` the one the run recorded (``None`` for a run planned before output
    URIs were recorded). Raises :class:`RunNotFoundError`."""
    run = open_run(store, run_id)
    units = store.units(run_id)
    info = {
        "run_id": run_id,
        "state": run.state.value,
        "planned": run.planned,
        "total": run.spec.total,
        "unit_size": run.spec.unit_size,
        "units": store.progress(run_id).as_dict(),
        "documents_done": documents_done(units),
        "failed_units": failed_unit_rows(units),
        "created_at": run.created_at,
        "updated_at": run.updated_at,
        "spend_nano_usd": store.total_spend(run_id),
        "out": out,
        "out_recorded": run.spec.out,
    }
    if run.state == RunState.COMPLETED:  # COMPLETED only with a valid root of this run
        files = RunFiles(open_blob_store(out), run_id)
        problems = root_problems(store, files, run)
        if problems is None or problems:
            info["state"] = INCOMPLETE
            info["problem"] = (problems or [f"no root manifest at {out.rstrip('/')}/{run_id}/"
                                            "manifest.json"])[0]
        if problems is None:
            info["outputs_found"] = outputs_present(files, run.spec.unit_count)
    return info
