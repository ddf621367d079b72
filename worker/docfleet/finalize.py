"""Finalize: when every unit is DONE, write the root manifest exactly once and mark the
run COMPLETED. The root refuses to write over a gap."""

from __future__ import annotations

import logging

from docfleet import clock, faults, telemetry
from docfleet.errors import BlobNotFoundError, ManifestGapError
from docfleet.manifest import ROOT_KEY, RunFiles, build_root, parse_json, part_key, sha256
from docfleet.models import RunState, UnitState
from docfleet.state.base import StateStore


def find_gaps(store: StateStore, files: RunFiles) -> tuple[list[str], list[tuple[int, bytes]]]:
    """Check every DONE unit's part against the sha256 the store recorded at completion,
    and that every file the part lists exists. Returns (problems, parts)."""
    listed = set(files.blob.list(files.key("")))
    problems: list[str] = []
    parts: list[tuple[int, bytes]] = []
    for unit in store.units(files.run_id):
        if unit.state != UnitState.DONE:
            problems.append(f"unit {unit.index} is {unit.state.value}, not DONE")
            continue
        key = part_key(unit.index)
        try:
            data = files.get(key)
        except BlobNotFoundError:
            problems.append(f"unit {unit.index}: part {files.uri(key)} is missing")
            continue
        if sha256(data) != unit.part_sha256:
            problems.append(f"unit {unit.index}: part {files.uri(key)} does not match "
                            "the sha256 recorded when the unit completed")
            continue
        try:
            part = parse_json(data, files.uri(key))
        except ManifestGapError as exc:
            problems.append(f"unit {unit.index}: {exc.message}")
            continue
        missing = [e["key"] for e in [*part["documents"], *part["shards"]]
                   if files.key(e["key"]) not in listed]
        if missing:
            problems.append(f"unit {unit.index}: {len(missing)} file(s) missing, first "
                            f"{files.uri(missing[0])}")
            continue
        parts.append((unit.index, data))
    return problems, parts


def finalize_run(store: StateStore, files: RunFiles, log: logging.Logger) -> bool:
    """Write the root manifest create-if-absent and move the run to COMPLETED. Returns
    whether this call wrote the root. Idempotent; safe to race. Raises
    :class:`ManifestGapError` naming every unit with a missing or mismatched output."""
    run = store.get_run(files.run_id)
    assert run is not None
    if files.exists(ROOT_KEY):
        store.set_run_state(run.run_id, RunState.COMPLETED, clock.now(),
                            expected=[RunState.RUNNING, RunState.PENDING, RunState.FAILED])
        return False
    problems, parts = find_gaps(store, files)
    if problems:
        raise ManifestGapError(
            f"refusing to write the root manifest of run {run.run_id}: " + "; ".join(problems),
            f"run 'docfleet resume {run.run_id}' to regenerate those units",
        )
    from docfleet.environment import generator_environment

    root = build_root(run.run_id, run.spec.parameters(), run.fingerprint, parts,
                      environment=generator_environment())
    if faults.ARMED:
        faults.hit("root.before")
    with telemetry.span("docfleet.manifest.root", {
        "docfleet.manifest.key": ROOT_KEY, "docfleet.manifest.sha256": sha256(root),
        "docfleet.manifest.size": len(root), "docfleet.manifest.units": len(parts),
    }) as s:
        wrote = files.put_if_absent(ROOT_KEY, root)
        s.set_attribute("docfleet.manifest.written", wrote)
    if faults.ARMED:
        faults.hit("root.after")
    if wrote:
        log.info("root manifest written: %s", files.uri(ROOT_KEY),
                 extra={"event": "manifest.root", "sha256": sha256(root), "bytes": len(root)})
    store.set_run_state(run.run_id, RunState.COMPLETED, clock.now(),
                        expected=[RunState.RUNNING, RunState.PENDING, RunState.FAILED])
    return wrote
