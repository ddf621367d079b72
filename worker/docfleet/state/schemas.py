"""The cloud state stores' physical schemas, as constants. The backends query exactly
these, the tests create tables from them, and Terraform provisions them (a coherence test
holds the HCL against this file)."""

from __future__ import annotations

from dataclasses import dataclass
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

#: The composite indexes the claim and reclaim queries need (collection group ``units``):
#: claim: ``state == PENDING`` ordered by ``idx``; reclaim: ``state == RUNNING`` and
#: ``lease_expires_at < now``.
FIRESTORE_INDEXES: list[dict[str, Any]] = [
    {
        "collection_group": FIRESTORE_UNITS_COLLECTION,
        "query_scope": "COLLECTION",
        "fields": [("state", "ASCENDING"), ("idx", "ASCENDING")],
    },
    {
        "collection_group": FIRESTORE_UNITS_COLLECTION,
        "query_scope": "COLLECTION",
        "fields": [("state", "ASCENDING"), ("lease_expires_at", "ASCENDING")],
    },
]

# -- DynamoDB -----------------------------------------------------------------------------
#: One table. A run's own items share ``pk=RUN#{run_id}``: the run marker ``sk=RUN``,
#: spend ``sk=SPEND#{model}``, quarantine ``sk=QUARANTINE`` (a string set), budget
#: ``sk=BUDGET`` / ``sk=RES#{id}``, the finalizer lease ``sk=FINALIZER``. Its units are
#: spread over :data:`DYNAMODB_BLOCKS` partition keys (layout :data:`DYNAMODB_LAYOUT`, see
#: :class:`DynamoDBLayout`): unit ``idx`` is ``pk=RUN#{run_id}#B{block:02d},
#: sk=UNIT#{idx:08d}`` and its block's progress counter ``sk=COUNT`` shares that key, so a
#: transition (unit + counter, one ``TransactWriteItems``) touches one partition key. The
#: sparse index ``pending`` holds a unit only while it is PENDING:
#: ``pending_pk = {run_id}#{shard}`` over ``DYNAMODB_PENDING_SHARDS`` shards of contiguous
#: index ranges, ``pending_sk = idx``. ``leases`` holds a unit only while RUNNING, under its
#: block: ``lease_pk = {run_id}#B{block:02d}``, ``lease_sk = lease_expires_at``, for the
#: lease watch (one Scan of the sparse index) and the explicit reclaim (a Query per block).
DYNAMODB_PENDING_SHARDS = 4
#: The unit layout a run records on its marker (``layout``; a marker without one is
#: layout 1: every unit under ``pk=RUN#{run_id}``, the lease index under ``run_id``).
DYNAMODB_LAYOUT = 2
#: Partition keys a run's units (and their counters and lease entries) are spread over.
#: Unit ``idx`` is in block ``idx % DYNAMODB_BLOCKS``: whatever order the fleet claims in,
#: each key takes ``1/DYNAMODB_BLOCKS`` of the run's writes. A fleet finishing R units/s
#: writes about 14 units per unit (two 2-unit transactions of 2 items, ~6 renewals of a
#: 60 s unit), so a key takes ``14 R / 32`` WCU/s: 73 at 10,000 tasks x 60 s units, well
#: under the 1,000 per partition. At most 99: the plan marks the run planned and writes
#: every block's counter in one transaction (limit 100 items).
DYNAMODB_BLOCKS = 32


@dataclass(frozen=True)
class DynamoDBLayout:
    """Where a run's units live (layout :data:`DYNAMODB_LAYOUT`): ``blocks`` partition keys
    (unit ``idx`` in block ``idx % blocks``; one counter item per block) and
    ``pending_shards`` contiguous ranges of the pending index. Pure: no I/O."""

    unit_count: int
    blocks: int = DYNAMODB_BLOCKS
    pending_shards: int = DYNAMODB_PENDING_SHARDS

    def block(self, index: int) -> int:
        """The block (partition key) of unit ``index``."""
        return index % self.blocks

    def block_sizes(self) -> list[int]:
        """How many units each block holds (its counter's initial PENDING count)."""
        return [len(range(b, self.unit_count, self.blocks)) for b in range(self.blocks)]

    def pending_shard(self, index: int) -> int:
        """The pending-index shard of unit ``index``: contiguous ranges, so the shard
        holding a task's start (its hint) is usually the only one a claim queries."""
        return min(self.pending_shards - 1,
                   max(0, index) * self.pending_shards // max(self.unit_count, 1))

    def write_order(self, indexes: list[int]) -> list[int]:
        """``indexes`` in the order a plan writes them: round-robin over the pending
        shards (and, consecutive indexes being consecutive blocks, over the blocks), so a
        planner's burst of writes takes each pending key's share, not one key at a time."""
        def start(shard: int) -> int:  # the lowest index of ``shard``
            return -(-shard * max(self.unit_count, 1) // self.pending_shards)

        return sorted(indexes, key=lambda i: (i - start(self.pending_shard(i)),
                                              self.pending_shard(i)))


def dynamodb_layout(unit_count: int) -> DynamoDBLayout:
    """The layout a new run of ``unit_count`` units gets: :data:`DYNAMODB_BLOCKS` blocks
    whatever its size (a key's share of the writes depends on the fleet's rate, not on
    the run's size), :data:`DYNAMODB_PENDING_SHARDS` pending shards."""
    return DynamoDBLayout(unit_count)


def dynamodb_count_shards(unit_count: int) -> int:
    """Progress counter items of a run of ``unit_count`` units: one per block of
    :func:`dynamodb_layout`, read together by one ``BatchGetItem``."""
    return dynamodb_layout(unit_count).blocks


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
