"""The DynamoDB unit layout (issue 18): a run's units and their lease-index entries are
spread over ``DYNAMODB_BLOCKS`` partition keys and its progress counters over
``DYNAMODB_COUNTERS`` more, so no key takes more than its share of a fleet's writes; a
run of the old, unsharded layout is read and deleted but never worked; a release gives
its attempt back, never below zero. Through the real moto server and real ``docfleet
work`` processes, counting operations per key (the store client's own count,
``DOCFLEET_STORE_OPS``), never timing them."""

from __future__ import annotations

import itertools
import json
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import boto3
import pytest
from boto3.dynamodb.conditions import Key

from docfleet.core.errors import RunConflictError
from docfleet.core.models import Claim, RunSpec, UnitState
from docfleet.kernel.planner import plan_units
from docfleet.state import open_state_store
from docfleet.state.dynamodb.schema import (
    DYNAMODB_BLOCKS,
    DYNAMODB_COUNTERS,
    block_pk,
    counter_pk,
    dynamodb_layout,
    lease_pk,
    unit_key,
)
from docfleet.state.dynamodb.store import DynamoDBStateStore
from docfleet.state.opcount import key_writes, load
from support import emulators
from support.errors import assert_one_line_error
from support.fleet import cli, start_fleet, wait_all, worker_env


@pytest.fixture
def table(request: pytest.FixtureRequest) -> tuple[str, Any]:
    """A fresh table: its ``dynamodb://`` URI and a boto3 Table on it (to read raw items)."""
    moto = request.getfixturevalue("moto_emulator")
    name = f"layout-{uuid.uuid4().hex[:10]}"
    uri = emulators.make_dynamodb_table(moto, name)
    raw = boto3.session.Session().resource("dynamodb", endpoint_url=moto.url,
                                           region_name=emulators.AWS_REGION).Table(name)
    return uri, raw


Dynamo = tuple[str, DynamoDBStateStore, Any]


@pytest.fixture
def dynamo(table: tuple[str, Any]) -> Iterator[Dynamo]:
    """The fresh table's URI, a store open on it (closed after the test) and its raw
    boto3 Table."""
    uri, raw = table
    store = open_state_store(uri)
    assert isinstance(store, DynamoDBStateStore)
    yield uri, store, raw
    store.close()


def scan(raw: Any, **kwargs: Any) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    start = None
    while True:
        page = raw.scan(**kwargs, **({"ExclusiveStartKey": start} if start else {}))
        items += page.get("Items", [])
        start = page.get("LastEvaluatedKey")
        if not start:
            return items


def planned(store: DynamoDBStateStore, run_id: str, total: int) -> None:
    spec = RunSpec(run_id=run_id, total=total, unit_size=1, pack="bench")
    assert store.create_run(spec, "p", time.time()).won
    store.put_units(run_id, plan_units(spec))
    assert store.mark_planned(run_id, "p", time.time())


