"""The records every state store holds: a run, its units, a claim on a unit."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any


class RunState(StrEnum):
    PENDING = "PENDING"
    RUNNING = "RUNNING"
    COMPLETED = "COMPLETED"
    FAILED = "FAILED"
    PAUSED = "PAUSED"
    CANCELLED = "CANCELLED"


class UnitState(StrEnum):
    PENDING = "PENDING"
    RUNNING = "RUNNING"
    DONE = "DONE"
    FAILED = "FAILED"


#: Run states in which workers may claim units.
CLAIMABLE_RUN_STATES = frozenset({RunState.PENDING, RunState.RUNNING})


@dataclass(frozen=True)
class RunSpec:
    """The parameters that define a run. Two tasks agree on a run only if their specs
    have the same :meth:`fingerprint`; a run id re-created with another spec is refused.

    ``out`` is where the run's outputs go (:func:`docfleet.core.outputs.canonical_out`),
    recorded with the run by the task that plans it: stored with the parameters
    (:meth:`record`) but not one of them, so it is in neither the fingerprint nor the
    root manifest (a copy of the outputs elsewhere is still the run's). ``None``: a run
    planned before output URIs were recorded."""

    run_id: str
    total: int
    unit_size: int
    pack: str
    kind: str = "generate"
    max_attempts: int = 3
    options: dict[str, Any] = field(default_factory=dict)
    out: str | None = None

    @property
    def unit_count(self) -> int:
        return -(-self.total // self.unit_size)

    def parameters(self) -> dict[str, Any]:
        """The fingerprinted parameters, as a JSON-ready dict (``out`` is not one)."""
        params = asdict(self)
        del params["out"]
        return params

    def record(self) -> str:
        """The spec as a state store keeps it (the run marker's ``params``): the
        parameters as JSON, with ``out`` when it is known. :meth:`from_parameters` reads
        it back, and reads a record without ``out`` (an older run) as ``out=None``."""
        params = self.parameters()
        if self.out is not None:
            params["out"] = self.out
        return json.dumps(params, sort_keys=True)

    def fingerprint(self) -> str:
        blob = json.dumps(self.parameters(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    @classmethod
    def from_parameters(cls, params: dict[str, Any]) -> RunSpec:
        return cls(**params)


@dataclass
class Run:
    """The run marker as stored."""

    spec: RunSpec
    fingerprint: str
    state: RunState
    planned: bool
    planner: str
    plan_heartbeat: float
    created_at: float
    updated_at: float

    @property
    def run_id(self) -> str:
        return self.spec.run_id

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> Run:
        """The run marker from a backend's stored fields (``params`` holds the spec as
        JSON); the one mapping every state store uses."""
        return cls(
            spec=RunSpec.from_parameters(json.loads(record["params"])),
            fingerprint=record["fingerprint"],
            state=RunState(record["state"]),
            planned=bool(record["planned"]),
            planner=record["planner"],
            plan_heartbeat=float(record["plan_heartbeat"]),
            created_at=float(record["created_at"]),
            updated_at=float(record["updated_at"]),
        )


@dataclass
class Unit:
    """One work unit: documents ``[start, start + count)`` of a run."""

    run_id: str
    index: int
    start: int
    count: int
    state: UnitState = UnitState.PENDING
    attempts: int = 0
    generation: int = 0
    lease_owner: str | None = None
    lease_expires_at: float | None = None
    last_error: str | None = None
    claimed_at: float | None = None
    finished_at: float | None = None
    part_sha256: str | None = None
    worked_by: str | None = None

    @property
    def stop(self) -> int:
        return self.start + self.count


@dataclass(frozen=True)
class Claim:
    """A live claim on a unit. ``token`` fences every later write: it is the claiming
    task's identity plus the unit's claim generation, so it is never reused."""

    run_id: str
    unit_index: int
    start: int
    count: int
    token: str
    attempts: int
    lease_expires_at: float
    #: Whether the claim already spent its attempt (``attempts`` counts it). A unit claimed
    #: ahead in a batch (PostgreSQL) is not charged until work on it starts
    #: (:func:`docfleet.state.optional.start_unit`): an attempt is spent by starting a
    #: unit, never by being claimed ahead.
    charged: bool = True

    @property
    def indexes(self) -> range:
        return range(self.start, self.start + self.count)


def claim_token(owner: str, unit_index: int, generation: int) -> str:
    """The fencing token of one claim: unique per (task identity, unit, claim generation)."""
    return f"{owner}#u{unit_index}.g{generation}"


@dataclass
class Progress:
    """Unit counts by state."""

    counts: dict[UnitState, int]

    def __getitem__(self, state: UnitState) -> int:
        return self.counts.get(state, 0)

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def done(self) -> bool:
        return self.total > 0 and self[UnitState.DONE] == self.total

    @property
    def drained(self) -> bool:
        """Nothing left to claim or wait for: every unit is DONE or FAILED."""
        return self[UnitState.PENDING] == 0 and self[UnitState.RUNNING] == 0

    def as_dict(self) -> dict[str, int]:
        return {s.value: self[s] for s in UnitState}
