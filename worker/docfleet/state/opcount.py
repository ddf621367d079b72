"""Store operation counting: requests, items read and written, and billed units, counted
at the store's own client (boto3 event hooks, the Firestore GAPIC client, SQLite's trace
callback), per phase of a task's life. ``bench/scale.py`` and the scale tests read it.

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
import math
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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

    def add(self, op: str, *, requests: int = 1, items_read: int = 0, items_written: int = 0,
            read_units: float = 0.0, write_units: float = 0.0) -> None:
        with self._lock:
            row = self.ops.setdefault(self.phase, {}).setdefault(
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
            marks = self.marks.setdefault(self.phase, {})
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
    :data:`COUNTS`). Idempotent per client. Raises ``TypeError`` for an unknown store."""
    counts = counts or COUNTS
    kind = type(store).__name__
    if getattr(store, "_opcount_attached", False):
        return
    if kind == "DynamoDBStateStore":
        _attach_boto(store._client, counts)
    elif kind == "FirestoreStateStore":
        _attach_firestore(store._client, counts)
    elif kind == "PostgresStateStore":
        store._opcounts = counts  # the store counts each statement it sends
    elif kind == "SQLiteStateStore":
        store._opcounts = counts  # the store's connections trace into it
        conn = getattr(store._local, "conn", None)
        if conn is not None:
            attach_sqlite(conn, counts)
    else:
        raise TypeError(f"cannot count operations of {kind}")
    store._opcount_attached = True


# -- DynamoDB (boto3 events) ------------------------------------------------------------
_DYNAMO_WRITES = {"PutItem", "UpdateItem", "DeleteItem"}


def _written_keys(op: str, params: dict[str, Any]) -> list[tuple[str, float]]:
    """(partition key, write units) of every item a DynamoDB write request names."""

    def pk(request: dict[str, Any]) -> str:
        value = (request.get("Key") or request.get("Item") or {}).get("pk", "?")
        return str(value.get("S", value) if isinstance(value, dict) else value)

    if op in _DYNAMO_WRITES:
        return [(pk(params), 1.0)]
    if op == "TransactWriteItems":
        return [(pk(next(iter(item.values()))), 2.0)
                for item in params.get("TransactItems") or []]
    if op == "BatchWriteItem":
        return [(pk(next(iter(req.values()))), 1.0)
                for reqs in (params.get("RequestItems") or {}).values() for req in reqs]
    return []


def _read_units(nbytes: int) -> float:
    return float(max(1, math.ceil(nbytes / 4096)))


def _attach_boto(client: Any, counts: OpCounts) -> None:
    def before(params: dict[str, Any], model: Any, context: dict[str, Any],
               **_: Any) -> None:
        context["docfleet_params"] = params  # the API parameters, before serialization

    def after(http_response: Any, parsed: dict[str, Any], model: Any,
              context: dict[str, Any], **_: Any) -> None:
        op = model.name
        params = context.get("docfleet_params") or {}
        size = len(getattr(http_response, "content", b"") or b"")
        read = written = 0
        ru = wu = 0.0
        if op == "GetItem":
            read = 1 if parsed.get("Item") else 0
            ru = _read_units(size)
        elif op in ("Query", "Scan"):
            read = int(parsed.get("ScannedCount", parsed.get("Count", 0)) or 0)
            ru = _read_units(size)
        elif op == "BatchGetItem":
            got = parsed.get("Responses", {})
            read = sum(len(v) for v in got.values())
            ru = float(max(read, 1))
        elif op in _DYNAMO_WRITES:
            written, wu = 1, 1.0
            if params.get("ConditionExpression") and "ConditionalCheckFailed" in str(
                    parsed.get("Error", {})):
                written = 0  # a failed condition still costs its write unit
        elif op == "BatchWriteItem":
            written = sum(len(v) for v in (params.get("RequestItems") or {}).values())
            wu = float(written)
        elif op == "TransactWriteItems":
            n = len(params.get("TransactItems") or [])
            written, wu = n, 2.0 * n
        elif op == "TransactGetItems":
            n = len(params.get("TransactItems") or [])
            read, ru = n, 2.0 * n
        counts.add(f"dynamodb.{op}", items_read=read, items_written=written,
                   read_units=ru, write_units=wu)
        for key, units in _written_keys(op, params):
            counts.add_key(key, units)

    client.meta.events.register("before-parameter-build.dynamodb", before)
    client.meta.events.register("after-call.dynamodb", after)


