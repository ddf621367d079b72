"""The Firestore store's operation counting (:mod:`docfleet.state.opcount`): its GAPIC
client's calls are wrapped to count requests, documents read and written and billed
units (a query or lookup one read per document returned, at least one; an aggregation one
read per 1,000 index entries counted; a commit one write per document)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from docfleet.state.opcount import OpCounts


def instrument(store: Any, counts: OpCounts) -> None:
    """Count every request of ``store``'s Firestore client into ``counts``."""
    _attach_firestore(store._client, counts)


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
