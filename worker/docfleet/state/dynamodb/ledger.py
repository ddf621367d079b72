"""The DynamoDB store's ledger half (:class:`~docfleet.state.base.LedgerStore`): spend
items per (run, model) and the run's total, the quarantine string set, and budget
reservations (``BUDGET`` holds their sum, ``RES#<id>`` each), every change one
``TransactWriteItems``; a reservation is granted by the shared rule
(:func:`docfleet.state.budget.headroom`) as its condition."""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from docfleet.core.errors import StoreUnavailableError
from docfleet.state import budget
from docfleet.state.base import TOTAL_SPEND_KEY, BudgetState
from docfleet.state.codecs import as_decimal as _d
from docfleet.state.codecs import as_float as _f
from docfleet.state.codecs import as_int as _i
from docfleet.state.dynamodb.client import MAX_CLAIM_ROUNDS, DynamoDBClient


class DynamoDBLedger(DynamoDBClient):
    """Spend, quarantine and budget reservations in a run's own partition."""

    # -- spend and quarantine ---------------------------------------------------------
    def add_spend(self, run_id: str, model: str, nano_dollars: int) -> None:
        token = uuid.uuid4().hex  # the same token on every retry: applied at most once

        def update(key: str) -> dict[str, Any]:
            return {"Update": {
                "TableName": self.table_name,
                "Key": {"pk": f"RUN#{run_id}", "sk": f"SPEND#{key}"},
                "UpdateExpression": "ADD nano :n SET #model = :m",
                "ExpressionAttributeValues": {":n": int(nano_dollars), ":m": key},
                "ExpressionAttributeNames": {"#model": "model"},
            }}

        self._call("add_spend", lambda: self._client.transact_write_items(
            TransactItems=[update(model), update(TOTAL_SPEND_KEY)], ClientRequestToken=token))

    def _spend_items(self, run_id: str) -> Iterator[dict[str, Any]]:
        from boto3.dynamodb.conditions import Key

        return self._query(
            "spend", ConsistentRead=True,
            KeyConditionExpression=Key("pk").eq(f"RUN#{run_id}")
            & Key("sk").begins_with("SPEND#"),
        )

    def total_spend(self, run_id: str) -> int:
        item = self._get({"pk": f"RUN#{run_id}", "sk": f"SPEND#{TOTAL_SPEND_KEY}"})
        return _i(item.get("nano")) if item else 0

    def spend_by_model(self, run_id: str) -> dict[str, int]:
        return {it["model"]: _i(it.get("nano")) for it in self._spend_items(run_id)
                if it["model"] != TOTAL_SPEND_KEY}

    def quarantine_providers(self, run_id: str, providers: Iterable[str]) -> None:
        names = set(providers)
        if names:
            self._update("quarantine", {"pk": f"RUN#{run_id}", "sk": "QUARANTINE"},
                         "ADD providers :p", None, {":p": names})

    def quarantined_providers(self, run_id: str) -> set[str]:
        item = self._get({"pk": f"RUN#{run_id}", "sk": "QUARANTINE"})
        return set(item.get("providers", set())) if item else set()

    # -- fleet budget (issue 5) -------------------------------------------------------
    # Items: ``BUDGET`` holds ``reserved`` (sum of live reservations); ``RES#<id>`` one
    # reservation (nano, expires_at). Spent is the SPEND#__total__ rollup item. A reserve
    # is one TransactWriteItems: ConditionCheck that the total spend is still the value
    # read (optimistic: a concurrent settle/add_spend cancels it and it re-reads), an
    # UpdateItem of BUDGET conditional on reserved <= cap - spent - nano, and a Put of the
    # reservation conditional on its absence (idempotency).
    def _budget_key(self, run_id: str, sk: str = "BUDGET") -> dict[str, str]:
        return {"pk": f"RUN#{run_id}", "sk": sk}

    def reserve_budget(
        self, run_id: str, reservation_id: str, nano: int, cap_nano: int, expires_at: float
    ) -> bool:
        res_key = self._budget_key(run_id, f"RES#{reservation_id}")
        for _ in range(MAX_CLAIM_ROUNDS):
            if self._get(res_key) is not None:
                return True
            spent_item = self._get(self._budget_key(run_id, f"SPEND#{TOTAL_SPEND_KEY}"))
            spent = _i(spent_item.get("nano")) if spent_item else 0
            limit = budget.headroom(spent, nano, cap_nano)
            if limit < 0:
                return False
            check: dict[str, Any] = {
                "TableName": self.table_name,
                "Key": self._budget_key(run_id, f"SPEND#{TOTAL_SPEND_KEY}"),
            }
            if spent_item is None or "nano" not in spent_item:
                check["ConditionExpression"] = "attribute_not_exists(nano)"
            else:
                check["ConditionExpression"] = "nano = :spent"
                check["ExpressionAttributeValues"] = {":spent": spent}
            reasons = self._transact("reserve_budget", [
                {"ConditionCheck": check},
                {"Update": {
                    "TableName": self.table_name, "Key": self._budget_key(run_id),
                    "UpdateExpression": "ADD reserved :n",
                    "ConditionExpression": "attribute_not_exists(reserved) OR reserved <= :lim",
                    "ExpressionAttributeValues": {":n": int(nano), ":lim": limit},
                }},
                {"Put": {
                    "TableName": self.table_name,
                    "Item": {**res_key, "nano": int(nano), "expires_at": _d(expires_at)},
                    "ConditionExpression": "attribute_not_exists(pk)",
                }},
            ])
            if reasons is None:
                return True
            failed = [r == "ConditionalCheckFailed" for r in reasons] + [False] * 3
            if failed[2]:
                return True  # this reservation is already held
            if failed[1]:
                return False  # spent + reserved + nano would pass the cap
            time.sleep(random.uniform(0.005, 0.05))  # spend moved under us: re-read
        raise StoreUnavailableError(f"{self.uri}: budget reservation kept racing settles",
                                    "retry later")

    def _spend_updates(self, run_id: str, spend: dict[str, int]) -> list[dict[str, Any]]:
        total = sum(spend.values())
        return [{"Update": {
            "TableName": self.table_name,
            "Key": self._budget_key(run_id, f"SPEND#{key}"),
            "UpdateExpression": "ADD nano :n SET #model = :m",
            "ExpressionAttributeValues": {":n": int(amount), ":m": key},
            "ExpressionAttributeNames": {"#model": "model"},
        }} for key, amount in [*spend.items(), (TOTAL_SPEND_KEY, total)]]

    def settle_reservation(
        self, run_id: str, reservation_id: str, spend: Mapping[str, int]
    ) -> bool:
        amounts = {m: n for m, n in budget.settled(spend).items() if m != TOTAL_SPEND_KEY}
        res_key = self._budget_key(run_id, f"RES#{reservation_id}")
        item = self._get(res_key)
        if item is not None:
            reasons = self._transact("settle_reservation", [
                {"Delete": {"TableName": self.table_name, "Key": res_key,
                            "ConditionExpression": "attribute_exists(pk)"}},
                {"Update": {"TableName": self.table_name, "Key": self._budget_key(run_id),
                            "UpdateExpression": "ADD reserved :n",
                            "ExpressionAttributeValues": {":n": -_i(item.get("nano"))}}},
                *self._spend_updates(run_id, amounts),
            ])
            if reasons is None:
                return True
        # the reservation is gone (released at expiry): the spend is still recorded
        self._transact("settle_reservation", self._spend_updates(run_id, amounts))
        return False

    def release_expired_reservations(self, run_id: str, now: float) -> int:
        from boto3.dynamodb.conditions import Key

        released = 0
        for item in list(self._query(
            "reservations", ConsistentRead=True,
            KeyConditionExpression=Key("pk").eq(f"RUN#{run_id}") & Key("sk").begins_with("RES#"),
        )):
            expires = _f(item.get("expires_at"))
            if expires is None or expires >= now:
                continue
            reasons = self._transact("release_expired_reservations", [
                {"Delete": {"TableName": self.table_name,
                            "Key": {"pk": item["pk"], "sk": item["sk"]},
                            "ConditionExpression": "attribute_exists(pk) AND expires_at < :now",
                            "ExpressionAttributeValues": {":now": _d(now)}}},
                {"Update": {"TableName": self.table_name, "Key": self._budget_key(run_id),
                            "UpdateExpression": "ADD reserved :n",
                            "ExpressionAttributeValues": {":n": -_i(item.get("nano"))}}},
            ])
            released += reasons is None
        return released

    def budget_state(self, run_id: str) -> BudgetState:
        from boto3.dynamodb.conditions import Key

        budget = self._get(self._budget_key(run_id))
        count = sum(1 for _ in self._query(
            "reservations", ConsistentRead=True, ProjectionExpression="sk",
            KeyConditionExpression=Key("pk").eq(f"RUN#{run_id}") & Key("sk").begins_with("RES#"),
        ))
        reserved = _i(budget.get("reserved")) if budget else 0
        return BudgetState(self.total_spend(run_id), reserved, count)

