"""The Firestore store's plumbing: the client, the document paths
(:mod:`.schema`), compare-and-set writes with their progress-counter moves, and the one
retry path (:mod:`docfleet.state.calls`: UNAVAILABLE, DEADLINE_EXCEEDED, ABORTED and the
like retried, the rest one clear line through :func:`docfleet.cloud.gcp.gcp_error`).
:class:`FirestoreClient` is the base of the store's coordination (:mod:`.store`) and
ledger (:mod:`.ledger`) halves. ``DOCFLEET_FAULT_FIRESTORE_ABORTED=P`` (tests only) aborts
a fraction P of claim and compare-and-set writes at the client, as contention would."""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from typing import Any, TypeVar

from docfleet.cloud.gcp import firestore_client, gcp_error
from docfleet.core.backends import backend
from docfleet.core.errors import DocfleetError, MissingExtraError
from docfleet.core.retry import RetryPolicy, default_bound
from docfleet.state import opcount
from docfleet.state.calls import StoreCalls
from docfleet.state.firestore.schema import (
    FIRESTORE_COUNTS_COLLECTION,
    FIRESTORE_RUNS_COLLECTION,
    FIRESTORE_UNITS_COLLECTION,
    firestore_count_shards,
)
from docfleet.state.ramp import WriteRamp

T = TypeVar("T")

FAULT_ENV = "DOCFLEET_FAULT_FIRESTORE_ABORTED"
META_COLLECTION = "meta"
#: Counter documents per (run, model): spreads a hot spend counter's writes.
SPEND_SHARDS = 8
#: Candidates read per claim query.
CANDIDATES = 8
#: Seconds per RPC before it counts as failed (and is retried).
TIMEOUT = 15.0
#: Documents per write batch (Firestore's limit is 500).
BATCH = 400


def firestore_transient(exc: BaseException) -> bool:
    from google.api_core import exceptions as gexc

    if isinstance(exc, DocfleetError):
        return False
    return isinstance(exc, (gexc.ServiceUnavailable, gexc.DeadlineExceeded, gexc.Aborted,
                            gexc.InternalServerError, gexc.TooManyRequests,
                            gexc.ResourceExhausted, gexc.Unknown, gexc.RetryError,
                            ConnectionError, TimeoutError))


def default_ramp() -> WriteRamp | None:
    """The registry's ramp for Firestore (500 ops/s, x1.5 every 300 s)."""
    ramp = backend("firestore").write_ramp
    return WriteRamp(*ramp) if ramp else None


