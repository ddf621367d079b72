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
#: One table. A run's own items share ``pk=RUN#{run_id}``: the run marker ``sk=RUN``,
#: spend ``sk=SPEND#{model}``, quarantine ``sk=QUARANTINE`` (a string set), budget
#: ``sk=BUDGET`` / ``sk=RES#{id}``, the finalizer lease ``sk=FINALIZER``. Its units are
#: spread over :data:`DYNAMODB_BLOCKS` partition keys (layout :data:`DYNAMODB_LAYOUT`, see
#: :class:`DynamoDBLayout`): unit ``idx`` is ``pk=RUN#{run_id}#B{block:02d},
#: sk=UNIT#{idx:08d}``; its progress counter is one of :data:`DYNAMODB_COUNTERS` items
#: ``pk=RUN#{run_id}#C{counter}, sk=COUNT``, each under a key of its own (a transition,
#: unit + counter in one ``TransactWriteItems``, touches two keys). The
#: sparse index ``pending`` holds a unit only while it is PENDING:
#: ``pending_pk = {run_id}#{shard}`` over ``DYNAMODB_PENDING_SHARDS`` shards of contiguous
#: index ranges, ``pending_sk = idx``. ``leases`` holds a unit only while RUNNING, under its
#: block: ``lease_pk = {run_id}#B{block:02d}``, ``lease_sk = lease_expires_at``, for the
#: lease watch (one Scan of the sparse index) and the explicit reclaim (a Query per block).
DYNAMODB_PENDING_SHARDS = 4
#: The unit layout a run records on its marker (``layout``; a marker without one is
#: layout 1: every unit under ``pk=RUN#{run_id}``, the lease index under ``run_id``).
DYNAMODB_LAYOUT = 2
#: Partition keys a run's units (and their lease-index entries) are spread over. Unit
#: ``idx`` is in block ``idx % DYNAMODB_BLOCKS``: whatever order the fleet claims in, each
#: key takes ``1/DYNAMODB_BLOCKS`` of the run's unit writes. A fleet finishing R units/s
#: writes about 10 units per unit item (claim and completion, 2 each in a transaction, ~6
#: renewals of a 60 s unit) and 14 per lease-index entry (a renewal moves it: 2), so a
#: block key takes ``10 R / 32`` WCU/s and a lease key ``14 R / 32``: 52 and 73 at 10,000
#: tasks x 60 s units, well under the 1,000 per partition.
DYNAMODB_BLOCKS = 32
#: Progress counter items of a run, unit ``idx`` counted by ``idx % DYNAMODB_COUNTERS``,
#: each under a partition key of its own. A transition moves its counter by one ``ADD``
#: (2 write units in a transaction), so a counter takes ``4 R / 8`` WCU/s (83 at 10,000
#: tasks x 60 s units); progress reads all of them with one ``BatchGetItem`` of 8 read
#: units (32 counters, one per block, would cost 32). At most 99: the plan marks the run
#: planned and writes every counter in one transaction (limit 100 items).
DYNAMODB_COUNTERS = 8


@dataclass(frozen=True)
class DynamoDBLayout:
    """Where a run's units live (layout :data:`DYNAMODB_LAYOUT`): ``blocks`` partition keys
    (unit ``idx`` in block ``idx % blocks``), ``counters`` progress counter items (unit
    ``idx`` counted by ``idx % counters``) and ``pending_shards`` contiguous ranges of the
    pending index. Pure: no I/O."""

    unit_count: int
    blocks: int = DYNAMODB_BLOCKS
    counters: int = DYNAMODB_COUNTERS
    pending_shards: int = DYNAMODB_PENDING_SHARDS

    def block(self, index: int) -> int:
        """The block (partition key) of unit ``index``."""
        return index % self.blocks

    def block_sizes(self) -> list[int]:
        """How many units each block holds."""
        return [len(range(b, self.unit_count, self.blocks)) for b in range(self.blocks)]

    def counter(self, index: int) -> int:
        """The progress counter item of unit ``index``."""
        return index % self.counters

    def counter_sizes(self) -> list[int]:
        """How many units each counter counts (its initial PENDING count)."""
        return [len(range(c, self.unit_count, self.counters)) for c in range(self.counters)]

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
    and :data:`DYNAMODB_COUNTERS` counters whatever its size (a key's share of the writes
    depends on the fleet's rate, not on the run's size), :data:`DYNAMODB_PENDING_SHARDS`
    pending shards."""
    return DynamoDBLayout(unit_count)


def dynamodb_count_shards(unit_count: int) -> int:
    """Progress counter items of a run of ``unit_count`` units (:func:`dynamodb_layout`),
    read together by one ``BatchGetItem``."""
    return dynamodb_layout(unit_count).counters


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
