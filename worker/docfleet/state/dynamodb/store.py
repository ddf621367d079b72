"""``dynamodb://TABLE?region=…&endpoint=…`` state store (boto3, extra ``aws``).

Coordination here (:class:`DynamoDBCoordination`), the ledger in :mod:`.ledger`, the
table, conditional writes, layouts and retries in :mod:`.client`;
:class:`DynamoDBStateStore` is both. One table (:data:`.schema.DYNAMODB_TABLE`). Every
state change is one conditional ``UpdateItem`` on the base item:

* layout: a run's units and their lease-index entries are spread over
  ``DYNAMODB_BLOCKS`` partition keys, its progress counters over ``DYNAMODB_COUNTERS``
  more (:class:`~docfleet.state.dynamodb.schema.DynamoDBLayout`, recorded on the run marker), so
  no key takes more than its share of a fleet's writes; a run of an older layout can be
  listed, shown and deleted, and refuses every unit write with a one-line error
  (:func:`~docfleet.state.dynamodb.schema.layout_of`).
* claim: query the sparse ``pending`` index (a unit is in it only while PENDING, spread
  over ``DYNAMODB_PENDING_SHARDS`` hash keys), then ``UpdateItem`` with
  ``state = PENDING AND generation = g``; the update removes the pending attributes and
  sets the ``leases`` index attributes. The index is eventually consistent: a stale
  candidate loses the condition and the claim moves on to the next one.
* renew / complete / fail / release are fenced on ``lease_owner = token``.
* reclaim is explicit (:meth:`reclaim_expired_units` queries the ``leases`` index).
* spend is an atomic ``ADD`` on the (run, model) item and the run's total, in one
  ``TransactWriteItems`` (idempotent across retries through its request token);
  quarantine is a string set.

Throttling and transient errors are retried with jittered exponential backoff up to
``DOCFLEET_STORE_RETRY_SECONDS`` (or ``?retry_seconds=``), then
:class:`StoreUnavailableError`. ``DOCFLEET_FAULT_DYNAMODB_THROTTLE=P`` (tests only)
makes a fraction P of calls fail with an injected ``ProvisionedThroughputExceededException``
at the client, before any request is sent.
"""

from __future__ import annotations

import functools
import random
import time
from collections.abc import Iterable, Iterator
from typing import Any

from docfleet.cloud.aws import aws_endpoint, aws_region
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
from docfleet.core.uris import ParsedURI
from docfleet.state import codecs, rules
from docfleet.state.base import CreateResult, check_fingerprint
from docfleet.state.codecs import as_decimal as _d
from docfleet.state.codecs import as_float as _f
from docfleet.state.codecs import as_int as _i
from docfleet.state.dynamodb.client import (
    CANDIDATES,
    LEASE_ATTRS,
    PENDING_ATTRS,
    DynamoDBClient,
)
from docfleet.state.dynamodb.ledger import DynamoDBLedger
from docfleet.state.dynamodb.schema import (
    DYNAMODB_LAYOUT,
    OldLayoutError,
    block_pk,
    count_key,
    counter_pk,
    dynamodb_layout,
    layout_of,
    lease_pk,
    lease_prefix,
    run_key,
    unit_key,
)


