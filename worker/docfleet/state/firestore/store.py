"""``firestore://PROJECT[/DATABASE]?prefix=…`` state store (google-cloud-firestore,
extra ``gcp``).

Coordination here (:class:`FirestoreCoordination`), the ledger in :mod:`.ledger`, the
client, paths, compare-and-set and retries in :mod:`.client`; :class:`FirestoreStateStore`
is both. Layout (:mod:`.schema`): ``{prefix}runs/{run_id}`` is the run marker, its
units are ``…/units/{idx:08d}``, spend counters ``…/spend/{model-hash}.{shard}``, the
quarantine set ``…/meta/quarantine``.

* The run marker is created with ``create()``: exactly one planner wins.
* Claim: a query for PENDING units ordered by ``idx`` from the caller's ``hint``
  (wrapping around), then, per candidate, one conditional write that moves it to RUNNING
  only if it is unchanged since the query read it (an ``update_time`` precondition, so
  only if still PENDING). A lost race or an ABORTED write moves on to the next candidate
  (after the first, in random order, so colliding tasks spread out). Why not a
  transaction: it takes read locks, and two claimers that read the same candidate block
  each other until one aborts; on the emulator, 4 processes claimed ~20x slower with p99
  in seconds and 8 never got through (``bench/results/claims_cloud.json``). That mode
  (``?claim=transaction``) was removed when the contract suite ran it: its 6- and
  8-process claim races ran out of the retry bound on "Transaction lock timeout".
* Renew, complete, fail, release, reclaim, run-state changes: compare-and-set writes
  (read, decide, write only if the document's ``update_time`` is unchanged; a lost race
  re-reads), fenced on ``lease_owner`` for the unit's holder. No locks: 16 workers
  finalizing at once must not queue on transaction locks of the run document.
* Reclaim is explicit (:meth:`reclaim_expired_units`), never per claim.
* Spend: ``Increment`` on one of ``SPEND_SHARDS`` counter documents per model (a single
  document sustains about one write per second), model and total in one atomic batch;
  quarantine: ``ArrayUnion``.

Transient errors (UNAVAILABLE, DEADLINE_EXCEEDED, ABORTED outside a claim) are retried
with jittered backoff up to ``DOCFLEET_STORE_RETRY_SECONDS``. Under the emulator
(``FIRESTORE_EMULATOR_HOST`` or ``?emulator=HOST:PORT``) the client uses anonymous
credentials. ``DOCFLEET_FAULT_FIRESTORE_ABORTED=P`` (tests only) aborts a fraction P of
claim and compare-and-set writes at the client, as contention would.
"""

from __future__ import annotations

import functools
import os
import random
import time
from collections.abc import Callable, Iterable
from typing import Any

from docfleet.core.durations import uri_seconds
from docfleet.core.errors import ConfigError, RunNotFoundError, StoreUnavailableError
from docfleet.core.models import (
    Claim,
    Progress,
    Run,
    RunSpec,
    RunState,
    Unit,
    UnitState,
    claim_token,
)
from docfleet.core.retry import one_line
from docfleet.core.uris import ParsedURI
from docfleet.state import codecs, rules
from docfleet.state.base import CreateResult, check_fingerprint
from docfleet.state.firestore.client import (
    BATCH,
    CANDIDATES,
    FAULT_ENV,
    META_COLLECTION,
    TIMEOUT,
    FirestoreClient,
    default_ramp,
)
from docfleet.state.firestore.ledger import FirestoreLedger
from docfleet.state.firestore.schema import FIRESTORE_COUNTS_COLLECTION, firestore_count_shards
from docfleet.state.ramp import parse_ramp


class _Lost(Exception):
    """A claim found its candidate no longer PENDING (or changed since the query)."""


def _ended(end: rules.AttemptEnd, now: float) -> dict[str, Any]:
    """The fields of a unit whose attempt ended as ``end`` (its lease dropped)."""
    fields: dict[str, Any] = {"state": end.state.value, "lease_owner": None,
                              "lease_expires_at": None}
    if end.last_error is not None:
        fields["last_error"] = end.last_error
    if end.final:
        fields["finished_at"] = now
    return fields