# -- Firestore (the GAPIC client) -------------------------------------------------------
def _attach_firestore(client: Any, counts: OpCounts) -> None:
    api = client._firestore_api  # creates the GAPIC client once

    def unary(name: str, reads: bool) -> None:
        inner = getattr(api, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            result = inner(*args, **kwargs)
            request = kwargs.get("request")
            if name == "commit":
                writes = (request.get("writes") if isinstance(request, dict)
                          else getattr(request, "writes", None))
                n = len(writes or [])
                counts.add("firestore.commit", items_written=n, write_units=float(n))
            else:
                counts.add(f"firestore.{name}", read_units=1.0 if reads else 0.0)
            return result

        setattr(api, name, call)

    def streaming(name: str) -> None:
        inner = getattr(api, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            return _counted_stream(name, inner(*args, **kwargs), counts,
                                   _count_aliases(kwargs.get("request")))

        setattr(api, name, call)

    unary("commit", False)
    unary("begin_transaction", False)
    unary("rollback", False)
    for name in ("run_query", "batch_get_documents", "run_aggregation_query"):
        streaming(name)


def _count_aliases(request: Any) -> set[str] | None:
    """The aliases of an aggregation request's ``count`` aggregations (their values are
    index entries read; a ``sum``'s value is not). ``None``: not an aggregation."""
    query = (request.get("structured_aggregation_query") if isinstance(request, dict)
             else getattr(request, "structured_aggregation_query", None))
    if query is None:
        return None
    out = set()
    for agg in query.aggregations:
        pb = type(agg).pb(agg) if hasattr(type(agg), "pb") else agg
        if pb.WhichOneof("operator") == "count":
            out.add(agg.alias)
    return out


def _counted_stream(name: str, responses: Any, counts: OpCounts,
                    count_aliases: set[str] | None = None) -> Iterator[Any]:
    docs = 0
    entries = 0
    try:
        for response in responses:
            found = getattr(response, "document" if name == "run_query" else "found", None)
            if name != "run_aggregation_query" and found is not None and found.name:
                docs += 1
            elif name == "run_aggregation_query":
                result = getattr(response, "result", None)
                for alias, value in (getattr(result, "aggregate_fields", None) or {}).items():
                    if count_aliases is None or alias in count_aliases:
                        entries += int(getattr(value, "integer_value", 0) or 0)
            yield response
    finally:
        if name == "run_aggregation_query":
            counts.add("firestore.run_aggregation_query", items_read=entries,
                       read_units=float(max(1, math.ceil(entries / 1000))))
        else:
            counts.add(f"firestore.{name}", items_read=docs, read_units=float(max(docs, 1)))


# -- SQLite (statement trace) -----------------------------------------------------------
def count_sql(counts: OpCounts, backend: str, sql: str) -> None:
    """Count one SQL statement of ``backend``: a write statement (INSERT/UPDATE/DELETE) is
    a write request, a SELECT (or WITH) a read request; other statements are not counted."""
    head = sql.lstrip().split(None, 1)[0].upper() if sql.strip() else ""
    if head in ("SELECT", "WITH"):
        counts.add(f"{backend}.select", read_units=1.0)
    elif head in ("INSERT", "UPDATE", "DELETE", "REPLACE"):
        counts.add(f"{backend}.{head.lower()}", write_units=1.0)


def attach_sqlite(conn: Any, counts: OpCounts) -> None:
    """Count every statement ``conn`` runs: a write statement (INSERT/UPDATE/DELETE) is a
    write request, a SELECT a read request; transaction control is not counted."""

    def trace(sql: str) -> None:
        head = sql.lstrip().split(None, 1)[0].upper() if sql.strip() else ""
        if head in ("SELECT", "WITH"):
            counts.add("sqlite.select", read_units=1.0)
        elif head in ("INSERT", "UPDATE", "DELETE", "REPLACE"):
            counts.add(f"sqlite.{head.lower()}", write_units=1.0)

    conn.set_trace_callback(trace)


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
