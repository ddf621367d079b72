"""The DynamoDB store's operation counting (:mod:`docfleet.state.opcount`): boto3 event
hooks on its client count each request, the items it read and wrote, its billed read and
write units and the write units per partition key."""

from __future__ import annotations

import math
from typing import Any

from docfleet.state.opcount import OpCounts


def instrument(store: Any, counts: OpCounts) -> None:
    """Count every request of ``store``'s boto3 client into ``counts``."""
    _attach_boto(store._client, counts)


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
