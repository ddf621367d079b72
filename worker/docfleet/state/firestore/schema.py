"""The Firestore store's physical layout, as constants: collections, counter shards, the
composite index the claim query needs and the unit fields kept out of the automatic
indexes. The store queries exactly these, the emulator tests use them, and Terraform
provisions them (``tests/infra/test_coherence.py`` holds the HCL against this file)."""

from __future__ import annotations

from typing import Any

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