class FirestoreCoordination(FirestoreClient):
    """:class:`~docfleet.state.base.CoordinationStore` over Cloud Firestore (native mode)."""

    # -- runs -------------------------------------------------------------------------
    def create_run(self, spec: RunSpec, planner: str, now: float) -> CreateResult:
        from google.api_core import exceptions as gexc

        data = {
            "params": spec.record(),
            "fingerprint": spec.fingerprint(),
            "max_attempts": spec.max_attempts,
            "unit_count": spec.unit_count,
            "state": RunState.PENDING.value,
            "planned": False,
            "planner": planner,
            "plan_heartbeat": float(now),
            "created_at": float(now),
            "updated_at": float(now),
        }
        ref = self._run_ref(spec.run_id)

        def create() -> bool:
            try:
                ref.create(data, retry=None, timeout=TIMEOUT)
                return True
            except (gexc.AlreadyExists, gexc.Conflict):
                return False

        if self._call("create_run", create):
            return CreateResult(True, Run.from_record(data))
        run = self.get_run(spec.run_id)
        if run is None:
            return self.create_run(spec, planner, now)
        check_fingerprint(run, spec)
        return CreateResult(False, run)

    def _run_tx(self, op: str, run_id: str,
                change: Callable[[dict[str, Any]], dict[str, Any] | None]) -> bool:
        """Apply ``change(run data) -> fields to update (None: refuse)`` atomically."""
        return self._cas(op, self._run_ref(run_id),
                         lambda d: None if d is None else change(d))

    def take_over_plan(self, run_id: str, planner: str, stale_before: float, now: float) -> bool:
        return self._run_tx("take_over_plan", run_id, lambda d: (
            {"planner": planner, "plan_heartbeat": now, "updated_at": now}
            if not d["planned"] and d["plan_heartbeat"] < stale_before else None))

    def touch_plan(self, run_id: str, planner: str, now: float) -> bool:
        return self._run_tx("touch_plan", run_id, lambda d: (
            {"plan_heartbeat": now}
            if d["planner"] == planner and not d["planned"] else None))

    def put_units(self, run_id: str, units: Iterable[Unit]) -> None:
        from google.api_core import exceptions as gexc

        wanted = {u.index: u for u in units}
        order = sorted(wanted)
        for i in range(0, len(order), BATCH):
            chunk = order[i:i + BATCH]

            def write(chunk: list[int] = chunk) -> None:
                refs = [self._unit_ref(run_id, idx) for idx in chunk]
                existing = {s.id for s in self._client.get_all(
                    refs, field_paths=["idx"], retry=None, timeout=TIMEOUT) if s.exists}
                batch = self._client.batch()
                for idx, ref in zip(chunk, refs, strict=True):
                    if ref.id in existing:
                        continue
                    u = wanted[idx]
                    batch.create(ref, {
                        "idx": idx, "start": u.start, "count": u.count,
                        "state": UnitState.PENDING.value, "attempts": 0, "generation": 0,
                        "lease_owner": None, "lease_expires_at": None,
                    })
                if len(batch) == 0:
                    return
                try:
                    batch.commit(retry=None, timeout=TIMEOUT)
                except (gexc.AlreadyExists, gexc.Conflict):
                    # another planner wrote some of them meanwhile: read again
                    raise gexc.Aborted("units created concurrently") from None

            self._call("put_units", write)

    def mark_planned(self, run_id: str, planner: str, now: float) -> bool:
        """Also starts the progress counters, in the same batch: every unit is PENDING
        until the run is planned."""

        def counters(d: dict[str, Any] | None, fields: dict[str, Any]
                     ) -> list[tuple[Any, dict[str, Any], bool]]:
            total = int((d or {}).get("unit_count") or 0)
            shards = firestore_count_shards(total)
            return [(self._counts_ref(run_id, k), {
                "init": 1, **dict.fromkeys((s.value for s in UnitState), 0),
                UnitState.PENDING.value: len(range(k, total, shards))}, False)
                for k in range(shards)]

        return self._cas("mark_planned", self._run_ref(run_id), lambda d: None if d is None else (
            {"planned": True, "updated_at": now,
             "state": RunState.RUNNING.value if d["state"] == RunState.PENDING.value
             else d["state"]}
            if d["planner"] == planner and not d["planned"] else None), also=counters)

    def get_run(self, run_id: str) -> Run | None:
        snap = self._call("get_run", lambda: self._read(self._run_ref(run_id)))
        return Run.from_record(snap.to_dict()) if snap.exists else None

    def list_runs(self) -> list[Run]:
        snaps = self._stream("list_runs", self._runs)
        return sorted((Run.from_record(s.to_dict()) for s in snaps), key=lambda r: r.run_id)

    def delete_run(self, run_id: str) -> bool:
        ref = self._run_ref(run_id)
        existed = self._call("delete_run", lambda: self._read(ref)).exists
        # every subcollection (units, spend, meta) first, then the marker itself
        for sub in self._call("delete_run", lambda: list(ref.collections())):
            self._call("delete_run", functools.partial(self._client.recursive_delete, sub))
        self._call("delete_run", lambda: ref.delete(retry=None, timeout=TIMEOUT))
        return existed

    def set_run_state(
        self, run_id: str, state: RunState, now: float, expected: Iterable[RunState] | None = None
    ) -> bool:
        allowed = {s.value for s in expected} if expected is not None else None

        def change(d: dict[str, Any] | None) -> dict[str, Any] | None:
            if d is None:
                raise RunNotFoundError(f"run '{run_id}' does not exist in {self.uri}")
            current = d["state"]
            if current == state.value or (allowed is not None and current not in allowed):
                return None
            return {"state": state.value, "updated_at": now}

        return self._cas("set_run_state", self._run_ref(run_id), change)

    # -- units ------------------------------------------------------------------------
    def _pending(self, run_id: str, hint: int) -> list[Any]:
        """PENDING unit snapshots in the order to try them: from ``hint`` the lowest index
        first; wrapped around (nothing left at or after ``hint``: every task whose range
        ran dry lands here) in random order, so those tasks do not all collide."""
        base = self._where(self._units_ref(run_id), "state", "==", UnitState.PENDING.value)
        if hint > 0:
            found = self._stream("claim", self._where(base, "idx", ">=", hint)
                                 .order_by("idx").limit(CANDIDATES))
            if found:
                return found
        found = self._stream("claim", base.order_by("idx").limit(CANDIDATES))
        if hint > 0:
            random.shuffle(found)
        return found

    def claim_next_unit(
        self, run_id: str, owner: str, hint: int, lease_seconds: float, now: float
    ) -> Claim | None:
        from google.api_core import exceptions as gexc

        deadline = time.monotonic() + self._calls.bound
        tries = aborted = 0
        last: BaseException | None = None
        while True:
            candidates = self._pending(run_id, max(hint, 0))
            if not candidates:
                return None
            rest = candidates[1:]
            random.shuffle(rest)
            for snap in [candidates[0], *rest]:
                tries += 1
                try:
                    return self._claim_precondition(snap, run_id, owner, lease_seconds, now)
                except _Lost:
                    pass
                except (gexc.Aborted, gexc.DeadlineExceeded, gexc.ServiceUnavailable) as exc:
                    aborted += 1
                    last = exc
                self.lost_races += 1
            if time.monotonic() >= deadline:
                raise StoreUnavailableError(
                    f"{self.uri} claim on run '{run_id}': no candidate could be claimed in "
                    f"{self._calls.bound:.0f}s ({tries} tries, {aborted} aborted; last "
                    f"error: {one_line(last) if last else 'lost races'})",
                    "Firestore contention or an unreachable emulator; retry later or raise "
                    "DOCFLEET_STORE_RETRY_SECONDS")
            if aborted:
                time.sleep(random.uniform(0, 0.2))

    def _claim_precondition(self, snap: Any, run_id: str, owner: str, lease_seconds: float,
                            now: float) -> Claim:
        """Move the candidate to RUNNING only if it is unchanged since the query read it
        (an ``update_time`` precondition): one conditional write, no locks held."""
        from google.api_core import exceptions as gexc

        claim, fields = self._claim_fields(snap, run_id, owner, lease_seconds, now)
        if self._fault is not None and random.random() < self._fault:
            raise gexc.Aborted(f"injected fault ({FAULT_ENV}={self._fault})")
        batch = self._client.batch()
        batch.update(snap.reference, fields,
                     option=self._client.write_option(last_update_time=snap.update_time))
        for other, values, merge in self._moves(run_id, claim.unit_index)(snap.to_dict(), fields):
            batch.set(other, values, merge=merge)
        try:
            batch.commit(retry=None, timeout=TIMEOUT)
        except (gexc.FailedPrecondition, gexc.NotFound):
            raise _Lost from None
        except (gexc.DeadlineExceeded, gexc.ServiceUnavailable):
            # the write may have landed with its answer lost: the token tells
            current = self._call("claim", lambda: self._read(snap.reference))
            if current.exists and current.get("lease_owner") == claim.token:
                return claim
            raise
        return claim

    def _claim_fields(self, snap: Any, run_id: str, owner: str, lease_seconds: float,
                      now: float) -> tuple[Claim, dict[str, Any]]:
        data = snap.to_dict() if snap.exists else None
        if data is None or data["state"] != UnitState.PENDING.value:
            raise _Lost
        generation = int(data.get("generation") or 0) + 1
        index = int(data["idx"])
        token = claim_token(owner, index, generation)
        expires = now + lease_seconds
        attempts = int(data.get("attempts") or 0) + 1
        fields = {
            "state": UnitState.RUNNING.value, "attempts": attempts, "generation": generation,
            "lease_owner": token, "lease_expires_at": expires, "claimed_at": now,
            "worked_by": owner,
        }
        return Claim(run_id=run_id, unit_index=index, start=int(data["start"]),
                     count=int(data["count"]), token=token, attempts=attempts,
                     lease_expires_at=expires), fields

    def _fenced(self, op: str, claim: Claim,
                change: Callable[[dict[str, Any]], dict[str, Any]],
                applied: Callable[[dict[str, Any]], bool] | None = None) -> bool:
        def fenced(data: dict[str, Any] | None) -> dict[str, Any] | None:
            if (data is None or data["state"] != UnitState.RUNNING.value
                    or data.get("lease_owner") != claim.token):
                return None
            return change(data)

        return self._cas(op, self._unit_ref(claim.run_id, claim.unit_index), fenced, applied,
                         also=self._moves(claim.run_id, claim.unit_index))

    def renew_lease(self, claim: Claim, lease_seconds: float, now: float) -> Claim | None:
        expires = now + lease_seconds
        if not self._fenced("renew_lease", claim, lambda d: {"lease_expires_at": expires}):
            return None
        return codecs.renewed(claim, expires)

    def complete_unit(self, claim: Claim, part_sha256: str, now: float) -> bool:
        return self._fenced("complete_unit", claim, lambda d: {
            "state": UnitState.DONE.value, "part_sha256": part_sha256, "finished_at": now,
            "lease_owner": None, "lease_expires_at": None, "last_error": None,
            "completed_by": claim.token,
        }, applied=lambda d: d.get("state") == UnitState.DONE.value
            and d.get("completed_by") == claim.token)

    def fail_unit(self, claim: Claim, error: str, max_attempts: int, now: float) -> bool:
        def change(d: dict[str, Any]) -> dict[str, Any]:
            end = rules.failed_attempt(int(d.get("attempts") or 0), max_attempts, error)
            return _ended(end, now)

        return self._fenced("fail_unit", claim, change)

    def release_unit(self, claim: Claim, now: float) -> bool:
        return self._fenced("release_unit", claim, lambda d: {
            "state": UnitState.PENDING.value,
            "attempts": rules.released_attempts(int(d.get("attempts") or 0)),
            "lease_owner": None, "lease_expires_at": None,
        })

    def reclaim_expired_units(self, run_id: str, max_attempts: int, now: float) -> int:
        """Reads the RUNNING units (``state`` is indexed; ``lease_expires_at`` is not, see
        ``schemas.FIRESTORE_UNINDEXED_FIELDS``) and compares their leases here: one read
        per RUNNING unit, at most one per task, for ``resume``'s one reclaim."""
        query = self._where(self._units_ref(run_id), "state", "==", UnitState.RUNNING.value)
        moved = 0
        for snap in self._stream("reclaim", query):
            expires = snap.get("lease_expires_at")
            if expires is None or expires >= now:
                continue
            ref = snap.reference

            def change(d: dict[str, Any] | None) -> dict[str, Any] | None:
                if (d is None or d["state"] != UnitState.RUNNING.value
                        or d.get("lease_expires_at") is None or d["lease_expires_at"] >= now):
                    return None
                return _ended(rules.expired_lease(int(d.get("attempts") or 0), max_attempts,
                                                  d.get("lease_owner")), now)

            moved += self._cas("reclaim", ref, change,
                               also=self._moves(run_id, int(snap.get("idx"))))
        return moved

    def running_units(self, run_id: str) -> list[Unit]:
        snaps = self._stream("running_units", self._where(
            self._units_ref(run_id), "state", "==", UnitState.RUNNING.value))
        return [codecs.running_unit(run_id, d["idx"], start=d["start"], count=d["count"],
                                    attempts=d.get("attempts"), lease_owner=d.get("lease_owner"),
                                    lease_expires_at=d.get("lease_expires_at"))
                for d in (snap.to_dict() for snap in snaps)]

    def reclaim_stale_units(
        self, run_id: str, stale: Iterable[Unit], max_attempts: int, now: float
    ) -> int:
        moved = 0
        for seen in stale:
            def change(d: dict[str, Any] | None, seen: Unit = seen) -> dict[str, Any] | None:
                if (d is None or d["state"] != UnitState.RUNNING.value
                        or d.get("lease_expires_at") != seen.lease_expires_at
                        or (seen.lease_owner is not None
                            and d.get("lease_owner") != seen.lease_owner)):
                    return None
                return _ended(rules.expired_lease(int(d.get("attempts") or 0), max_attempts,
                                                  d.get("lease_owner"), not_renewed=True), now)

            moved += self._cas("reclaim_stale", self._unit_ref(run_id, seen.index), change,
                               also=self._moves(run_id, seen.index))
        return moved

    def _reopen(self, op: str, ref: Any, states: set[str], fields: dict[str, Any]) -> bool:
        run_id = ref.parent.parent.id
        return self._cas(op, ref, lambda d: None if d is None or d["state"] not in states else
                         {"state": UnitState.PENDING.value, "attempts": 0, "finished_at": None,
                          "completed_by": None, **fields},
                         also=self._moves(run_id, int(ref.id)))

    def reset_failed_units(self, run_id: str, now: float) -> int:
        failed = self._stream("reset_failed_units", self._where(
            self._units_ref(run_id), "state", "==", UnitState.FAILED.value))
        return sum(self._reopen("reset_failed_units", s.reference, {UnitState.FAILED.value},
                                {}) for s in failed)

    def reopen_units(self, run_id: str, indexes: Iterable[int], reason: str, now: float) -> int:
        states = {s.value for s in rules.REOPENABLE}
        return sum(
            self._reopen("reopen_units", self._unit_ref(run_id, i), states,
                         {"part_sha256": None, "last_error": rules.cut_error(reason)})
            for i in indexes
        )

    def progress(self, run_id: str) -> Progress:
        """The sums over the :func:`firestore_count_shards` counter documents, in one
        aggregation query (billed one read per 1,000 index entries: one read). A run
        planned before the counters existed is counted with one count query per state."""
        # five aggregations, Firestore's limit per query: every shard carries init = 1
        query = self._run_ref(run_id).collection(FIRESTORE_COUNTS_COLLECTION) \
            .sum("init", alias="init")
        for state in UnitState:
            query = query.sum(state.value, alias=state.value)
        rows = self._call("progress", lambda: query.get(retry=None, timeout=TIMEOUT))
        got = {r.alias: int(r.value or 0) for r in (rows[0] if rows else [])}
        shards = self._count_shards(run_id)
        if got.get("init") == shards:
            return Progress({s: got[s.value] for s in UnitState if got.get(s.value)})
        counts: dict[UnitState, int] = {}
        for state in UnitState:
            query = self._where(self._units_ref(run_id), "state", "==", state.value).count()
            result = self._call("progress", functools.partial(query.get, retry=None,
                                                              timeout=TIMEOUT))
            n = int(result[0][0].value) if result and result[0] else 0
            if n:
                counts[state] = n
        return Progress(counts)

    def claim_finalizer(self, run_id: str, owner: str, lease_seconds: float, now: float
                        ) -> bool:
        """``…/meta/finalizer``: created if absent, else compare-and-set on its update
        time when it is ours or expired. A loser costs one read."""
        from google.api_core import exceptions as gexc

        ref = self._run_ref(run_id).collection(META_COLLECTION).document("finalizer")
        fields = {"owner": owner, "expires_at": float(now + lease_seconds)}

        def attempt() -> bool:
            snap = self._read(ref)
            try:
                if not snap.exists:
                    ref.create(fields, retry=None, timeout=TIMEOUT)
                    return True
                held = snap.to_dict() or {}
                if held.get("owner") != owner and float(held.get("expires_at") or 0) >= now:
                    return False
                ref.update(fields, option=self._client.write_option(
                    last_update_time=snap.update_time), retry=None, timeout=TIMEOUT)
                return True
            except (gexc.AlreadyExists, gexc.Conflict, gexc.FailedPrecondition):
                raise gexc.Aborted("the finalizer lease changed since it was read") from None

        return self._call("claim_finalizer", attempt)

    def units(self, run_id: str) -> list[Unit]:
        snaps = self._stream("units", self._units_ref(run_id).order_by("idx"))
        return [codecs.unit_from_record(run_id, s.to_dict()) for s in snaps]


