"""The Firestore store's ledger half (:class:`~docfleet.state.base.LedgerStore`): spend
counters sharded per (run, model), the quarantine set, and the budget document that every
reservation compare-and-sets, the cap checked by the shared rule
(:func:`docfleet.state.budget.fits`)."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from docfleet.state import budget
from docfleet.state.base import TOTAL_SPEND_KEY, BudgetState
from docfleet.state.firestore.client import (
    FAULT_ENV,
    META_COLLECTION,
    SPEND_SHARDS,
    TIMEOUT,
    FirestoreClient,
)
from docfleet.state.firestore.schema import FIRESTORE_SPEND_COLLECTION

T = TypeVar("T")


class FirestoreLedger(FirestoreClient):
    """Spend, quarantine and budget reservations in a run's Firestore subcollections."""

    # -- spend and quarantine ---------------------------------------------------------
    def _spend_ref(self, run_id: str, model: str, shard: int) -> Any:
        key = hashlib.sha256(model.encode()).hexdigest()[:20]
        return self._run_ref(run_id).collection(FIRESTORE_SPEND_COLLECTION) \
            .document(f"{key}.{shard}")

    def add_spend(self, run_id: str, model: str, nano_dollars: int) -> None:
        shard = random.randrange(SPEND_SHARDS)
        amount = int(nano_dollars)

        def write() -> None:
            batch = self._client.batch()
            for key in (model, TOTAL_SPEND_KEY):
                batch.set(self._spend_ref(run_id, key, shard),
                          {"model": key, "nano": self._fs.Increment(amount)}, merge=True)
            # the budget guard's `spent` moves with the rollup (atomically, in this batch)
            batch.set(self._budget_ref(run_id), {"spent": self._fs.Increment(amount)},
                      merge=True)
            batch.commit(retry=None, timeout=TIMEOUT)

        self._call("add_spend", write)

    def _spend(self, run_id: str) -> dict[str, int]:
        totals: dict[str, int] = {}
        for s in self._stream("spend", self._run_ref(run_id)
                              .collection(FIRESTORE_SPEND_COLLECTION)):
            d = s.to_dict()
            totals[d["model"]] = totals.get(d["model"], 0) + int(d.get("nano") or 0)
        return totals

    def total_spend(self, run_id: str) -> int:
        return self._spend(run_id).get(TOTAL_SPEND_KEY, 0)

    def spend_by_model(self, run_id: str) -> dict[str, int]:
        return {m: n for m, n in self._spend(run_id).items() if m != TOTAL_SPEND_KEY}

    def _quarantine_ref(self, run_id: str) -> Any:
        return self._run_ref(run_id).collection(META_COLLECTION).document("quarantine")

    def quarantine_providers(self, run_id: str, providers: Iterable[str]) -> None:
        names = sorted(set(providers))
        if names:
            self._call("quarantine", lambda: self._quarantine_ref(run_id).set(
                {"providers": self._fs.ArrayUnion(names)}, merge=True, retry=None,
                timeout=TIMEOUT))

    def quarantined_providers(self, run_id: str) -> set[str]:
        snap = self._call("quarantine", lambda: self._read(self._quarantine_ref(run_id)))
        return set(snap.get("providers") or []) if snap.exists else set()

    # -- fleet budget (issue 5; compare-and-set since issue 12) -----------------------
    # One document ``…/meta/budget`` holds ``spent`` (the settled total), ``reserved`` and
    # the live reservations ``{id: {nano, expires_at}}``. Every budget change is a
    # compare-and-set on it, like the claims: read it, decide, write only if it is
    # unchanged since the read (an ``update_time`` precondition; ``create`` when it does
    # not exist yet), else re-read with backoff. No transaction, so no lock to time out
    # (the emulator's "Transaction lock timeout" under racing reservers). A settle writes
    # the budget document and the spend counter shards in one atomic batch, and
    # ``add_spend`` increments ``spent`` in the same batch as its shards, so ``spent``
    # always equals the rollup total. Write rate: a document sustains about one write per
    # second, so a fleet making more calls than that uses block reservations
    # (DOCFLEET_CATALOGUE_BLOCK_CALLS; the catalogue defaults to blocks on firestore://).
    def _budget_ref(self, run_id: str) -> Any:
        return self._run_ref(run_id).collection(META_COLLECTION).document("budget")

    def _budget_cas(self, op: str, run_id: str,
                    change: Callable[[dict[str, Any]], tuple[dict[str, Any] | None, T]],
                    extra: Callable[[Any], None] | None = None) -> T:
        """Compare-and-set on the budget document: ``change(data)`` returns (the new
        document or ``None`` to write nothing, the result). ``extra(batch)`` adds writes
        that commit atomically with it. A lost race re-reads, within the retry bound."""
        from google.api_core import exceptions as gexc

        ref = self._budget_ref(run_id)

        def attempt() -> T:
            snap = self._read(ref)
            data = snap.to_dict() if snap.exists else {}
            if "spent" not in data:  # a ledger written before `spent` was kept here
                data["spent"] = self._spend(run_id).get(TOTAL_SPEND_KEY, 0)
            doc, result = change(data)
            if doc is None:
                return result
            if self._fault is not None and random.random() < self._fault:
                raise gexc.Aborted(f"injected fault ({FAULT_ENV}={self._fault})")
            batch = self._client.batch()
            if snap.exists:
                batch.update(ref, doc, option=self._client.write_option(
                    last_update_time=snap.update_time))
            else:
                batch.create(ref, doc)
            if extra is not None:
                extra(batch)
            try:
                batch.commit(retry=None, timeout=TIMEOUT)
            except (gexc.FailedPrecondition, gexc.Conflict):
                raise gexc.Aborted("the budget document changed since it was read") from None
            return result

        return self._call(op, attempt)

    def reserve_budget(
        self, run_id: str, reservation_id: str, nano: int, cap_nano: int, expires_at: float
    ) -> bool:
        def change(data: dict[str, Any]) -> tuple[dict[str, Any] | None, bool]:
            held = dict(data.get("reservations") or {})
            if reservation_id in held:
                return None, True
            reserved = int(data.get("reserved") or 0)
            if not budget.fits(data["spent"], reserved, nano, cap_nano):
                return None, False
            held[reservation_id] = {"nano": int(nano), "expires_at": float(expires_at)}
            return {"spent": int(data["spent"]), "reserved": reserved + int(nano),
                    "reservations": held}, True

        return self._budget_cas("reserve_budget", run_id, change)

    def settle_reservation(
        self, run_id: str, reservation_id: str, spend: Mapping[str, int]
    ) -> bool:
        amounts = budget.settled(spend)
        shard = random.randrange(SPEND_SHARDS)

        def change(data: dict[str, Any]) -> tuple[dict[str, Any] | None, bool]:
            held = dict(data.get("reservations") or {})
            entry = held.pop(reservation_id, None)
            reserved = int(data.get("reserved") or 0) - (int(entry["nano"]) if entry else 0)
            return {"spent": int(data["spent"]) + amounts[TOTAL_SPEND_KEY],
                    "reserved": reserved, "reservations": held}, entry is not None

        def shards(batch: Any) -> None:
            for key, amount in amounts.items():
                batch.set(self._spend_ref(run_id, key, shard),
                          {"model": key, "nano": self._fs.Increment(amount)}, merge=True)

        return self._budget_cas("settle_reservation", run_id, change, shards)

    def release_expired_reservations(self, run_id: str, now: float) -> int:
        def change(data: dict[str, Any]) -> tuple[dict[str, Any] | None, int]:
            held = dict(data.get("reservations") or {})
            expired = [k for k, v in held.items() if float(v["expires_at"]) < now]
            if not expired:
                return None, 0
            freed = sum(int(held.pop(k)["nano"]) for k in expired)
            return {"spent": int(data["spent"]), "reserved": int(data.get("reserved") or 0)
                    - freed, "reservations": held}, len(expired)

        return self._budget_cas("release_expired_reservations", run_id, change)

    def budget_state(self, run_id: str) -> BudgetState:
        snap = self._call("budget", lambda: self._read(self._budget_ref(run_id)))
        data = snap.to_dict() if snap.exists else {}
        spent = int(data["spent"]) if "spent" in data else self.total_spend(run_id)
        return BudgetState(spent, int(data.get("reserved") or 0),
                           len(data.get("reservations") or {}))

