"""The DynamoDB store's plumbing: the table and its client, conditional updates and the
transactions that move a unit with its progress counter, paged queries and batches, the
run's unit layout (read once per process), and the one retry path
(:mod:`docfleet.state.calls`: throttling, transaction conflicts, 5xx and connection
trouble retried, the rest one clear line through :func:`docfleet.cloud.aws.aws_error`).
:class:`DynamoDBClient` is the base of the store's coordination (:mod:`.store`) and
ledger (:mod:`.ledger`) halves. ``DOCFLEET_FAULT_DYNAMODB_THROTTLE=P`` (tests only) makes a
fraction P of calls fail with an injected ``ProvisionedThroughputExceededException`` at the
client, before any request is sent."""

from __future__ import annotations

import functools
import os
import random
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from docfleet.cloud.aws import aws_client, aws_error, aws_resource, aws_transient
from docfleet.core.errors import ConfigError, DocfleetError, RunNotFoundError, StoreUnavailableError
from docfleet.core.retry import RetryPolicy, default_bound
from docfleet.state import opcount
from docfleet.state.calls import StoreCalls
from docfleet.state.dynamodb.schema import (
    DYNAMODB_TABLE,
    DynamoDBLayout,
    OldLayoutError,
    block_pk,
    count_key,
    dynamodb_layout,
    layout_of,
    lease_pk,
    run_key,
    unit_key,
)

T = TypeVar("T")

FAULT_ENV = "DOCFLEET_FAULT_DYNAMODB_THROTTLE"
#: Candidates fetched per pending-index query.
CANDIDATES = 8
#: Rounds of candidate queries before a claim gives up on lost races.
MAX_CLAIM_ROUNDS = 50
LEASE_ATTRS = "lease_owner, lease_expires_at, lease_pk, lease_sk"
PENDING_ATTRS = "pending_pk, pending_sk"


def dynamodb_transient(exc: BaseException) -> bool:
    """Throttling, transaction conflicts, 5xx and connection trouble."""
    # botocore connection errors (ReadTimeoutError, ConnectionClosedError) carry response=None
    code = (getattr(exc, "response", None) or {}).get("Error", {}).get("Code", "")
    if code == "TransactionCanceledException":
        reasons = (getattr(exc, "response", None) or {}).get("CancellationReasons", [])
        return any(r.get("Code") in ("TransactionConflict", "ThrottlingError",
                                     "ProvisionedThroughputExceeded") for r in reasons) \
            or "TransactionConflict" in str(exc)
    return aws_transient(exc)


def create_table(endpoint: str | None, region: str, table: str) -> None:
    """Create ``table`` from :data:`DYNAMODB_TABLE` (tests, benchmarks, first use)."""
    client = aws_client("dynamodb", region=region, endpoint=endpoint, sdk_retries=True,
                        what="the dynamodb:// state store")
    client.create_table(TableName=table, **DYNAMODB_TABLE)
    client.get_waiter("table_exists").wait(TableName=table,
                                           WaiterConfig={"Delay": 0.2, "MaxAttempts": 50})


class _FakeHTTP:
    status_code = 400
    headers: dict[str, str] = {}
    content = b""
    text = ""


def _install_throttle_fault(client: Any, probability: float) -> None:
    """Short-circuit a fraction of DynamoDB calls with a throttling error response."""

    def inject(**kwargs: Any) -> tuple[Any, dict[str, Any]] | None:
        if random.random() >= probability:
            return None
        return _FakeHTTP(), {
            "Error": {"Code": "ProvisionedThroughputExceededException",
                      "Message": f"injected fault ({FAULT_ENV}={probability})"},
            "ResponseMetadata": {"HTTPStatusCode": 400},
        }

    client.meta.events.register("before-call.dynamodb", inject)


