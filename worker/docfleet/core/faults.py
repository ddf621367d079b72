"""Fault points for the chaos suite (``tests/chaos/``, ``bench/chaos.py``).

Read once from the environment at import. With no ``DOCFLEET_FAULT_*`` variable set,
``ARMED`` is ``False`` and every call site is one constant-False check::

    if faults.ARMED:
        faults.hit("unit.part")

- ``DOCFLEET_FAULT_CRASH="POINT@N[,POINT@N…]"``: the process dies (``os._exit(137)``, as
  a SIGKILL or an OOM kill would leave it) on the N-th pass through POINT (1-based),
  counted per process. Points:

  ``plan.start``  the plan was won, no unit written yet;
  ``plan.batch``  after each batch of units is written (``plan.batch@K``: after K batches);
  ``unit.part``   a unit's part is written, its completion is not;
  ``root.before`` every unit is DONE and checked, the root manifest not yet written;
  ``root.after``  the root is written, the run not yet marked COMPLETED.

- ``DOCFLEET_FAULT_BLOB_PUT="MODE:SUBSTRING[@N][,…]"``: every put (or only the first N,
  per process) of a run file whose key contains SUBSTRING fails. MODE ``fail``: nothing
  is written and the put raises; ``partial``: a truncated object is left at the key and
  the put raises (an upload cut short); ``crash``: a truncated object is left and the
  process dies.
- ``DOCFLEET_FAULT_PLAN_BATCH=N``: plan in batches of N units (to reach ``plan.batch``
  with a small run).
- ``DOCFLEET_FAULT_CLOCK_SKEW_SECONDS`` (in :mod:`docfleet.core.clock`): shift this worker's
  clock.
"""

from __future__ import annotations

import os
import sys
from collections import Counter
from typing import Protocol

CRASH_ENV = "DOCFLEET_FAULT_CRASH"
BLOB_PUT_ENV = "DOCFLEET_FAULT_BLOB_PUT"
PLAN_BATCH_ENV = "DOCFLEET_FAULT_PLAN_BATCH"
POINTS = frozenset({"plan.start", "plan.batch", "unit.part", "root.before", "root.after"})
BLOB_MODES = frozenset({"fail", "partial", "crash"})
CRASH_EXIT = 137


class _Puts(Protocol):
    """What a blob fault needs of a blob store (:class:`docfleet.blob.base.BlobStore`)."""

    def put(self, key: str, data: bytes) -> None: ...


class InjectedBlobFault(OSError):
    """A blob put failed by ``DOCFLEET_FAULT_BLOB_PUT``."""


def _parse_crash(raw: str) -> dict[str, int]:
    points: dict[str, int] = {}
    for item in filter(None, (x.strip() for x in raw.split(","))):
        point, _, nth = item.partition("@")
        if point not in POINTS or not (nth or "1").isdigit() or int(nth or 1) < 1:
            raise SystemExit(f"error: {CRASH_ENV}: bad fault {item!r} "
                             f"(POINT@N, POINT one of {', '.join(sorted(POINTS))})")
        points[point] = int(nth or 1)
    return points


def _parse_blob(raw: str) -> list[tuple[str, str, int | None]]:
    specs = []
    for item in filter(None, (x.strip() for x in raw.split(","))):
        mode, sep, rest = item.partition(":")
        target, _, times = rest.rpartition("@") if "@" in rest else (rest, "", "")
        if mode not in BLOB_MODES or not sep or not target or (times and not times.isdigit()):
            raise SystemExit(f"error: {BLOB_PUT_ENV}: bad fault {item!r} "
                             "(MODE:SUBSTRING[@N], MODE fail|partial|crash)")
        specs.append((mode, target, int(times) if times else None))
    return specs


_CRASH = _parse_crash(os.environ.get(CRASH_ENV, ""))
_BLOB = _parse_blob(os.environ.get(BLOB_PUT_ENV, ""))
#: Planner batch size override (``None``: the planner's own).
PLAN_BATCH: int | None = int(os.environ.get(PLAN_BATCH_ENV) or 0) or None
#: Whether any fault point is set in this process.
ARMED: bool = bool(_CRASH or _BLOB)
_passes: Counter[str] = Counter()


def _die(why: str) -> None:
    sys.stdout.write(f'{{"event": "fault.crash", "point": "{why}"}}\n')
    sys.stdout.flush()
    os._exit(CRASH_EXIT)


def hit(point: str) -> None:
    """Count one pass through ``point``; die on the configured pass."""
    _passes[point] += 1
    if _CRASH.get(point) == _passes[point]:
        _die(point)


def blob_put(blob: _Puts, key: str, data: bytes) -> None:
    """Before ``blob.put(key, data)``: apply ``DOCFLEET_FAULT_BLOB_PUT`` if it targets
    ``key`` (raise :class:`InjectedBlobFault`, maybe after leaving a truncated object)."""
    for mode, target, times in _BLOB:
        if target not in key:
            continue
        _passes[f"blob:{target}"] += 1
        if times is not None and _passes[f"blob:{target}"] > times:
            continue
        if mode != "fail":
            blob.put(key, data[: len(data) // 2])
        if mode == "crash":
            _die(f"blob.put {key}")
        raise InjectedBlobFault(f"injected {mode} upload of {key}")
