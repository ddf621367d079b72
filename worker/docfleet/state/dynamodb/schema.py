"""The DynamoDB store's physical layout, as constants: the one table, its keys and sparse
indexes, and the unit layout (:class:`DynamoDBLayout`) a run records on its marker. The
store queries exactly these, the tests create tables from them, and Terraform provisions
them (``tests/infra/test_coherence.py`` holds the HCL against this file)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from docfleet.core.errors import RunConflictError
from docfleet.core.models import RunSpec
from docfleet.state.codecs import as_int as _i

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


# -- keys -------------------------------------------------------------------------------
def run_key(run_id: str) -> dict[str, str]:
    return {"pk": f"RUN#{run_id}", "sk": "RUN"}


def block_pk(run_id: str, block: int) -> str:
    """The partition key of a run's block ``block`` (its units)."""
    return f"RUN#{run_id}#B{block:02d}"


def counter_pk(run_id: str, counter: int) -> str:
    """The partition key of a run's progress counter ``counter``."""
    return f"RUN#{run_id}#C{counter:02d}"


def lease_prefix(run_id: str) -> str:
    return f"{run_id}#B"  # run ids have no '#': no other run's key starts with it


def lease_pk(run_id: str, block: int) -> str:
    """The ``leases`` index hash key of the RUNNING units of block ``block``."""
    return f"{lease_prefix(run_id)}{block:02d}"


def unit_key(layout: DynamoDBLayout, run_id: str, index: int) -> dict[str, str]:
    """The primary key of unit ``index`` of a run laid out as ``layout``."""
    return {"pk": block_pk(run_id, layout.block(index)), "sk": f"UNIT#{index:08d}"}


def count_key(run_id: str, counter: int) -> dict[str, str]:
    return {"pk": counter_pk(run_id, counter), "sk": "COUNT"}


class OldLayoutError(RunConflictError):
    """A run whose marker records another unit layout than :data:`DYNAMODB_LAYOUT`."""

    def __init__(self, message: str, hint: str, version: int) -> None:
        super().__init__(message, hint)
        self.version = version


def layout_of(run_id: str, item: Mapping[str, Any], where: str) -> DynamoDBLayout:
    """The layout a run marker records. Raises :class:`OldLayoutError` (a
    :class:`RunConflictError`, one line) for a marker of another layout: a marker without
    one was written by docfleet before units were sharded (layout 1)."""
    version = _i(item.get("layout")) or 1
    if version == DYNAMODB_LAYOUT:
        params = json.loads(item["params"])
        return DynamoDBLayout(RunSpec.from_parameters(params).unit_count,
                              blocks=_i(item.get("blocks")) or DYNAMODB_BLOCKS,
                              counters=_i(item.get("counters")) or DYNAMODB_COUNTERS)
    made_by = "an older docfleet, units unsharded" if version < DYNAMODB_LAYOUT \
        else "a newer docfleet"
    raise OldLayoutError(
        f"run '{run_id}' in {where} has DynamoDB unit layout {version} ({made_by}); this "
        f"docfleet works only runs of layout {DYNAMODB_LAYOUT}",
        f"delete it (docfleet delete {run_id} --state STATE) and run it again, which "
        "makes the same outputs, or finish it with the docfleet that created it",
        version)