class DynamoDBClient:
    """One DynamoDB table: client, conditional writes, queries, layouts, retries."""

    def __init__(
        self, table: str, *, region: str, endpoint: str | None = None,
        retry_seconds: float | None = None,
    ) -> None:
        self.table_name = table
        self.endpoint = endpoint
        self.uri = f"dynamodb://{table}?region={region}"
        resource = aws_resource("dynamodb", region=region, endpoint=endpoint,
                                what="the dynamodb:// state store")
        self._table = resource.Table(table)
        self._client = resource.meta.client
        self._calls = StoreCalls(
            RetryPolicy(f"DynamoDB table {table}", dynamodb_transient,
                        retry_seconds if retry_seconds is not None else default_bound()),
            self._translate)
        fault = float(os.environ.get(FAULT_ENV) or 0)
        if fault > 0:
            _install_throttle_fault(self._client, fault)
        #: Lost races of this process's claims (the benchmark reads it).
        self.lost_races = 0
        self._layouts: dict[str, DynamoDBLayout] = {}
        self._check_table()
        opcount.maybe_instrument(self)

    # -- plumbing ---------------------------------------------------------------------
    def _call(self, op: str, fn: Callable[[], T]) -> T:
        return self._calls.call(op, fn)

    def _translate(self, exc: BaseException, op: str) -> DocfleetError | None:
        from botocore.exceptions import BotoCoreError, ClientError

        if isinstance(exc, ClientError) and self._code(exc) == "ResourceNotFoundException":
            return ConfigError(
                f"DynamoDB table '{self.table_name}' does not exist",
                "create it from docfleet.state.dynamodb.schema.DYNAMODB_TABLE (terraform/ does)")
        if isinstance(exc, (ClientError, BotoCoreError)):
            return aws_error(exc, f"{self.uri} {op}")
        return None

    @staticmethod
    def _code(exc: BaseException) -> str:
        return str((getattr(exc, "response", None) or {}).get("Error", {}).get("Code", ""))

    def _check_table(self) -> None:
        self._call("open", lambda: self._table.get_item(Key={"pk": "PROBE", "sk": "PROBE"}))

    def _update(self, op: str, key: dict[str, str], update: str, condition: str | None,
                values: dict[str, Any], names: dict[str, str] | None = None,
                returns: str = "NONE") -> dict[str, Any] | None:
        """One conditional UpdateItem: the new item's attributes (or ``{}``), or ``None``
        when the condition failed."""
        from botocore.exceptions import ClientError

        kwargs = self._update_kwargs(key, update, condition, values, names)
        kwargs["ReturnValues"] = returns

        def attempt() -> dict[str, Any] | None:
            try:
                return self._table.update_item(**kwargs).get("Attributes", {})
            except ClientError as exc:
                if self._code(exc) == "ConditionalCheckFailedException":
                    return None
                raise

        return self._call(op, attempt)

    @staticmethod
    def _update_kwargs(key: dict[str, str], update: str, condition: str | None,
                       values: dict[str, Any], names: dict[str, str] | None = None
                       ) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"Key": key, "UpdateExpression": update}
        if condition:
            kwargs["ConditionExpression"] = condition
        if values:
            kwargs["ExpressionAttributeValues"] = values
        all_names = {"#state": "state", "#count": "count", "#start": "start"}
        all_names.update(names or {})
        text = update + " " + (condition or "")
        kwargs["ExpressionAttributeNames"] = {k: v for k, v in all_names.items() if k in text}
        if not kwargs["ExpressionAttributeNames"]:
            del kwargs["ExpressionAttributeNames"]
        return kwargs

    def _transition(self, op: str, run_id: str, index: int, update: str, condition: str,
                    values: dict[str, Any], moves: tuple[str, str]) -> bool:
        """One unit's state change ``moves = (from, to)``: the conditional UpdateItem of
        the unit and the ``ADD`` of its progress counter shard in one TransactWriteItems
        (atomic; retried with one request token, so applied at most once). False when the
        unit's condition failed."""
        from botocore.exceptions import ClientError

        layout = self._layout(run_id)
        if layout is None:
            return False  # no such run: no such unit
        unit = {"TableName": self.table_name,
                **self._update_kwargs(unit_key(layout, run_id, index), update, condition,
                                      values)}
        source, target = moves
        counter = {
            "TableName": self.table_name,
            "Key": count_key(run_id, layout.counter(index)),
            "UpdateExpression": "ADD #from :minus, #to :plus",
            "ExpressionAttributeNames": {"#from": source, "#to": target},
            "ExpressionAttributeValues": {":minus": -1, ":plus": 1},
        }
        token = uuid.uuid4().hex

        def attempt() -> bool:
            try:
                self._client.transact_write_items(
                    TransactItems=[{"Update": unit}, {"Update": counter}],
                    ClientRequestToken=token)
                return True
            except ClientError as exc:
                if self._code(exc) == "TransactionCanceledException" \
                        and not dynamodb_transient(exc):
                    return False
                raise

        return self._call(op, attempt)

    def _get(self, key: dict[str, str]) -> dict[str, Any] | None:
        return self._call("get", lambda: self._table.get_item(
            Key=key, ConsistentRead=True).get("Item"))

    def _query(self, op: str, **kwargs: Any) -> Iterator[dict[str, Any]]:
        start: dict[str, Any] | None = None
        while True:
            page_kwargs = dict(kwargs)
            if start:
                page_kwargs["ExclusiveStartKey"] = start
            page = self._call(op, functools.partial(self._table.query, **page_kwargs))
            yield from page.get("Items", [])
            start = page.get("LastEvaluatedKey")
            if not start or kwargs.get("Limit"):
                return

    def _unit_items(self, run_id: str, projection: str | None = None, *,
                    old_layout: bool = False) -> Iterator[dict]:
        """Every unit item of the run, block by block (one paged Query per block).
        ``old_layout``: also read a layout-1 run's units (under ``pk=RUN#{run_id}``),
        for the read-only views; otherwise such a run raises :class:`OldLayoutError`."""
        from boto3.dynamodb.conditions import Key

        try:
            layout = self._layout(run_id)
        except OldLayoutError as exc:
            if not old_layout or exc.version != 1:
                raise
            keys = [f"RUN#{run_id}"]
        else:
            keys = [] if layout is None else [block_pk(run_id, b) for b in range(layout.blocks)]
        for pk in keys:
            kwargs: dict[str, Any] = {
                "KeyConditionExpression": Key("pk").eq(pk) & Key("sk").begins_with("UNIT#"),
                "ConsistentRead": True,
            }
            if projection:
                kwargs["ProjectionExpression"] = projection
                kwargs["ExpressionAttributeNames"] = {"#state": "state"}
            yield from self._query("units", **kwargs)


    def _batch_get(self, keys: list[dict[str, str]], op: str = "put_units",
                   projection: str | None = "sk") -> list[dict[str, Any]]:
        """Consistent BatchGetItem of at most 100 ``keys`` (unprocessed keys retried with
        backoff); the items found, in no order."""
        found: list[dict[str, Any]] = []
        ask: dict[str, Any] = {"Keys": keys, "ConsistentRead": True}
        if projection:
            ask["ProjectionExpression"] = projection
        request: dict[str, Any] = {self.table_name: ask}
        delay = 0.05
        deadline = time.monotonic() + self._calls.bound
        while request:
            resp = self._call(op, functools.partial(
                self._client.batch_get_item, RequestItems=request))
            found.extend(resp.get("Responses", {}).get(self.table_name, []))
            request = resp.get("UnprocessedKeys") or {}
            if request:
                self._backoff(deadline, f"{op} (unprocessed keys)", delay)
                delay = min(delay * 2, 2.0)
        return found

    def _batch_write(self, requests: list[dict[str, Any]]) -> None:
        pending: dict[str, Any] = {self.table_name: requests}
        delay = 0.05
        deadline = time.monotonic() + self._calls.bound
        while pending:
            resp = self._call("put_units", functools.partial(
                self._client.batch_write_item, RequestItems=pending))
            pending = resp.get("UnprocessedItems") or {}
            if pending:
                self._backoff(deadline, "put_units (unprocessed items)", delay)
                delay = min(delay * 2, 2.0)

    def _backoff(self, deadline: float, what: str, delay: float) -> None:
        if time.monotonic() >= deadline:
            raise StoreUnavailableError(
                f"{self.uri} {what}: still throttled after {self._calls.bound:.0f}s",
                "raise the table's capacity or DOCFLEET_STORE_RETRY_SECONDS",
            )
        time.sleep(random.uniform(0, delay))

    def _transact(self, op: str, items: list[dict[str, Any]]) -> list[str] | None:
        """TransactWriteItems; ``None`` on success, else the cancellation reason codes
        (a condition failed). Transient conflicts are retried by ``_call``."""
        from botocore.exceptions import ClientError

        token = uuid.uuid4().hex

        def attempt() -> list[str] | None:
            try:
                self._client.transact_write_items(TransactItems=items,
                                                  ClientRequestToken=token)
                return None
            except ClientError as exc:
                if self._code(exc) != "TransactionCanceledException" \
                        or dynamodb_transient(exc):
                    raise
                reasons = exc.response.get("CancellationReasons") or []
                return [str(r.get("Code", "")) for r in reasons] or ["ConditionalCheckFailed"]

        return self._call(op, attempt)


    def _layout(self, run_id: str) -> DynamoDBLayout | None:
        """The run's unit layout from its marker (read once per process); ``None`` for an
        unknown run. Raises :class:`OldLayoutError` for a run of another layout."""
        layout = self._layouts.get(run_id)
        if layout is None:
            item = self._get(run_key(run_id))
            if item is None:
                return None
            layout = self._layouts[run_id] = layout_of(run_id, item, self.uri)
        return layout

    def _ukey(self, run_id: str, index: int) -> dict[str, str]:
        layout = self._layout(run_id)
        if layout is None:
            raise RunNotFoundError(f"run '{run_id}' does not exist in {self.uri}")
        return unit_key(layout, run_id, index)

    def _pending_pk(self, run_id: str, index: int) -> str:
        layout = self._layout(run_id) or dynamodb_layout(1)
        return f"{run_id}#{layout.pending_shard(index)}"

    def _lease_pk(self, run_id: str, index: int) -> str:
        layout = self._layout(run_id) or dynamodb_layout(1)
        return lease_pk(run_id, layout.block(index))

    def close(self) -> None:
        self._client.close()