@pytest.mark.fleet
def test_a_fleet_spreads_unit_writes_evenly_over_the_blocks(
    table: tuple[str, Any], run_id: str, tmp_path: Path, s3_out: str
) -> None:
    uri, raw = table
    units, tasks = 6 * DYNAMODB_BLOCKS, 4
    ops = tmp_path / "ops"
    env = worker_env(uri, s3_out, run_id, units, unit_size=1, BENCH_DOC_MS=20,
                     STORE_OPS=str(ops / "ops-{pid}.json"))
    # the lease index while the fleet works: every entry must be under its unit's block
    seen: dict[str, set[str]] = {}
    done = threading.Event()

    def watch_leases() -> None:
        while not done.is_set():
            for entry in scan(raw, IndexName="leases"):
                if str(entry["pk"]).startswith(f"RUN#{run_id}"):
                    seen.setdefault(entry["lease_pk"], set()).add(entry["sk"])
            done.wait(0.05)

    watcher = threading.Thread(target=watch_leases, daemon=True)
    watcher.start()
    procs = start_fleet(env, tasks, tmp_path / "logs")
    try:
        assert wait_all(procs, 600) == [0] * tasks
    finally:
        done.set()
        watcher.join(10)
    store = open_state_store(uri)
    try:
        assert store.get_run(run_id).state.value == "COMPLETED"
        assert store.progress(run_id).counts == {UnitState.DONE: units}
    finally:
        store.close()

    # every unit item is in its block, every counter under its key; nothing under the old
    # run key
    items = [it for it in scan(raw) if str(it["pk"]).startswith(f"RUN#{run_id}")]
    unit_items = [it for it in items if str(it["sk"]).startswith("UNIT#")]
    assert len(unit_items) == units
    for it in unit_items:
        assert it["pk"] == block_pk(run_id, int(it["idx"]) % DYNAMODB_BLOCKS), it
    counters = sorted(it["pk"] for it in items if str(it["sk"]).startswith("COUNT"))
    assert counters == [counter_pk(run_id, c) for c in range(DYNAMODB_COUNTERS)]
    assert not [it for it in items if it["pk"] == f"RUN#{run_id}"
                and str(it["sk"]).startswith(("UNIT#", "COUNT"))], "the old layout's keys"
    # the lease index: sharded by block, never the old unsharded key (the run id)
    assert seen, "the watcher saw no RUNNING unit in the lease index"
    assert run_id not in seen
    for key, sks in seen.items():
        for sk in sks:
            assert key == lease_pk(run_id, int(str(sk).removeprefix("UNIT#")) % DYNAMODB_BLOCKS)

    # the writes the fleet sent, per partition key: each block and each counter takes its
    # share (within 2x of the mean of its kind)
    dumps = load(list(ops.glob("ops-*.json")))
    assert len(dumps) == tasks
    writes = key_writes(dumps)
    blocks = {k: writes.get(k, 0.0) for k in (block_pk(run_id, b)
                                              for b in range(DYNAMODB_BLOCKS))}
    counts = {k: writes.get(k, 0.0) for k in (counter_pk(run_id, c)
                                              for c in range(DYNAMODB_COUNTERS))}
    assert set(writes) <= {*blocks, *counts, f"RUN#{run_id}"}, sorted(writes)
    for kind, per_key, least in (("block", blocks, 6 * (1 + 2 + 2)),
                                 ("counter", counts, 24 * (2 + 2))):
        mean = sum(per_key.values()) / len(per_key)
        # at least: each unit's put, claim and completion (2 each, in a transaction)
        assert mean >= least, f"{mean:.1f} write units per {kind} key"
        assert max(per_key.values()) <= 2 * mean, (kind, per_key)
        assert min(per_key.values()) >= mean / 2, (kind, per_key)
    # the run's own partition takes the marker and the finalizer, not the units
    assert writes.get(f"RUN#{run_id}", 0.0) <= 0.05 * sum(blocks.values()), writes


@pytest.fixture
def s3_out(request: pytest.FixtureRequest) -> str:
    moto = request.getfixturevalue("moto_emulator")
    return emulators.make_s3_bucket(moto, f"layout-{uuid.uuid4().hex[:10]}")


def plant_old_layout_run(store: DynamoDBStateStore, raw: Any, run_id: str, units: int,
                         layout: int | None = None) -> None:
    """A run as the unsharded layout (1) wrote it: the marker without ``layout``, every
    unit and counter under ``pk=RUN#{run_id}``, the lease index under the run id."""
    spec = RunSpec(run_id=run_id, total=units, unit_size=1, pack="bench")
    assert store.create_run(spec, "p", 1.0).won
    raw.update_item(Key={"pk": f"RUN#{run_id}", "sk": "RUN"},
                    UpdateExpression="SET planned = :t, #s = :r REMOVE layout, blocks"
                    if layout is None else "SET planned = :t, #s = :r, layout = :v",
                    ExpressionAttributeNames={"#s": "state"},
                    ExpressionAttributeValues={":t": True, ":r": "RUNNING",
                                               **({":v": layout} if layout else {})})
    for i in range(units):
        raw.put_item(Item={"pk": f"RUN#{run_id}", "sk": f"UNIT#{i:08d}", "idx": i,
                           "start": i, "count": 1, "state": "PENDING", "attempts": 0,
                           "generation": 0, "pending_pk": f"{run_id}#0", "pending_sk": i})
    raw.put_item(Item={"pk": f"RUN#{run_id}", "sk": "COUNT#000", "init": True,
                       "PENDING": units})