class FirestoreStateStore(FirestoreCoordination, FirestoreLedger):
    """:class:`~docfleet.state.base.StateStore` over Cloud Firestore (native mode)."""


def open_firestore_store(parsed: ParsedURI, *, create: bool = True) -> FirestoreStateStore:
    """Open ``firestore://PROJECT[/DATABASE]?prefix=…``. ``?emulator=HOST:PORT`` (tests)
    is the same as ``FIRESTORE_EMULATOR_HOST``. ``?ramp=off`` stops the fleet's claims
    being spaced under Firestore's write ramp; ``?ramp=START[,GROWTH,STEP_SECONDS]`` sets
    another ramp (default ``500,1.5,300``). Raises :class:`ConfigError` for a bad URI."""
    if not parsed.netloc:
        raise ConfigError(f"state URI {parsed.raw!r} names no project",
                          "use firestore://PROJECT[/DATABASE]?prefix=…")
    database = parsed.path.strip("/") or None
    if database and "/" in database:
        raise ConfigError(f"state URI {parsed.raw!r}: '{database}' is not a database id",
                          "use firestore://PROJECT[/DATABASE]")
    claim = parsed.query.get("claim", "precondition")
    if claim != "precondition":
        raise ConfigError(
            f"state URI {parsed.raw!r}: Firestore claim mode {claim!r} does not exist "
            "(claim=transaction was removed: it could not claim under contention)",
            "drop ?claim= (claims are conditional writes on the document's update time)")
    emulator = parsed.query.get("emulator")
    if emulator:  # the client reads it from the environment
        os.environ["FIRESTORE_EMULATOR_HOST"] = emulator
    try:
        ramp = parse_ramp(parsed.query.get("ramp"), default_ramp())
    except ValueError as exc:
        raise ConfigError(f"state URI {parsed.raw!r}: {exc}",
                          "use ?ramp=off, ?ramp=START or ?ramp=START,GROWTH,STEP_SECONDS "
                          "(Firestore's rule: 500,1.5,300)") from None
    return FirestoreStateStore(parsed.netloc, database, prefix=parsed.query.get("prefix", ""),
                               retry_seconds=uri_seconds(parsed.query, "retry_seconds", parsed.raw),
                               write_ramp=ramp)