class FirestoreClient:
    """One Firestore database (and collection prefix): client, paths, compare-and-set."""

    def __init__(
        self, project: str, database: str | None = None, *, prefix: str = "",
        retry_seconds: float | None = None, write_ramp: Any = "default",
    ) -> None:
        """``write_ramp``: the ramp the fleet's claims keep under (a
        :class:`~docfleet.state.ramp.WriteRamp`, ``None`` for none, ``"default"`` for the
        registry's 500/50/5)."""
        try:
            from google.cloud import firestore
        except ImportError:
            raise MissingExtraError("the firestore:// state store", "gcp") from None
        self._fs = firestore
        self.prefix = prefix
        db = f"/{database}" if database else ""
        self.uri = f"firestore://{project}{db}" + (f"?prefix={prefix}" if prefix else "")
        try:
            self._client = firestore_client(project, database)
        except Exception as exc:
            raise gcp_error(exc, f"cannot open {self.uri}") from None
        self._calls = StoreCalls(
            RetryPolicy(f"Firestore {project}{db}", firestore_transient,
                        retry_seconds if retry_seconds is not None else default_bound()),
            self._translate)
        fault = float(os.environ.get(FAULT_ENV) or 0)
        self._fault = fault if fault > 0 else None
        #: Lost races / aborted claim writes of this process (the benchmark reads it).
        self.lost_races = 0
        self._unit_counts: dict[str, int] = {}
        self._runs = self._client.collection(f"{prefix}{FIRESTORE_RUNS_COLLECTION}")
        #: The ramp a fleet keeps its writes under and a unit's writes (state.optional).
        self.write_ramp = default_ramp() if write_ramp == "default" else write_ramp
        self.unit_writes = backend("firestore").unit_writes
        opcount.maybe_instrument(self)

    # -- plumbing ---------------------------------------------------------------------
    def _call(self, op: str, fn: Callable[[], T]) -> T:
        return self._calls.call(op, fn)

    def _translate(self, exc: BaseException, op: str) -> DocfleetError | None:
        from google.api_core import exceptions as gexc
        from google.auth import exceptions as aexc

        if isinstance(exc, (gexc.GoogleAPICallError, aexc.GoogleAuthError)):
            return gcp_error(exc, f"{self.uri} {op}")
        return None

    def _run_ref(self, run_id: str) -> Any:
        return self._runs.document(run_id)

    def _units_ref(self, run_id: str) -> Any:
        return self._run_ref(run_id).collection(FIRESTORE_UNITS_COLLECTION)

    def _unit_ref(self, run_id: str, index: int) -> Any:
        return self._units_ref(run_id).document(f"{index:08d}")

    def _count_shards(self, run_id: str) -> int:
        """The run's counter shards (from its unit count, read once per process)."""
        count = self._unit_counts.get(run_id)
        if count is None:
            snap = self._call("get_run", lambda: self._read(self._run_ref(run_id)))
            count = int((snap.to_dict() or {}).get("unit_count") or 0) if snap.exists else 0
            if count:
                self._unit_counts[run_id] = count
        return firestore_count_shards(count)

    def _counts_ref(self, run_id: str, shard: int) -> Any:
        return self._run_ref(run_id).collection(FIRESTORE_COUNTS_COLLECTION) \
            .document(f"{shard:03d}")

    def _moves(self, run_id: str, index: int) -> Callable[
            [dict[str, Any] | None, dict[str, Any]], list[tuple[Any, dict[str, Any], bool]]]:
        """The progress counter write that goes with a change of unit ``index``: -1 on the
        state it leaves, +1 on the one it enters, in its shard (none if it stays)."""

        def moves(data: dict[str, Any] | None, fields: dict[str, Any]
                  ) -> list[tuple[Any, dict[str, Any], bool]]:
            source = (data or {}).get("state")
            target = fields.get("state", source)
            if source is None or target == source:
                return []
            return [(self._counts_ref(run_id, index % self._count_shards(run_id)),
                     {source: self._fs.Increment(-1), target: self._fs.Increment(1)}, True)]

        return moves

    def _cas(self, op: str, ref: Any,
             change: Callable[[dict[str, Any] | None], dict[str, Any] | None],
             applied: Callable[[dict[str, Any]], bool] | None = None,
             also: Callable[[dict[str, Any] | None, dict[str, Any]],
                            list[tuple[Any, dict[str, Any], bool]]] | None = None) -> bool:
        """Read ``ref``; ``change(data or None)`` returns the fields to update (``None``:
        refuse, return false); write them only if the document is unchanged since the read
        (an ``update_time`` precondition: compare-and-set, no locks held). A lost race
        re-reads, with backoff, within the retry bound. ``applied(data)`` recognises this
        very update after an attempt whose answer was lost (timeout, unavailable).
        ``also(data, fields)`` lists further ``(ref, data, merge)`` sets committed in the
        same atomic batch (a progress counter)."""
        from google.api_core import exceptions as gexc

        ambiguous = False

        def attempt() -> bool:
            nonlocal ambiguous
            snap = self._read(ref)
            data = snap.to_dict() if snap.exists else None
            if ambiguous and applied is not None and data is not None and applied(data):
                return True
            fields = change(data)
            if fields is None:
                return False
            if self._fault is not None and random.random() < self._fault:
                raise gexc.Aborted(f"injected fault ({FAULT_ENV}={self._fault})")
            extra = also(data, fields) if also is not None else []
            option = self._client.write_option(last_update_time=snap.update_time)
            try:
                if extra:
                    batch = self._client.batch()
                    batch.update(ref, fields, option=option)
                    for other, values, merge in extra:
                        batch.set(other, values, merge=merge)
                    batch.commit(retry=None, timeout=TIMEOUT)
                else:
                    ref.update(fields, option=option, retry=None, timeout=TIMEOUT)
            except gexc.FailedPrecondition:
                raise gexc.Aborted("the document changed since it was read") from None
            except (gexc.DeadlineExceeded, gexc.ServiceUnavailable):
                ambiguous = True
                raise
            return True

        return self._call(op, attempt)

    def _read(self, ref: Any) -> Any:
        return ref.get(retry=None, timeout=TIMEOUT)

    def _stream(self, op: str, query: Any) -> list[Any]:
        return self._call(op, lambda: list(query.stream(retry=None, timeout=TIMEOUT)))

    def _where(self, query: Any, field: str, op: str, value: Any) -> Any:
        return query.where(filter=self._fs.FieldFilter(field, op, value))

    def close(self) -> None:
        self._client.close()