class DynamoDBCoordination(DynamoDBClient):
    """:class:`~docfleet.state.base.CoordinationStore` over one DynamoDB table."""

    # -- runs -------------------------------------------------------------------------
    def create_run(self, spec: RunSpec, planner: str, now: float) -> CreateResult:
        from botocore.exceptions import ClientError

        layout = dynamodb_layout(spec.unit_count)
        item = {
            **run_key(spec.run_id),
            "params": spec.record(),
            "fingerprint": spec.fingerprint(),
            "max_attempts": spec.max_attempts,
            # where the units live (schemas.DynamoDBLayout): read back by every unit write
            "layout": DYNAMODB_LAYOUT, "blocks": layout.blocks, "counters": layout.counters,
            "state": RunState.PENDING.value,
            "planned": False,
            "planner": planner,
            "plan_heartbeat": _d(now),
            "created_at": _d(now),
            "updated_at": _d(now),
        }

        def put() -> bool:
            try:
                self._table.put_item(Item=item, ConditionExpression="attribute_not_exists(pk)")
                return True
            except ClientError as exc:
                if self._code(exc) == "ConditionalCheckFailedException":
                    return False
                raise

        if self._call("create_run", put):
            return CreateResult(True, Run.from_record(item))
        stored = self._get(run_key(spec.run_id))
        if stored is None:  # deleted in between: extremely unlikely; try again
            return self.create_run(spec, planner, now)
        run = Run.from_record(stored)
        check_fingerprint(run, spec)
        self._layouts[spec.run_id] = layout_of(spec.run_id, stored, self.uri)
        return CreateResult(False, run)

    def take_over_plan(self, run_id: str, planner: str, stale_before: float, now: float) -> bool:
        return self._update(
            "take_over_plan", run_key(run_id),
            "SET planner = :p, plan_heartbeat = :now, updated_at = :now",
            "attribute_exists(pk) AND planned = :f AND plan_heartbeat < :stale",
            {":p": planner, ":now": _d(now), ":f": False, ":stale": _d(stale_before)},
        ) is not None

    def touch_plan(self, run_id: str, planner: str, now: float) -> bool:
        return self._update(
            "touch_plan", run_key(run_id), "SET plan_heartbeat = :now",
            "planner = :p AND planned = :f", {":p": planner, ":now": _d(now), ":f": False},
        ) is not None

    def put_units(self, run_id: str, units: Iterable[Unit]) -> None:
        layout = self._layout(run_id)
        if layout is None:
            raise RunNotFoundError(f"run '{run_id}' does not exist in {self.uri}")
        wanted = {u.index: u for u in units}
        # each batch spreads over the blocks and the pending shards
        order = layout.write_order(list(wanted))
        existing: set[int] = set()
        for i in range(0, len(order), 100):
            keys = [unit_key(layout, run_id, idx) for idx in order[i:i + 100]]
            for item in self._batch_get(keys):
                existing.add(int(item["sk"].split("#")[1]))
        items = [
            {
                **unit_key(layout, run_id, idx), "idx": idx, "start": wanted[idx].start,
                "count": wanted[idx].count, "state": UnitState.PENDING.value,
                "attempts": 0, "generation": 0,
                "pending_pk": self._pending_pk(run_id, idx), "pending_sk": idx,
            }
            for idx in order if idx not in existing
        ]
        for i in range(0, len(items), 25):
            self._batch_write([{"PutRequest": {"Item": it}} for it in items[i:i + 25]])
    def mark_planned(self, run_id: str, planner: str, now: float) -> bool:
        run = self.get_run(run_id)
        if run is None or run.planned or run.planner != planner:
            return False
        layout = self._layout(run_id)
        assert layout is not None  # the marker was just read
        state = RunState.RUNNING if run.state == RunState.PENDING else run.state
        # the units are all PENDING until the run is planned: the counters start there,
        # in the same transaction that marks the run planned
        marker = {"TableName": self.table_name, **self._update_kwargs(
            run_key(run_id), "SET planned = :t, #state = :new, updated_at = :now",
            "planner = :p AND planned = :f AND #state = :old",
            {":t": True, ":f": False, ":p": planner, ":new": state.value,
             ":old": run.state.value, ":now": _d(now)})}
        counters = [{"Put": {"TableName": self.table_name, "Item": {
            **count_key(run_id, c), "init": True, **dict.fromkeys(
                (s.value for s in UnitState), 0), UnitState.PENDING.value: n}}}
            for c, n in enumerate(layout.counter_sizes())]
        return self._transact("mark_planned", [{"Update": marker}, *counters]) is None \
            or self._mark_planned_retry(run_id, planner, now)

    def _mark_planned_retry(self, run_id: str, planner: str, now: float) -> bool:
        run = self.get_run(run_id)  # the state moved under us (pause/cancel): once more
        if run is None or run.planned or run.planner != planner:
            return False
        return self.mark_planned(run_id, planner, now)

    def get_run(self, run_id: str) -> Run | None:
        item = self._get(run_key(run_id))
        return Run.from_record(item) if item else None

    def list_runs(self) -> list[Run]:
        from boto3.dynamodb.conditions import Attr

        runs: list[Run] = []
        start: dict[str, Any] | None = None
        while True:
            kwargs: dict[str, Any] = {"FilterExpression": Attr("sk").eq("RUN"),
                                      "ConsistentRead": True}
            if start:
                kwargs["ExclusiveStartKey"] = start
            page = self._call("list_runs", functools.partial(self._table.scan, **kwargs))
            runs.extend(Run.from_record(it) for it in page.get("Items", []))
            start = page.get("LastEvaluatedKey")
            if not start:
                return sorted(runs, key=lambda r: r.run_id)

    def delete_run(self, run_id: str) -> bool:
        """Every block's and counter's items, then the run's own partition (a layout-1
        run's units are there too), the marker last: an interrupted delete can be
        repeated."""
        from boto3.dynamodb.conditions import Key

        marker = self._get(run_key(run_id)) or {}
        pks = [*(block_pk(run_id, b) for b in range(_i(marker.get("blocks")))),
               *(counter_pk(run_id, c) for c in range(_i(marker.get("counters")))),
               f"RUN#{run_id}"]
        keys = []
        for pk in pks:
            keys += [{"pk": it["pk"], "sk": it["sk"]} for it in self._query(
                "delete_run", KeyConditionExpression=Key("pk").eq(pk),
                ProjectionExpression="pk, sk", ConsistentRead=True)]
        keys.sort(key=lambda k: k["sk"] == "RUN")  # the marker goes last (a stable sort)
        for i in range(0, len(keys), 25):
            self._batch_write([{"DeleteRequest": {"Key": k}} for k in keys[i:i + 25]])
        self._layouts.pop(run_id, None)
        return bool(marker)

    def set_run_state(
        self, run_id: str, state: RunState, now: float, expected: Iterable[RunState] | None = None
    ) -> bool:
        allowed = {s.value for s in expected} if expected is not None else None
        while True:
            item = self._get(run_key(run_id))
            if item is None:
                raise RunNotFoundError(f"run '{run_id}' does not exist in {self.uri}")
            current = item["state"]
            if current == state.value or (allowed is not None and current not in allowed):
                return False
            if self._update(
                "set_run_state", run_key(run_id), "SET #state = :new, updated_at = :now",
                "#state = :old", {":new": state.value, ":old": current, ":now": _d(now)},
            ) is not None:
                return True

    # -- units ------------------------------------------------------------------------
    def _candidates(self, run_id: str, hint: int) -> Iterator[list[tuple[int, int]]]:
        """Batches of pending (index, generation) pairs in the order to try them, one
        index query per batch, queried only when the previous batch was all lost: those at
        or after ``hint`` (from the shard holding it onwards) lowest first, then, wrapping
        around, any, in random order (the tasks whose range ran dry all land there)."""
        from boto3.dynamodb.conditions import Key

        layout = self._layout(run_id)
        if layout is None:
            return
        first = layout.pending_shard(hint)
        passes: list[tuple[int, int | None]] = [
            (s, hint) for s in range(first, layout.pending_shards)]
        passes += [(s, None) for s in range(first + 1)] if hint > 0 else []
        for shard, lower in passes:
            cond = Key("pending_pk").eq(f"{run_id}#{shard}")
            if lower is not None:
                cond = cond & Key("pending_sk").gte(lower)
            items = list(self._query("claim", IndexName="pending",
                                     KeyConditionExpression=cond, Limit=CANDIDATES))
            if items:
                found = sorted((int(it["pending_sk"]), _i(it.get("generation")))
                               for it in items)
                if lower is None and hint > 0:
                    random.shuffle(found)
                yield found

    def claim_next_unit(
        self, run_id: str, owner: str, hint: int, lease_seconds: float, now: float
    ) -> Claim | None:
        deadline = time.monotonic() + self._calls.bound
        rounds = 0
        pause = 0.02
        while True:
            seen = False
            for candidates in self._candidates(run_id, max(hint, 0)):
                seen = True
                # the lowest candidate first; after a lost race, the rest in random order
                # so tasks that collided spread out
                rest = candidates[1:]
                random.shuffle(rest)
                for index, generation in [candidates[0], *rest]:
                    claim = self._try_claim(run_id, owner, index, generation, lease_seconds,
                                            now)
                    if claim is not None:
                        return claim
                    self.lost_races += 1
            if not seen:
                return None
            rounds += 1
            if time.monotonic() >= deadline:
                raise StoreUnavailableError(
                    f"{self.uri}: every claim candidate of run '{run_id}' was lost for "
                    f"{self._calls.bound:.0f}s ({rounds} rounds)",
                    "the pending index is lagging behind the table; retry later")
            # every candidate was taken or stale (the index lags the table): a peer's claim
            # or the index will have moved on after a short, growing, jittered pause
            time.sleep(random.uniform(0, pause))
            pause = min(pause * 2, 0.5)

    def _try_claim(self, run_id: str, owner: str, index: int, generation: int,
                   lease_seconds: float, now: float) -> Claim | None:
        token = claim_token(owner, index, generation + 1)
        expires = now + lease_seconds
        won = self._transition(
            "claim", run_id, index,
            "SET #state = :running, attempts = attempts + :one, generation = :g1,"
            " lease_owner = :tok, lease_expires_at = :exp, claimed_at = :now,"
            " worked_by = :owner, lease_pk = :lpk, lease_sk = :exp"
            f" REMOVE {PENDING_ATTRS}",
            "#state = :pending AND generation = :g",
            {":running": UnitState.RUNNING.value, ":pending": UnitState.PENDING.value,
             ":one": 1, ":g": generation, ":g1": generation + 1, ":tok": token,
             ":exp": _d(expires), ":now": _d(now), ":owner": owner,
             ":lpk": self._lease_pk(run_id, index)},
            (UnitState.PENDING.value, UnitState.RUNNING.value),
        )
        if not won:
            return None
        # a transaction returns no item: one consistent read for the attempts it made.
        # The token also tells a won race whose answer was lost and retried.
        item = self._get(self._ukey(run_id, index)) or {}
        if item.get("lease_owner") != token or item.get("state") != "RUNNING":
            return None
        return Claim(run_id=run_id, unit_index=index, start=_i(item["start"]),
                     count=_i(item["count"]), token=token, attempts=_i(item["attempts"]),
                     lease_expires_at=expires)

    def _fenced(self, op: str, claim: Claim, update: str, values: dict[str, Any],
                target: UnitState | None = None, also: str = "") -> bool:
        condition = "#state = :running AND lease_owner = :tok" + (f" AND {also}" if also else "")
        values = {**values, ":running": UnitState.RUNNING.value, ":tok": claim.token}
        if target is not None:
            return self._transition(op, claim.run_id, claim.unit_index, update, condition,
                                    values, (UnitState.RUNNING.value, target.value))
        if self._layout(claim.run_id) is None:
            return False
        return self._update(op, self._ukey(claim.run_id, claim.unit_index), update,
                            condition, values) is not None

    def renew_lease(self, claim: Claim, lease_seconds: float, now: float) -> Claim | None:
        expires = now + lease_seconds
        if not self._fenced("renew_lease", claim,
                            "SET lease_expires_at = :exp, lease_sk = :exp", {":exp": _d(expires)}):
            return None
        return codecs.renewed(claim, expires)

    def complete_unit(self, claim: Claim, part_sha256: str, now: float) -> bool:
        attempts = 0

        def once() -> bool:
            nonlocal attempts
            attempts += 1
            return self._fenced(
                "complete_unit", claim,
                "SET #state = :done, part_sha256 = :sha, finished_at = :now,"
                f" completed_by = :tok REMOVE {LEASE_ATTRS}, last_error",
                {":done": UnitState.DONE.value, ":sha": part_sha256, ":now": _d(now)},
                UnitState.DONE,
            )

        if once():
            return True
        if attempts > 1:  # an earlier attempt may have landed before its answer was lost
            item = self._get(self._ukey(claim.run_id, claim.unit_index)) or {}
            return item.get("completed_by") == claim.token and item.get("state") == "DONE"
        return False

    def fail_unit(self, claim: Claim, error: str, max_attempts: int, now: float) -> bool:
        end = rules.failed_attempt(claim.attempts, max_attempts, error)
        update, values = self._ended(claim.run_id, claim.unit_index, end, now)
        return self._fenced("fail_unit", claim, update, values, end.state)

    def _ended(self, run_id: str, index: int, end: rules.AttemptEnd, now: float
               ) -> tuple[str, dict[str, Any]]:
        """The update (and its values) of a unit whose attempt ended as ``end``: FAILED
        with ``finished_at``, or back in the sparse pending index; the lease dropped."""
        values: dict[str, Any] = {}
        sets = []
        if end.final:
            sets.append("#state = :failed, finished_at = :now")
            values.update({":failed": UnitState.FAILED.value, ":now": _d(now)})
        else:
            sets.append("#state = :pending, pending_pk = :ppk, pending_sk = :psk")
            values.update({":pending": UnitState.PENDING.value,
                           ":ppk": self._pending_pk(run_id, index), ":psk": index})
        if end.last_error is not None:
            sets.append("last_error = :err")
            values[":err"] = end.last_error
        return f"SET {', '.join(sets)} REMOVE {LEASE_ATTRS}", values

    def release_unit(self, claim: Claim, now: float) -> bool:
        """The attempt is given back, never below zero (:func:`rules.released_attempts`):
        the update writes the kept value, conditional on the attempts it was computed from
        (the claim's; after a miss, the stored value read once)."""
        was = claim.attempts
        for _ in range(2):
            if self._fenced(
                "release_unit", claim,
                "SET #state = :pending, attempts = :kept, pending_pk = :ppk,"
                f" pending_sk = :psk REMOVE {LEASE_ATTRS}",
                {":pending": UnitState.PENDING.value, ":was": was,
                 ":kept": rules.released_attempts(was),
                 ":ppk": self._pending_pk(claim.run_id, claim.unit_index),
                 ":psk": claim.unit_index},
                UnitState.PENDING, also="attempts = :was",
            ):
                return True
            if self._layout(claim.run_id) is None:
                return False
            item = self._get(self._ukey(claim.run_id, claim.unit_index)) or {}
            if item.get("lease_owner") != claim.token \
                    or item.get("state") != UnitState.RUNNING.value:
                return False  # fenced out
            was = _i(item.get("attempts"))
        return False

    def reclaim_expired_units(self, run_id: str, max_attempts: int, now: float) -> int:
        from boto3.dynamodb.conditions import Key

        layout = self._layout(run_id)
        if layout is None:
            return 0
        expired = [entry for b in range(layout.blocks) for entry in self._query(
            "reclaim", IndexName="leases",
            KeyConditionExpression=Key("lease_pk").eq(lease_pk(run_id, b))
            & Key("lease_sk").lt(_d(now)),
        )]
        moved = 0
        for entry in expired:
            item = self._get({"pk": entry["pk"], "sk": entry["sk"]})
            if not item or item.get("state") != UnitState.RUNNING.value:
                continue
            if _f(item.get("lease_expires_at")) is None or float(item["lease_expires_at"]) >= now:
                continue
            index = _i(item["idx"])
            end = rules.expired_lease(_i(item.get("attempts")), max_attempts,
                                      item["lease_owner"])
            update, values = self._ended(run_id, index, end, now)
            values.update({":running": UnitState.RUNNING.value, ":seen": item["lease_owner"],
                           ":now": _d(now)})
            if self._transition(
                "reclaim", run_id, index, update,
                "#state = :running AND lease_owner = :seen AND lease_expires_at < :now", values,
                (UnitState.RUNNING.value, end.state.value),
            ):
                moved += 1
        return moved

    def running_units(self, run_id: str) -> list[Unit]:
        """From the sparse ``leases`` index (keys only): index and ``lease_sk`` (= the
        stored ``lease_expires_at``); ``lease_owner`` is ``None``. One paged Scan of the
        index, which holds RUNNING units only (of every run in the table, so bounded by
        their tasks), filtered to this run's block keys: one request for a fleet lingering
        on a few units, where a Query per block would be ``blocks`` requests."""
        from boto3.dynamodb.conditions import Attr

        if self._layout(run_id) is None:
            return []
        out = []
        start: dict[str, Any] | None = None
        while True:
            kwargs: dict[str, Any] = {
                "IndexName": "leases",
                "FilterExpression": Attr("lease_pk").begins_with(lease_prefix(run_id))}
            if start:
                kwargs["ExclusiveStartKey"] = start
            page = self._call("running_units", functools.partial(self._table.scan, **kwargs))
            for entry in page.get("Items", []):
                index = int(str(entry["sk"]).removeprefix("UNIT#"))
                out.append(codecs.running_unit(run_id, index,
                                               lease_expires_at=entry.get("lease_sk")))
            start = page.get("LastEvaluatedKey")
            if not start:
                return sorted(out, key=lambda u: u.index)

    def reclaim_stale_units(
        self, run_id: str, stale: Iterable[Unit], max_attempts: int, now: float
    ) -> int:
        moved = 0
        if self._layout(run_id) is None:
            return 0
        for seen in stale:
            if seen.lease_expires_at is None:
                continue
            item = self._get(self._ukey(run_id, seen.index))
            if not item or item.get("state") != UnitState.RUNNING.value:
                continue
            end = rules.expired_lease(_i(item.get("attempts")), max_attempts,
                                      item.get("lease_owner"), not_renewed=True)
            update, values = self._ended(run_id, seen.index, end, now)
            values.update({":running": UnitState.RUNNING.value,
                           ":seen": _d(seen.lease_expires_at)})
            condition = "#state = :running AND lease_expires_at = :seen"
            if seen.lease_owner is not None:
                condition += " AND lease_owner = :owner"
                values[":owner"] = seen.lease_owner
            # one transaction with the progress counter, like every other transition
            if self._transition("reclaim_stale", run_id, seen.index, update, condition, values,
                                (UnitState.RUNNING.value, end.state.value)):
                moved += 1
        return moved

    def _reopen(self, op: str, run_id: str, index: int, states: list[str],
                extra_set: str, values: dict[str, Any], known: str | None = None) -> bool:
        """``states`` → PENDING. The counter must know which state it leaves: ``known``
        (the caller just read it) or one consistent read; the write is conditional on it."""
        if known is None:
            if self._layout(run_id) is None:
                return False
            item = self._get(self._ukey(run_id, index)) or {}
            known = item.get("state")
        if known not in states:
            return False
        return self._transition(
            op, run_id, index,
            "SET #state = :pending, attempts = :zero, pending_pk = :ppk, pending_sk = :psk"
            f"{extra_set} REMOVE finished_at, part_sha256, completed_by",
            "#state = :from",
            {":pending": UnitState.PENDING.value, ":zero": 0,
             ":ppk": self._pending_pk(run_id, index), ":psk": index, ":from": known,
             **values},
            (known, UnitState.PENDING.value),
        )

    def reset_failed_units(self, run_id: str, now: float) -> int:
        failed = [int(it["idx"]) for it in self._unit_items(run_id, "idx, #state")
                  if it.get("state") == UnitState.FAILED.value]
        return sum(self._reopen("reset_failed_units", run_id, i, [UnitState.FAILED.value], "",
                                {}, known=UnitState.FAILED.value) for i in failed)

    def reopen_units(self, run_id: str, indexes: Iterable[int], reason: str, now: float) -> int:
        return sum(
            self._reopen("reopen_units", run_id, i,
                         [s.value for s in rules.REOPENABLE],
                         ", last_error = :why", {":why": rules.cut_error(reason)})
            for i in indexes
        )

    def progress(self, run_id: str) -> Progress:
        """The counter items: one consistent BatchGetItem of ``counters`` small items (a
        read unit each; a Query per key would cost as many read units in ``counters``
        requests). A run not planned yet (no counters) or of layout 1 is counted unit by
        unit."""
        try:
            layout = self._layout(run_id)
        except OldLayoutError as exc:
            if exc.version != 1:
                raise
            layout = None
        if layout is not None:
            counters = self._batch_get(
                [count_key(run_id, c) for c in range(layout.counters)], "progress",
                projection=None)
            if len(counters) == layout.counters and all(it.get("init") for it in counters):
                totals = {s: sum(_i(it.get(s.value)) for it in counters) for s in UnitState}
                return Progress({s: n for s, n in totals.items() if n})
        counts: dict[UnitState, int] = {}
        for it in self._unit_items(run_id, "#state", old_layout=True):
            state = UnitState(it["state"])
            counts[state] = counts.get(state, 0) + 1
        return Progress(counts)

    def claim_finalizer(self, run_id: str, owner: str, lease_seconds: float, now: float
                        ) -> bool:
        return self._update(
            "claim_finalizer", {"pk": f"RUN#{run_id}", "sk": "FINALIZER"},
            "SET #owner = :o, expires_at = :exp",
            "attribute_not_exists(pk) OR #owner = :o OR expires_at < :now",
            {":o": owner, ":exp": _d(now + lease_seconds), ":now": _d(now)},
            names={"#owner": "owner"},
        ) is not None

    def units(self, run_id: str) -> list[Unit]:
        items = sorted(self._unit_items(run_id, old_layout=True), key=lambda it: int(it["idx"]))
        return [codecs.unit_from_record(run_id, it) for it in items]


class DynamoDBStateStore(DynamoDBCoordination, DynamoDBLedger):
    """:class:`~docfleet.state.base.StateStore` over one DynamoDB table."""


def open_dynamodb_store(parsed: ParsedURI, *, create: bool = True) -> DynamoDBStateStore:
    """Open ``dynamodb://TABLE?region=…&endpoint=…[&retry_seconds=…]``. The endpoint
    defaults to ``AWS_ENDPOINT_URL_DYNAMODB`` / the AWS default."""
    if not parsed.netloc:
        raise ConfigError(f"state URI {parsed.raw!r} names no table",
                          "use dynamodb://TABLE?region=REGION")
    region = aws_region(parsed.query.get("region"))
    if not region:
        raise ConfigError(f"state URI {parsed.raw!r} names no region",
                          "add ?region=eu-west-1 (or set AWS_REGION)")
    endpoint = aws_endpoint(parsed.query.get("endpoint"), "dynamodb")
    return DynamoDBStateStore(parsed.netloc, region=region, endpoint=endpoint,
                              retry_seconds=uri_seconds(parsed.query, "retry_seconds", parsed.raw))