def test_an_old_layout_run_is_read_and_deleted_but_never_worked(
    dynamo: Dynamo, run_id: str, tmp_path: Path
) -> None:
    uri, store, raw = dynamo
    plant_old_layout_run(store, raw, run_id, 3)
    with closing(open_state_store(uri)) as fresh:  # a process that never saw the run
        # the read-only views read the old keys: nothing silently missing
        assert [u.index for u in fresh.units(run_id)] == [0, 1, 2]
        assert fresh.progress(run_id).counts == {UnitState.PENDING: 3}
        with pytest.raises(RunConflictError, match="layout 1"):
            fresh.claim_next_unit(run_id, "w", 0, 30, 2.0)
        with pytest.raises(RunConflictError, match="layout 1"):
            fresh.reopen_units(run_id, [0], "why", 2.0)
    listed = cli("list", "--json", "--state", uri)
    assert listed.returncode == 0, listed.stderr
    row, = (r for r in json.loads(listed.stdout) if r["run_id"] == run_id)
    assert {k: n for k, n in row["units"].items() if n} == {"PENDING": 3}
    # a task on it stops at once with one line saying what to do
    env = worker_env(uri, f"file://{tmp_path / 'out'}", run_id, 3, unit_size=1)
    result = cli("work", env=env)
    assert_one_line_error(result, "layout 1", "docfleet delete", code=2,
                          nothing_under=tmp_path / "out")
    assert all(u.state == UnitState.PENDING for u in store.units(run_id))
    # delete takes the old keys too
    assert store.delete_run(run_id)
    assert not [it for it in scan(raw) if str(it["pk"]).startswith(f"RUN#{run_id}")]
    assert store.units(run_id) == []


def test_a_run_of_a_newer_layout_is_refused_even_for_reading(
    dynamo: Dynamo, run_id: str
) -> None:
    uri, store, raw = dynamo
    plant_old_layout_run(store, raw, run_id, 2, layout=99)
    with closing(open_state_store(uri)) as fresh:
        for read in (fresh.units, fresh.progress, fresh.running_units):
            with pytest.raises(RunConflictError, match="newer docfleet"):
                read(run_id)
    assert store.delete_run(run_id)


def test_a_release_gives_the_attempt_back_never_below_zero(
    dynamo: Dynamo, run_id: str
) -> None:
    _, store, raw = dynamo
    planned(store, run_id, 3)
    layout = dynamodb_layout(3)
    first = store.claim_next_unit(run_id, "a", 0, 30, time.time())
    assert first is not None and first.attempts == 1
    assert store.release_unit(first, time.time())
    assert store.units(run_id)[first.unit_index].attempts == 0
    # a unit whose stored attempts are already 0 while RUNNING (as a layout writer
    # before the floor could leave it): the release keeps 0, never -1
    again = store.claim_next_unit(run_id, "b", 0, 30, time.time())
    assert again is not None
    raw.update_item(Key=unit_key(layout, run_id, again.unit_index),
                    UpdateExpression="SET attempts = :z",
                    ExpressionAttributeValues={":z": 0})
    assert store.release_unit(again, time.time())
    unit = store.units(run_id)[again.unit_index]
    assert (unit.state, unit.attempts) == (UnitState.PENDING, 0)
    # a stale claim is still fenced out by the floor's fallback read
    third = store.claim_next_unit(run_id, "c", 0, 30, time.time())
    assert third is not None
    stale = Claim(**{**third.__dict__, "token": "someone-else", "attempts": 5})
    assert not store.release_unit(stale, time.time())
    assert store.units(run_id)[third.unit_index].state == UnitState.RUNNING
    raw_counts = raw.query(KeyConditionExpression=Key("pk").eq(
        counter_pk(run_id, layout.counter(third.unit_index))) & Key("sk").eq("COUNT"))
    assert raw_counts["Items"][0]["RUNNING"] == 1


@pytest.mark.parametrize("units", [1, 7, 32, 100, 1001])
def test_the_layout_spreads_every_unit_once(units: int) -> None:
    layout = dynamodb_layout(units)
    assert sum(layout.block_sizes()) == units == sum(layout.counter_sizes())
    assert max(layout.block_sizes()) - min(layout.block_sizes()) <= 1
    order = layout.write_order(list(range(units)))
    assert sorted(order) == list(range(units))
    # the plan's writes round-robin over the pending shards: no run of one shard longer
    # than the number of units it holds more than the smallest shard
    shards = [layout.pending_shard(i) for i in order]
    sizes = [shards.count(s) for s in range(layout.pending_shards)]
    longest = max(len(list(g)) for _, g in itertools.groupby(shards))
    assert longest <= 1 + max(sizes) - min(sizes)
