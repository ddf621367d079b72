"""The cloud state stores' physical schemas, as constants. The backends query exactly
these, the tests create tables from them, and Terraform provisions them (a coherence test
holds the HCL against this file)."""

from __future__ import annotations

from typing import Any

# -- Firestore ----------------------------------------------------------------------------
#: Documents: ``{prefix}runs/{run_id}``, its units in the subcollection
#: ``{prefix}runs/{run_id}/units/{idx:08d}``, spend counter shards in ``.../spend/…``.
FIRESTORE_RUNS_COLLECTION = "runs"
FIRESTORE_UNITS_COLLECTION = "units"
FIRESTORE_SPEND_COLLECTION = "spend"
#: Progress counter shards ``.../counts/{shard:03d}`` (``shard = idx % shards``, see
#: :func:`firestore_count_shards`), one field per unit state, incremented in the same
#: write as each transition.
FIRESTORE_COUNTS_COLLECTION = "counts"


def firestore_count_shards(unit_count: int) -> int:
    """Counter documents of a run of ``unit_count`` units: 16, plus one per 2,000 units
    past 32,000, at most 400 (they are written with the plan marker in one batch, whose
    limit is 500 writes). A document sustains about one write per second; each unit
    moves its shard about twice (claim, completion), so a fleet finishing R units/s keeps
    a shard under 1 write/s while ``2R <= shards`` (400 shards: R = 200 units/s)."""
    return min(400, max(16, -(-unit_count // 2000)))

#: The composite index the claim query needs (collection group ``units``): ``state ==
#: PENDING`` ordered by ``idx``. No other unit query needs one: the lingering tasks' lease
#: watch reads ``state == RUNNING`` (single-field), and ``resume``'s reclaim reads the
#: RUNNING units and compares their ``lease_expires_at`` in the client.
FIRESTORE_INDEXES: list[dict[str, Any]] = [
    {
        "collection_group": FIRESTORE_UNITS_COLLECTION,
        "query_scope": "COLLECTION",
        "fields": [("state", "ASCENDING"), ("idx", "ASCENDING")],
    },
]
#: Unit fields exempted from Firestore's automatic single-field indexes (Terraform's
#: ``google_firestore_field`` with an empty ``index_config``). Firestore limits a
#: collection whose documents carry monotonically increasing values in an indexed field
#: to 500 writes per second ("sharded timestamps"), and lifts it for a field no index
#: holds. These are the unit fields whose values grow with time or with the plan order and
#: that no query filters or orders by: every claim writes ``lease_expires_at`` and
#: ``claimed_at``, every renewal ``lease_expires_at``, every completion ``finished_at``;
#: the plan writes ``start`` in index order. (``idx`` stays indexed: the claim query
#: orders by it; it is written once, by the plan.)
FIRESTORE_UNINDEXED_FIELDS: tuple[str, ...] = (
    "lease_expires_at", "claimed_at", "finished_at", "start",
)

# -- DynamoDB -----------------------------------------------------------------------------
#: One table. Items: run marker ``pk=RUN#{run_id}, sk=RUN``; units
#: ``pk=RUN#{run_id}, sk=UNIT#{idx:08d}``; spend ``sk=SPEND#{model}``; quarantine
#: ``sk=QUARANTINE`` (a string set). The sparse index ``pending`` holds a unit only while
#: it is PENDING: ``pending_pk = {run_id}#{shard}`` over ``DYNAMODB_PENDING_SHARDS``
#: shards of contiguous index ranges (``shard = idx * SHARDS // unit_count``),
#: ``pending_sk = idx``. ``leases`` holds a unit only while RUNNING (``lease_pk = run_id``,
#: ``lease_sk = lease_expires_at``) for the explicit reclaim.
DYNAMODB_PENDING_SHARDS = 4
#: Progress counter items ``sk=COUNT#{shard:03d}`` (``shard = idx % shards``, see
#: :func:`dynamodb_count_shards`): one attribute per unit state, moved by ``ADD`` in the
#: same transaction as the transition; ``sk=FINALIZER`` holds the finalizer lease.


def dynamodb_count_shards(unit_count: int) -> int:
    """Counter items of a run of ``unit_count`` units: 8, plus one per 10,000 units past
    80,000, at most 96 (they are written with the plan marker in one transaction, whose
    limit is 100 items; one Query reads them all). An item sustains 1,000 write units/s
    and a transition costs its counter 2 (transactional): ``4R <= 1000 * shards``."""
    return min(96, max(8, -(-unit_count // 10000)))
DYNAMODB_TABLE: dict[str, Any] = {
    "KeySchema": [
        {"AttributeName": "pk", "KeyType": "HASH"},
        {"AttributeName": "sk", "KeyType": "RANGE"},
    ],
    "AttributeDefinitions": [
        {"AttributeName": "pk", "AttributeType": "S"},
        {"AttributeName": "sk", "AttributeType": "S"},
        {"AttributeName": "pending_pk", "AttributeType": "S"},
        {"AttributeName": "pending_sk", "AttributeType": "N"},
        {"AttributeName": "lease_pk", "AttributeType": "S"},
        {"AttributeName": "lease_sk", "AttributeType": "N"},
    ],
    "GlobalSecondaryIndexes": [
        {
            "IndexName": "pending",
            "KeySchema": [
                {"AttributeName": "pending_pk", "KeyType": "HASH"},
                {"AttributeName": "pending_sk", "KeyType": "RANGE"},
            ],
            # the claim reads the candidate's generation to build its fencing token and
            # conditions on it, so a stale index entry simply loses the race
            "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["generation"]},
        },
        {
            "IndexName": "leases",
            "KeySchema": [
                {"AttributeName": "lease_pk", "KeyType": "HASH"},
                {"AttributeName": "lease_sk", "KeyType": "RANGE"},
            ],
            "Projection": {"ProjectionType": "KEYS_ONLY"},
        },
    ],
    "BillingMode": "PAY_PER_REQUEST",
}
