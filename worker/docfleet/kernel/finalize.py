"""Finalize: when every unit is DONE, prove the run whole and write the root manifest
exactly once, then mark the run COMPLETED. The root is a proof: it is written only after
the same checks ``docfleet verify`` makes (every part, document and shard re-hashed against
the sha256 recorded for it), and it is bound to its run (fingerprint, total, unit size,
unit count, every part's sha256), so a root left by another run is never taken as done."""

from __future__ import annotations

import logging

from docfleet import telemetry
from docfleet.core import clock, faults
from docfleet.core.environment import generator_environment
from docfleet.core.errors import (
    DocfleetError,
    ManifestGapError,
    RootConflictError,
    RunNotFoundError,
)
from docfleet.core.models import Run, RunState, Unit, UnitState
from docfleet.dataset.manifest import (
    ROOT_KEY,
    RunFiles,
    build_root,
    check_part,
    read_root,
    root_binding_problems,
    sha256,
)
from docfleet.state.base import CoordinationStore


def find_gaps(
    store: CoordinationStore, files: RunFiles, units: list[Unit] | None = None,
) -> tuple[list[str], list[tuple[int, bytes]]]:
    """Check every unit: DONE, its part matching the sha256 the store recorded at
    completion, and every file the part lists present with its recorded sha256 and size
    (streamed, one file at a time). Read-only. Returns (problems, intact parts)."""
    run = store.get_run(files.run_id)
    params = run.spec.parameters() if run is not None else None
    problems: list[str] = []
    parts: list[tuple[int, bytes]] = []
    for unit in units if units is not None else store.units(files.run_id):
        if unit.state != UnitState.DONE:
            problems.append(f"unit {unit.index} is {unit.state.value}, not DONE")
            continue
        unit_problems, data = check_part(files, unit.index, unit.part_sha256, params)
        if unit_problems or data is None:
            problems.append(unit_problems[0] + (f" (+{len(unit_problems) - 1} more)"
                                                if len(unit_problems) > 1 else ""))
            continue
        parts.append((unit.index, data))
    return problems, parts


def binding_of(run: Run, units: list[Unit]) -> tuple[str, dict, dict[int, str | None]]:
    """What a root of ``run`` must match: (fingerprint, parameters, unit → part sha256)."""
    return run.fingerprint, run.spec.parameters(), {u.index: u.part_sha256 for u in units}


def root_problems(store: CoordinationStore, files: RunFiles, run: Run,
                  units: list[Unit] | None = None) -> list[str] | None:
    """``None`` when the run has no root; else the reasons its root is not this run's
    (empty: it is parsable and bound to the run). Cheap: reads the root, not the files."""
    if not files.exists(ROOT_KEY):
        return None
    root, problems = read_root(files)
    if root is None:
        return problems
    units = units if units is not None else store.units(run.run_id)
    return root_binding_problems(root, *binding_of(run, units))


def _conflict(files: RunFiles, run: Run, problems: list[str]) -> RootConflictError:
    return RootConflictError(
        f"refusing the root manifest at {files.uri(ROOT_KEY)} as the root of run "
        f"{run.run_id}: {problems[0]}",
        f"it is another run's (or damaged): use another --out or --run-id, or run "
        f"'docfleet resume {run.run_id}' to replace it",
    )


def finalize_run(store: CoordinationStore, files: RunFiles, log: logging.Logger) -> bool:
    """Prove the run whole, write the root manifest create-if-absent and move the run to
    COMPLETED. Returns whether this call wrote the root. Idempotent; safe to race.

    Raises :class:`ManifestGapError` naming every unit with a missing or mismatched
    output (nothing written), and :class:`RootConflictError` (a ManifestGapError) when a
    root already at the key is not this run's (the run is not marked COMPLETED), and
    :class:`RunNotFoundError` for a run no longer in the store (deleted)."""
    run = store.get_run(files.run_id)
    if run is None:  # deleted (docfleet delete --force) while its fleet worked
        raise RunNotFoundError(f"run '{files.run_id}' is gone from {store.uri}",
                               "it was deleted: nothing is left to finalize")
    units = store.units(run.run_id)
    existing = root_problems(store, files, run, units)
    if existing is not None:
        if existing:
            raise _conflict(files, run, existing)
        store.set_run_state(run.run_id, RunState.COMPLETED, clock.now(),
                            expected=[RunState.RUNNING, RunState.PENDING, RunState.FAILED])
        return False
    with telemetry.span("docfleet.manifest.check", {"docfleet.manifest.units": len(units)}):
        problems, parts = find_gaps(store, files, units)
    if problems:
        raise ManifestGapError(
            f"refusing to write the root manifest of run {run.run_id}: " + "; ".join(problems),
            f"run 'docfleet resume {run.run_id}' to regenerate those units",
        )

    root = build_root(run.run_id, run.spec.parameters(), run.fingerprint, parts,
                      environment=generator_environment())
    files.sync()  # the files the root proves are durable before the root exists
    if faults.ARMED:
        faults.hit("root.before")
    if store.get_run(run.run_id) is None:  # deleted during the proof: write no root
        raise RunNotFoundError(f"run '{run.run_id}' is gone from {store.uri}",
                               "it was deleted: nothing is left to finalize")
    with telemetry.span("docfleet.manifest.root", {
        "docfleet.manifest.key": ROOT_KEY, "docfleet.manifest.sha256": sha256(root),
        "docfleet.manifest.size": len(root), "docfleet.manifest.units": len(parts),
    }) as s:
        wrote = files.put_if_absent(ROOT_KEY, root)
        s.set_attribute("docfleet.manifest.written", wrote)
    if not wrote:  # a peer's root landed first: it must be this very root
        try:
            same = files.get(ROOT_KEY) == root
        except DocfleetError:
            same = False
        if not same:
            problems = root_problems(store, files, run, units) or []
            if problems:
                raise _conflict(files, run, problems)
    if faults.ARMED:
        faults.hit("root.after")
    if wrote:
        log.info("root manifest written: %s", files.uri(ROOT_KEY),
                 extra={"event": "manifest.root", "sha256": sha256(root), "bytes": len(root)})
    store.set_run_state(run.run_id, RunState.COMPLETED, clock.now(),
                        expected=[RunState.RUNNING, RunState.PENDING, RunState.FAILED])
    return wrote
