"""Store operation counting: requests, items read and written, and billed units, counted
at the store's own client (boto3 event hooks, the Firestore GAPIC client, SQLite's trace
callback, PostgreSQL's statements: each backend's ``state/<backend>/instrument.py``), per
phase of a task's life. ``bench/scale.py`` and the scale tests read it.

Off unless asked for: set ``DOCFLEET_STORE_OPS=/path/file.json`` and every state store
the process opens is instrumented and the counts are written to that file at exit (one
file per process: ``{pid}`` in the path is replaced by the process id). In-process
callers use :func:`instrument` and :data:`COUNTS` directly.

Billing approximations (the model in ``bench/scale.py`` states them): a DynamoDB read
costs one read unit per 4 KB of items returned per request (strongly consistent), a
write one write unit per item (items here are < 1 KB), twice that inside a transaction;
a Firestore query or lookup costs one read per document returned (at least one per
query), an aggregation one read per 1,000 index entries counted (at least one), a commit
one write per document written.
"""

from __future__ import annotations

import atexit
import json
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from docfleet.core.backends import backend, schemes

ENV = "DOCFLEET_STORE_OPS"
FIELDS = ("requests", "items_read", "items_written", "read_units", "write_units")


@dataclass
class OpCounts:
    """Counts per (phase, operation) and named event marks, thread-safe."""

    phase: str = "other"
    ops: dict[str, dict[str, dict[str, float]]] = field(default_factory=dict)
    marks: dict[str, dict[str, int]] = field(default_factory=dict)
    #: Write units per partition key (DynamoDB only: ``pk`` of every item written).
    keys: dict[str, float] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    #: A phase of one thread's own (the lease watch's thread: ``watch``), over ``phase``.
    _local: threading.local = field(default_factory=threading.local, repr=False)

    def current(self) -> str:
        """The phase of the calling thread: its own (:func:`thread_phase`) or the task's."""
        own: str | None = getattr(self._local, "phase", None)
        return own if own is not None else self.phase

    def add(self, op: str, *, requests: int = 1, items_read: int = 0, items_written: int = 0,
            read_units: float = 0.0, write_units: float = 0.0) -> None:
        with self._lock:
            row = self.ops.setdefault(self.current(), {}).setdefault(
                op, dict.fromkeys(FIELDS, 0))
            row["requests"] += requests
            row["items_read"] += items_read
            row["items_written"] += items_written
            row["read_units"] += read_units
            row["write_units"] += write_units

    def add_key(self, key: str, write_units: float) -> None:
        """Count ``write_units`` against partition key ``key``."""
        with self._lock:
            self.keys[key] = self.keys.get(key, 0.0) + write_units

    def mark(self, name: str, n: int = 1) -> None:
        """Count an event (an idle poll, a claim) in the current phase."""
        with self._lock:
            marks = self.marks.setdefault(self.current(), {})
            marks[name] = marks.get(name, 0) + n

    def set_phase(self, phase: str) -> None:
        self.phase = phase

    def move(self, source: str, target: str) -> None:
        """Add phase ``source``'s counts to ``target`` and clear ``source`` (an empty
        claim is idle traffic, a successful one drain traffic: known only afterwards)."""
        with self._lock:
            moved = self.ops.pop(source, None)
            if not moved:
                return
            into = self.ops.setdefault(target, {})
            for op, row in moved.items():
                dst = into.setdefault(op, dict.fromkeys(FIELDS, 0))
                for k in FIELDS:
                    dst[k] += row[k]

    def totals(self, phase: str | None = None) -> dict[str, float]:
        """Sums over operations of one phase (or of all phases)."""
        out = dict.fromkeys(FIELDS, 0.0)
        with self._lock:
            for ph, ops in self.ops.items():
                if phase is not None and ph != phase:
                    continue
                for row in ops.values():
                    for k in FIELDS:
                        out[k] += row[k]
        return out

    def reset(self) -> None:
        with self._lock:
            self.ops.clear()
            self.marks.clear()
            self.keys.clear()
        self.phase = "other"

    def as_dict(self) -> dict[str, Any]:
        with self._lock:
            return {"pid": os.getpid(), "ops": json.loads(json.dumps(self.ops)),
                    "marks": json.loads(json.dumps(self.marks)), "keys": dict(self.keys)}


#: This process's counts.
COUNTS = OpCounts()
_dump_registered = False


