"""The claim queue of one task: how it gets its next unit and records the ones it did.

One interface, :class:`ClaimQueue`, over the three ways a store claims, chosen once when
the task starts: one unit at a time (``claim_next_unit``); the next unit claimed with
the last one's completion (``complete_and_claim_next``: one statement on PostgreSQL);
or short units in batches (``complete_and_claim_units``, sized by
:mod:`docfleet.kernel.claimbatch`), whose units claimed ahead spend their attempt only
as they start (``start_unit``). The executor asks for a unit (:meth:`ClaimQueue.next`),
reports a finished one (:meth:`ClaimQueue.complete`) and gives one back
(:meth:`ClaimQueue.release`); :meth:`ClaimQueue.hand_back` records and returns what
the task still holds when it leaves."""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from docfleet import telemetry
from docfleet.core import clock
from docfleet.core.models import Claim, RunSpec
from docfleet.core.settings import Settings
from docfleet.kernel.claimbatch import BatchSizer, batch_window
from docfleet.state.base import StateStore
from docfleet.state.optional import (
    claims_in_batches,
    complete_and_claim_next,
    complete_and_claim_units,
    lost_races,
    start_unit,
)


class ClaimQueue:
    """Claims for one task of run ``spec`` as ``owner``. ``with_completion()`` says
    whether the task would claim right after a completion (no stop, no run-state check
    due, no write ramp); ``batches`` allows batches on a store that offers them (not
    under a write ramp, whose governor spaces each claim)."""

    def __init__(self, store: StateStore, spec: RunSpec, owner: str, settings: Settings,
                 log: logging.Logger, stop: threading.Event,
                 with_completion: Callable[[], bool], batches: bool = True) -> None:
        self.store = store
        self.spec = spec
        self.owner = owner
        self.settings = settings
        self.log = log
        self.stop = stop
        self._with_completion = with_completion
        #: Where the next search starts: just past the last unit claimed (wrapping).
        self.hint = 0
        # units claimed ahead (by the call that completed the last unit, or with a batch),
        # oldest first, each with its claim span's start, attributes and operation
        self._ahead: deque[tuple[Claim, int, dict[str, Any], str]] = deque()
        # a store that claims and completes many units in one write (PostgreSQL) gets
        # batches sized to the task's unit time (docfleet.kernel.claimbatch)
        window = batch_window(settings.claim_batch_seconds, settings.lease_seconds,
                              settings.heartbeat)
        self._batches = (BatchSizer(window) if window > 0 and batches
                         and claims_in_batches(store) else None)
        # finished units of a batch whose completion is recorded with the batch's last
        # one (or with the next unit's start): (claim, part sha256, bytes written)
        self._unrecorded: list[tuple[Claim, str, int]] = []

    @property
    def holding(self) -> bool:
        """Whether units claimed ahead wait to be worked."""
        return bool(self._ahead)

    def next(self) -> Claim | None:
        """The next unit to work: the oldest claimed ahead, else a fresh claim (a batch
        with batches), or ``None`` when nothing is claimable now."""
        claim = self._take_next() or self._claim(self.hint)
        if claim is not None:
            self.hint = (claim.unit_index + 1) % max(1, self.spec.unit_count)
        return claim

    def observe(self, unit_seconds: float) -> None:
        """A unit's time from its start to its part written (sizes the next batch)."""
        if self._batches is not None:
            self._batches.observe(unit_seconds)

    def _claim(self, hint: int) -> Claim | None:
        """``claim_next_unit``; when tracing, a ``docfleet.claim`` span for each claim
        (and for an empty poll only if it lost races: idle polls make no spans). With
        batches: the batch's unrecorded completions and a new batch, in one call."""
        if self._batches is not None:
            self._record(self._batches.size())
            return self._take_next()
        if not telemetry.enabled():
            return self.store.claim_next_unit(self.spec.run_id, self.owner, hint,
                                              self.settings.lease_seconds, clock.now())
        races = lost_races(self.store)
        started, t0 = telemetry.now_ns(), time.perf_counter()
        claim = self.store.claim_next_unit(self.spec.run_id, self.owner, hint,
                                           self.settings.lease_seconds, clock.now())
        attrs = telemetry.claim_attributes(claim, time.perf_counter() - t0, races,
                                           lost_races(self.store))
        if claim is not None or attrs.get("docfleet.claim.lost_races"):
            telemetry.record_span("docfleet.claim", started, {
                **telemetry.db_attributes(self.store.uri), "db.operation.name": "claim_next_unit",
                "docfleet.claim.hint": hint, **attrs}, kind=telemetry.SpanKind.CLIENT)
        return claim

    def complete(self, claim: Claim, part_sha: str, written: int) -> bool | None:
        """Mark the unit DONE (fenced). When the task goes on claiming (no stop, no
        run-state check due) the same call claims the next unit
        (``complete_and_claim_next``: one statement on PostgreSQL), which the drain loop
        then works; a fenced completion claims nothing. With batches the completion waits
        for the batch's last unit and is recorded (and logged) with it: ``None``."""
        if self._batches is not None:
            self._unrecorded.append((claim, part_sha, written))
            if not self._ahead or self.stop.is_set():
                self._record(self._batches.size() if self._with_completion() else 0)
            return None
        if not self._with_completion():
            return self.store.complete_unit(claim, part_sha, clock.now())
        started, t0 = telemetry.now_ns(), time.perf_counter()
        races = lost_races(self.store) if telemetry.enabled() else None
        completed, nxt = complete_and_claim_next(
            self.store, claim, part_sha, self.owner, self.hint,
            self.settings.lease_seconds, clock.now())
        if nxt is not None:
            attrs = {"docfleet.claim.hint": self.hint, **telemetry.claim_attributes(
                nxt, time.perf_counter() - t0, races, lost_races(self.store))} if started else {}
            self._ahead.append((nxt, started, attrs, "complete_and_claim_next"))
        return completed

    def _record(self, want: int) -> None:
        """Batches: record the unrecorded completions and claim up to ``want`` units, in
        one call (``complete_and_claim_units``); log each completion; the claims join
        the units claimed ahead (their hint: just past the last unit claimed); a fenced
        completion claims nothing (the drain loop then claims afresh)."""
        done, self._unrecorded = self._unrecorded, []
        if not done and want <= 0:
            return
        started, t0 = telemetry.now_ns(), time.perf_counter()
        races = lost_races(self.store) if telemetry.enabled() else None
        applied, claims = complete_and_claim_units(
            self.store, self.spec.run_id, [(c, sha) for c, sha, _ in done],
            self.owner, self.hint, want, self.settings.lease_seconds, clock.now())
        for (claim, _, written), ok in zip(done, applied, strict=True):
            self.log_completion(claim, ok, written)
        seconds = time.perf_counter() - t0
        races_after = lost_races(self.store) if started else None
        for nxt in claims:
            attrs = {"docfleet.claim.hint": self.hint, "docfleet.claim.batch": len(claims),
                     **telemetry.claim_attributes(nxt, seconds, races, races_after)
                     } if started else {}
            self._ahead.append((nxt, started, attrs, "complete_and_claim_units"))

    def hand_back(self) -> None:
        """Leaving: record the batch's finished units and give back the units claimed
        ahead and not started (fenced; no attempt burnt), so peers take them at once."""
        if self._unrecorded:
            self._record(0)
        while self._ahead:
            claim, *_ = self._ahead.popleft()
            self.release(claim)

    def log_completion(self, claim: Claim, completed: bool, written: int) -> None:
        if not completed:
            self.log.warning("unit %d was reclaimed before it completed; its new owner "
                             "will complete it", claim.unit_index,
                             extra={"event": "unit.fenced", "unit": claim.unit_index})
            return
        self.log.info("completed unit %d: %d documents, %d bytes", claim.unit_index,
                      claim.count, written,
                      extra={"event": "unit.done", "unit": claim.unit_index,
                             "token": claim.token})

    def _take_next(self) -> Claim | None:
        """The oldest unit claimed ahead, if any; its ``docfleet.claim`` span is recorded
        now, as a child of the task's span like any claim's. A unit claimed ahead whose
        lease has run down past a heartbeat and half the rest (a batch held up by a slow
        unit) is given back with the rest of its batch, and the batch's finished units
        are recorded: the task then claims afresh. A unit claimed ahead and not yet
        charged spends its attempt now (``start_unit``), as its work starts, in the
        same write that records the batch's units finished so far."""
        if not self._ahead:
            return None
        heartbeat = self.settings.heartbeat
        fresh = heartbeat + (self.settings.lease_seconds - heartbeat) / 2
        if self._ahead[0][0].lease_expires_at - clock.now() < fresh:
            self.log.info("giving back %d unit(s) claimed ahead: their leases ran down",
                          len(self._ahead), extra={"event": "batch.stale"})
            self.hand_back()
            return None
        claim, started, attrs, operation = self._ahead.popleft()
        charged: Claim | None = claim
        if not claim.charged:
            # the attempt is spent now, as work starts, in one write with the batch's
            # finished units (a SIGKILL then fails the unit in flight, and only it)
            done, self._unrecorded = self._unrecorded, []
            applied, charged = start_unit(self.store, claim, clock.now(),
                                          [(c, sha) for c, sha, _ in done])
            for (finished, _, written), ok in zip(done, applied, strict=True):
                self.log_completion(finished, ok, written)
        if charged is None:
            self.log.warning("unit %d claimed ahead was reclaimed before it started",
                             claim.unit_index,
                             extra={"event": "batch.taken", "unit": claim.unit_index})
            return self._take_next()
        claim = charged
        if started:
            # the attempt the unit is worked as (spent now if it was claimed ahead)
            telemetry.record_span("docfleet.claim", started, {
                **telemetry.db_attributes(self.store.uri),
                "db.operation.name": operation, **attrs,
                **({"docfleet.unit.attempt": claim.attempts}
                   if "docfleet.unit.attempt" in attrs else {})},
                kind=telemetry.SpanKind.CLIENT)
        return claim

    def release(self, claim: Claim) -> None:
        """Give ``claim``'s unit back for a peer at once (fenced; no attempt burnt)."""
        with telemetry.span("docfleet.lease.release",
                            {"docfleet.unit.index": claim.unit_index}) as s:
            released = self.store.release_unit(claim, clock.now())
            s.set_attribute("docfleet.lease.released", released)
        self.log.info("released unit %d for a peer" if released else
                      "unit %d was already reclaimed", claim.unit_index,
                      extra={"event": "lease.release", "unit": claim.unit_index})
