"""The DynamoDB claim reads an eventually consistent index: a stale entry (a unit the index
still lists as pending after the table moved it on) must lose its condition, never be
claimed twice. moto's index is consistent, so the stale entry is planted on the item."""

from __future__ import annotations

import time
import uuid

import boto3
import pytest

from docfleet.core.errors import StoreUnavailableError
from docfleet.core.models import RunSpec, UnitState
from docfleet.kernel.planner import plan_units
from docfleet.state import open_state_store
from docfleet.state.dynamodb.schema import dynamodb_layout, unit_key
from docfleet.state.dynamodb.store import DynamoDBStateStore
from support import emulators


@pytest.fixture
def table(request: pytest.FixtureRequest) -> tuple[str, str]:
    moto = request.getfixturevalue("moto_emulator")
    name = f"stale-{uuid.uuid4().hex[:10]}"
    return emulators.make_dynamodb_table(moto, name) + "&retry_seconds=2", name


def test_a_stale_pending_entry_loses_its_condition_and_is_never_claimed_twice(
    table: tuple[str, str], run_id: str, request: pytest.FixtureRequest
) -> None:
    uri, name = table
    store = open_state_store(uri)
    assert isinstance(store, DynamoDBStateStore)
    spec = RunSpec(run_id=run_id, total=2, unit_size=1, pack="bench")
    store.create_run(spec, "p", time.time())
    store.put_units(run_id, plan_units(spec))
    store.mark_planned(run_id, "p", time.time())
    first = store.claim_next_unit(run_id, "a", 0, 30, time.time())
    assert first is not None and first.unit_index == 0
    # the index still lists unit 0 as pending (as a lagging GSI would)
    moto = request.getfixturevalue("moto_emulator")
    ddb = boto3.session.Session().resource("dynamodb", endpoint_url=moto.url,
                                           region_name=emulators.AWS_REGION).Table(name)
    key = unit_key(dynamodb_layout(2), run_id, 0)
    ddb.update_item(Key=key, UpdateExpression="SET pending_pk = :p, pending_sk = :s",
                    ExpressionAttributeValues={":p": f"{run_id}#0", ":s": 0})
    lost = store.lost_races
    second = store.claim_next_unit(run_id, "b", 0, 30, time.time())
    assert second is not None and second.unit_index == 1, "the stale entry was skipped"
    assert store.lost_races == lost + 1
    # only the stale entry is left: the claim keeps losing, then says why after its bound
    with pytest.raises(StoreUnavailableError, match="pending index is lagging"):
        store.claim_next_unit(run_id, "c", 0, 30, time.time())
    units = store.units(run_id)
    assert [u.state for u in units] == [UnitState.RUNNING, UnitState.RUNNING]
    assert units[0].lease_owner == first.token
    # the index catches up: nothing is pending
    ddb.update_item(Key=key, UpdateExpression="REMOVE pending_pk, pending_sk")
    assert store.claim_next_unit(run_id, "c", 0, 30, time.time()) is None
