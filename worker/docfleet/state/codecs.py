"""Records ↔ contract types, written once for every backend: a stored unit (an SQLite or
PostgreSQL row, a Firestore document, a DynamoDB item) as a :class:`Unit`, a claim statement's
row as a :class:`Claim`, a renewed claim. Each backend reads its own record into a mapping
of the field names below (its column / field / attribute names are these) and calls these
functions, so a field's type and its default are decided here only. Pure: no I/O."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from decimal import Decimal
from typing import Any

from docfleet.core.models import Claim, Unit, UnitState

#: The stored fields of a unit, in the order the SQL stores select them.
UNIT_FIELDS = ("run_id", "idx", "start", "count", "state", "attempts", "generation",
               "lease_owner", "lease_expires_at", "last_error", "claimed_at", "finished_at",
               "part_sha256", "worked_by")


def as_int(value: Any) -> int:
    """A stored integer (an ``int``, a DynamoDB ``Decimal``); ``0`` for a missing one."""
    return int(value) if value is not None else 0


def as_float(value: Any) -> float | None:
    """A stored time (a ``float``, a DynamoDB ``Decimal``); ``None`` stays ``None``."""
    return None if value is None else float(value)


def as_decimal(value: float) -> Decimal:
    """A time as DynamoDB stores it: the shortest ``Decimal`` that reads back as the same
    float (so a conditional write on a value read back compares equal)."""
    return Decimal(repr(float(value)))


def unit_from_record(run_id: str, record: Mapping[str, Any],
                     shift: Callable[[float | None], float | None] = as_float) -> Unit:
    """The :class:`Unit` a stored record holds (keys: :data:`UNIT_FIELDS`, any may be
    missing but ``idx``, ``start``, ``count`` and ``state``). ``shift`` converts the
    stamps ``claimed_at`` and ``finished_at`` (PostgreSQL stores them on the database's
    clock and hands them back relative to it)."""
    get = record.get
    return Unit(
        run_id=run_id, index=int(record["idx"]), start=int(record["start"]),
        count=int(record["count"]), state=UnitState(record["state"]),
        attempts=as_int(get("attempts")), generation=as_int(get("generation")),
        lease_owner=get("lease_owner"), lease_expires_at=as_float(get("lease_expires_at")),
        last_error=get("last_error"), claimed_at=shift(get("claimed_at")),
        finished_at=shift(get("finished_at")), part_sha256=get("part_sha256"),
        worked_by=get("worked_by"))


def running_unit(run_id: str, index: int, *, start: int = 0, count: int = 0,
                 attempts: Any = 0, lease_owner: str | None = None,
                 lease_expires_at: Any = None) -> Unit:
    """A RUNNING unit as :meth:`~docfleet.state.base.CoordinationStore.running_units`
    returns it: its index and its lease as stored (owner ``None`` where the backend does
    not return it cheaply; start and count 0 where it does not either)."""
    return Unit(run_id, int(index), int(start), int(count), UnitState.RUNNING,
                attempts=as_int(attempts), lease_owner=lease_owner,
                lease_expires_at=as_float(lease_expires_at))


def claim_from_row(run_id: str, row: Any, expires: float) -> Claim | None:
    """The claim a claim statement returned as ``(idx, start, count, attempts, token)``,
    or ``None`` for no row; ``expires`` is the expiry the caller stated."""
    if row is None:
        return None
    idx, start, count, attempts, token = row
    return Claim(run_id=run_id, unit_index=int(idx), start=int(start), count=int(count),
                 token=token, attempts=int(attempts), lease_expires_at=expires)


def renewed(claim: Claim, expires: float) -> Claim:
    """``claim`` with its lease renewed to ``expires`` (what ``renew_lease`` returns)."""
    return replace(claim, lease_expires_at=expires)
