"""``docfleet run --dry-run``: the plan a run would get (units, unit size, tasks) and its
estimated documents, pages, bytes and CPU time from the pack's measured cost, without
writing state or outputs."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from docfleet.core.errors import RunNotFoundError
from docfleet.core.models import Run, RunSpec
from docfleet.core.settings import Settings
from docfleet.kernel.admission import admit_out, require_run_id, resolve_spec
from docfleet.packs import load_pack
from docfleet.state import open_state_store
from docfleet.state.base import check_fingerprint


@dataclass(frozen=True)
class DryRunPlan:
    """What ``docfleet run`` would do; ``cost`` is per document (``None``: the pack
    publishes no cost), ``existing`` the stored run's state if the run exists."""

    spec: RunSpec
    tasks: int
    existing: str | None
    cost: dict[str, float] | None
    state_uri: str
    out_uri: str

    def estimate(self) -> dict[str, float] | None:
        if self.cost is None:
            return None
        n = self.spec.total
        return {"documents": n, "pages": round(self.cost["pages"] * n),
                "bytes": round(self.cost["bytes"] * n),
                "cpu_seconds": self.cost["cpu_seconds"] * n}


class _Nothing:
    """A state store that holds no run (the dry run of a store that does not exist yet)."""

    def get_run(self, run_id: str) -> Run | None:
        return None


def _stored_run(settings: Settings) -> tuple[Any, Run | None]:
    """The state store and the run in it, opening nothing that would be created: a SQLite
    file that does not exist yet holds no run."""

    try:
        store = open_state_store(settings.state, create=False)
    except RunNotFoundError:  # a local database that does not exist yet holds no run
        return _Nothing(), None
    return store, store.get_run(settings.run_id or "")


def dry_run_plan(settings: Settings, tasks: int) -> DryRunPlan:
    """Resolve the run as ``docfleet run`` would (same spec, same checks, including the
    fingerprint of a stored run) and estimate it. Writes nothing. Raises
    :class:`ConfigError` / :class:`RunConflictError` as a real run would."""

    require_run_id(settings)
    store, existing = _stored_run(settings)
    settings = admit_out(settings, store)  # a stored run's recorded output URI
    spec = resolve_spec(settings, store, tasks, logging.getLogger("docfleet.dryrun"))
    if existing is not None:
        check_fingerprint(existing, spec)
    cost = load_pack(spec.pack).cost(spec.options)
    return DryRunPlan(spec, tasks, existing.state.value if existing else None, cost,
                      settings.state, settings.out)


def _size(n: float) -> str:
    for unit in ("B", "kB", "MB", "GB", "TB"):
        if n < 1000 or unit == "TB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} TB"


def _duration(seconds: float) -> str:
    s = int(seconds + 0.5)
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m {s % 60:02d}s"
    return f"{s // 3600}h {s // 60 % 60:02d}m"


def plan_lines(plan: DryRunPlan) -> list[str]:
    """The plan as short lines (each under 80 columns for ordinary run ids)."""
    spec = plan.spec
    last = spec.total - (spec.unit_count - 1) * spec.unit_size
    lines = [
        f"dry run of {spec.run_id} (nothing written)",
        f"  pack {spec.pack}, {spec.total} documents",
        f"  {spec.unit_count} units of {spec.unit_size}"
        + (f" (last {last})" if last != spec.unit_size else "")
        + f", {plan.tasks} tasks, {spec.unit_count / plan.tasks:.1f} units per task",
        "  run: " + (f"exists ({plan.existing}), same parameters: would resume"
                     if plan.existing else "new: would be planned"),
    ]
    estimate = plan.estimate()
    if estimate is None:
        lines.append(f"  estimate: pack {spec.pack} publishes no measured cost")
    else:
        cpu = estimate["cpu_seconds"]
        lines.append(f"  estimate: {estimate['pages']} pages, {_size(estimate['bytes'])}, "
                     f"CPU {_duration(cpu)}")
        lines.append(f"  ≈ {_duration(cpu / plan.tasks)} with {plan.tasks} tasks on free "
                     "cores (the pack's measured cost)")
    lines.append(f"  state {plan.state_uri}")
    lines.append(f"  out   {plan.out_uri}")
    return lines
