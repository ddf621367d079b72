"""Attribute builders: the span attributes of a state store, a claim and a task, named
once here so every span that carries them agrees. URIs go through
:func:`docfleet.core.uris.redact` (no credentials, no query)."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from docfleet.core.backends import db_system
from docfleet.core.uris import redact

if TYPE_CHECKING:
    from docfleet.core.identity import TaskIdentity
    from docfleet.core.models import Claim


@functools.lru_cache(maxsize=8)
def db_attributes(state_uri: str) -> dict[str, Any]:
    """OpenTelemetry database attributes of a state store (``db.system.name``,
    ``db.namespace``) from its URI, without credentials."""
    return {"db.system.name": db_system(urlsplit(state_uri).scheme),
            "db.namespace": redact(state_uri)}


def claim_attributes(
    claim: Claim | None, seconds: float, races_before: int | None, races_after: int | None
) -> dict[str, Any]:
    """The result attributes of a ``docfleet.claim`` span. Lost races (and so candidates
    tried) appear only when the backend counts them (a ``lost_races`` attribute)."""
    attrs: dict[str, Any] = {"docfleet.claim.outcome": "claimed" if claim else "empty",
                             "docfleet.claim.latency_ms": round(seconds * 1000, 3)}
    if claim is not None:
        attrs["docfleet.unit.index"] = claim.unit_index
        attrs["docfleet.unit.attempt"] = claim.attempts
    if races_before is not None and races_after is not None:
        lost = races_after - races_before
        attrs["docfleet.claim.lost_races"] = lost
        attrs["docfleet.claim.candidates_tried"] = lost + (claim is not None)
    return attrs




def task_attributes(identity: TaskIdentity, run_id: str, state_uri: str, out_uri: str
                    ) -> dict[str, Any]:
    """The attributes of a task's root span ``docfleet.task``."""
    return {
        "docfleet.run_id": run_id, "docfleet.task.index": identity.index,
        "docfleet.task.count": identity.count, "docfleet.task.attempt": identity.attempt,
        "docfleet.task.execution": identity.execution, "docfleet.task.engine": identity.engine,
        "docfleet.state.uri": redact(state_uri), "docfleet.out.uri": redact(out_uri),
        "process.pid": identity.pid,
    }