def set_phase(phase: str) -> None:
    """Label the operations that follow (``plan``, ``drain``, ``idle``, ``finish``, …)."""
    COUNTS.set_phase(phase)


def mark(name: str, n: int = 1) -> None:
    COUNTS.mark(name, n)


@contextmanager
def phase(name: str) -> Iterator[None]:
    previous = COUNTS.phase
    COUNTS.set_phase(name)
    try:
        yield
    finally:
        COUNTS.set_phase(previous)


@contextmanager
def thread_phase(name: str) -> Iterator[None]:
    """Label the calling thread's operations ``name`` (a background role such as the
    lease watch, ``watch``; or what a task does by the clock rather than per unit: a
    lease renewal, ``renew``, a run-state check, ``state_check``), whatever phase the
    task's main loop is in meanwhile."""
    previous = getattr(COUNTS._local, "phase", None)
    COUNTS._local.phase = name
    try:
        yield
    finally:
        COUNTS._local.phase = previous


def move(source: str, target: str) -> None:
    COUNTS.move(source, target)


def enabled() -> bool:
    return bool(os.environ.get(ENV))


def maybe_instrument(store: Any) -> None:
    """Instrument ``store`` if ``DOCFLEET_STORE_OPS`` is set, and write the counts to
    that file when the process exits. A no-op otherwise."""
    global _dump_registered
    path = os.environ.get(ENV)
    if not path:
        return
    instrument(store)
    if not _dump_registered:
        _dump_registered = True
        atexit.register(dump, path.replace("{pid}", str(os.getpid())))


def dump(path: str) -> None:
    """Write :data:`COUNTS` as JSON to ``path`` (atomically: a temp file renamed)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text(json.dumps(COUNTS.as_dict(), sort_keys=True))
    tmp.replace(target)


def instrument(store: Any, counts: OpCounts | None = None) -> None:
    """Count every request ``store`` sends from now on into ``counts`` (default
    :data:`COUNTS`), by its backend's ``instrument`` hook (named in
    :mod:`docfleet.core.backends`, written in ``state/<backend>/instrument.py``).
    Idempotent per store. Raises ``TypeError`` for a store of no known backend."""
    counts = counts or COUNTS
    if getattr(store, "_opcount_attached", False):
        return
    scheme = str(store.uri).partition("://")[0]
    if scheme not in schemes():
        raise TypeError(f"cannot count operations of {type(store).__name__}")
    backend(scheme).hook("instrument")(store, counts)
    store._opcount_attached = True


# -- SQL statements ------------------------------------------------------------------------
def count_sql(counts: OpCounts, backend: str, sql: str) -> None:
    """Count one SQL statement of ``backend``: a write statement (INSERT/UPDATE/DELETE) is a
    write request, a SELECT (or WITH) a read request; other statements are not counted."""
    head = sql.lstrip().split(None, 1)[0].upper() if sql.strip() else ""
    if head in ("SELECT", "WITH"):
        counts.add(f"{backend}.select", read_units=1.0)
    elif head in ("INSERT", "UPDATE", "DELETE", "REPLACE"):
        counts.add(f"{backend}.{head.lower()}", write_units=1.0)


# -- reading the dumps ------------------------------------------------------------------
def load(paths: list[Path]) -> list[dict[str, Any]]:
    """The dumps of a fleet's processes (``DOCFLEET_STORE_OPS`` files)."""
    return [json.loads(p.read_text()) for p in sorted(paths)]


def phase_totals(dump_: dict[str, Any], phase: str) -> dict[str, float]:
    """One process's sums over the operations of ``phase``."""
    out = dict.fromkeys(FIELDS, 0.0)
    for row in dump_.get("ops", {}).get(phase, {}).values():
        for k in FIELDS:
            out[k] += row[k]
    return out


def key_writes(dumps: list[dict[str, Any]]) -> dict[str, float]:
    """Write units per partition key, summed over a fleet's dumps (DynamoDB)."""
    out: dict[str, float] = {}
    for d in dumps:
        for key, units in d.get("keys", {}).items():
            out[key] = out.get(key, 0.0) + units
    return out


def marks(dump_: dict[str, Any]) -> dict[str, int]:
    """One process's event marks summed over phases."""
    out: dict[str, int] = {}
    for per_phase in dump_.get("marks", {}).values():
        for name, n in per_phase.items():
            out[name] = out.get(name, 0) + n
    return out
