"""One task's life: race to plan, drain units (claim → render → shards → part →
complete), linger for peers' units, finalize, and exit with a code that names holes."""

from __future__ import annotations

import logging
import random
import signal
import threading
import time
import traceback
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from types import FrameType
from typing import Any

from docfleet import telemetry
from docfleet.blob.base import BlobStore
from docfleet.core import clock, faults
from docfleet.core.errors import ConfigError, DocfleetError, ManifestGapError
from docfleet.core.identity import TaskIdentity
from docfleet.core.models import (
    CLAIMABLE_RUN_STATES,
    Claim,
    Progress,
    Run,
    RunSpec,
    RunState,
    UnitState,
)
from docfleet.core.settings import Settings
from docfleet.dataset.manifest import Part, RunFiles, document_key, part_key, sha256, shard_key
from docfleet.dataset.shards import shard_bytes
from docfleet.kernel import pacing
from docfleet.kernel.claimbatch import BatchSizer, batch_window
from docfleet.kernel.finalize import finalize_run
from docfleet.kernel.lease import LeaseKeeper
from docfleet.kernel.planner import ensure_planned
from docfleet.kernel.rescue import LeaseRescuer, designated
from docfleet.packs.base import DocumentPack, PackSession, pack_context
from docfleet.state import opcount
from docfleet.state.base import StateStore
from docfleet.state.optional import (
    claims_in_batches,
    complete_and_claim_next,
    complete_and_claim_units,
    lost_races,
    start_unit,
    work_waiter,
    write_ramp,
)

EXIT_OK = 0
EXIT_HOLES = 1  # failed units remain (or the root manifest refused a gap)
EXIT_CONFIG = 2  # bad input
EXIT_STORE = 4  # a store stayed unreachable past its retry bound
EXIT_SIGINT = 130
EXIT_SIGTERM = 143

#: How often the drain loop re-reads the run's state (pause / cancel), at least; a large
#: fleet reads it less often (``pacing.FLEET_STATE_CHECKS_PER_SECOND`` for the fleet).
RUN_STATE_CHECK_SECONDS = 2.0
#: Consecutive environment faults (this task's output volume full, read-only, refusing
#: writes) after which the task exits EXIT_STORE so the engine restarts it elsewhere.
MAX_ENVIRONMENT_FAULTS = 3
#: Back-off after an environment fault: BASE * 2**(n-1) seconds, jittered, at most MAX.
ENVIRONMENT_BACKOFF_BASE, ENVIRONMENT_BACKOFF_MAX = 1.0, 30.0


class EnvironmentFault(DocfleetError):
    """A write to the output store failed for a reason of this task's environment (an
    ``OSError`` such as ENOSPC, EROFS or EACCES, or the blob store unreachable): the unit
    is released without burning an attempt."""

    exit_code = EXIT_STORE
#: Tasks with an index below this (and retried tasks) stand by while a peer finalizes,
#: to take over if it dies; the others leave as soon as a live finalizer is elected.
FINALIZE_STANDBYS = 3


@dataclass
class UnitOutcome:
    status: str  # done | lost | released | failed
    documents: int = 0
    bytes: int = 0
    renewals: int = 0  # lease renewal writes the unit took


class Worker:
    """Drains one run as one task. ``run()`` returns the process exit code."""

    def __init__(
        self,
        settings: Settings,
        spec: RunSpec,
        identity: TaskIdentity,
        store: StateStore,  # the kernel uses its coordination half; packs get the ledger
        blob: BlobStore,
        pack: DocumentPack,
        log: logging.Logger,
        pack_settings: Mapping[str, Any] | None = None,
    ) -> None:
        # a store under a write ramp (Firestore): claims spaced, lease sized to the fleet
        self._ramp = write_ramp(store)
        settings = self._ramped_settings(settings, identity, self._ramp, log)
        self.settings = settings
        self.pack_settings = dict(pack_settings or {})
        self.spec = spec
        self.identity = identity
        self.store = store
        self.files = RunFiles(blob, spec.run_id)
        self.pack = pack
        self.log = log
        self.tables = pack.tables(spec.options)
        self.stop = threading.Event()
        self.signal_received: int | None = None
        self._session: PackSession | None = None
        self._state_checked = 0.0
        self._environment_faults = 0
        # the lease watch, on its own thread from the plan on (docfleet.kernel.rescue);
        # ``_wake`` is set when it reclaims a unit, to end an idle wait at once
        self._rescuer: LeaseRescuer | None = None
        self._wake = threading.Event()
        self._state_interval = pacing.fleet_interval(
            RUN_STATE_CHECK_SECONDS, identity.count, pacing.FLEET_STATE_CHECKS_PER_SECOND)
        self._hint = 0
        # units claimed ahead (by the call that completed the last unit, or with a batch),
        # oldest first, each with its claim span's start, attributes and operation
        self._ahead: deque[tuple[Claim, int, dict[str, Any], str]] = deque()
        # a store that claims and completes many units in one write (PostgreSQL) gets
        # batches sized to the task's unit time (docfleet.kernel.claimbatch); not under a write
        # ramp, whose governor spaces each claim
        window = batch_window(settings.claim_batch_seconds, settings.lease_seconds,
                              settings.heartbeat)
        self._batches = (BatchSizer(window) if window > 0 and self._ramp is None
                         and claims_in_batches(store) else None)
        # finished units of a batch whose completion is recorded with the batch's last
        # one: (claim, part sha256, bytes written)
        self._unrecorded: list[tuple[Claim, str, int]] = []

    @staticmethod
    def _ramped_settings(settings: Settings, identity: TaskIdentity,
                         declared: tuple[pacing.WriteRamp, float] | None,
                         log: logging.Logger) -> Settings:
        """On a store under a write ramp, a lease long enough that the whole fleet's
        renewals fit the ramp's start (:func:`pacing.ramp_heartbeat`): heartbeat and lease
        scaled by the same factor. Every task of the fleet computes the same lease from
        N and the ramp, so their leases agree; a small fleet keeps its settings."""
        if declared is None:
            return settings
        heartbeat = pacing.ramp_heartbeat(declared[0], identity.count, settings.heartbeat)
        if heartbeat <= settings.heartbeat:
            return settings
        factor = heartbeat / settings.heartbeat
        scaled = settings.model_copy(update={"lease_seconds": settings.lease_seconds * factor,
                                             "heartbeat_seconds": heartbeat})
        log.info("lease %.0fs (heartbeat %.0fs): %d tasks renewing under the store's write "
                 "ramp (%s)", scaled.lease_seconds, heartbeat, identity.count, declared[0],
                 extra={"event": "ramp.lease", "lease_seconds": scaled.lease_seconds})
        return scaled

    # -- signals ----------------------------------------------------------------------
    def install_signal_handlers(self) -> None:
        """SIGTERM/SIGINT: stop claiming, finish or abandon the current document, release
        the unit so a peer can take it at once, and exit."""

        def handler(signum: int, frame: FrameType | None) -> None:
            if self.signal_received is None:
                self.log.warning("received %s: releasing work and stopping",
                                 signal.Signals(signum).name, extra={"event": "signal"})
            self.signal_received = signum
            self.stop.set()

        signal.signal(signal.SIGTERM, handler)
        signal.signal(signal.SIGINT, handler)

    # -- main loop --------------------------------------------------------------------
    def run(self) -> int:
        try:
            code = self._run()
            self._stop_rescuer()
            self._hand_back()
            return code
        finally:
            self._stop_rescuer()
            if self._session is not None:
                self._session.close()

    def _run(self) -> int:
        opcount.set_phase("plan")
        with telemetry.span("docfleet.plan", {"docfleet.run_id": self.spec.run_id,
                                              "docfleet.plan.units": self.spec.unit_count}):
            run = ensure_planned(
                self.store, self.spec, self.identity.owner,
                stale_seconds=self.settings.lease_seconds,
                poll_seconds=self.settings.poll_seconds, stop=self.stop, log=self.log,
                tasks=self.identity.count, task_index=self.identity.index,
            )
        if run is None:
            return self._signal_exit()
        self._rescuer = LeaseRescuer(
            self.store, self.spec.run_id, self.spec.max_attempts, self.settings.lease_seconds,
            designated(self.identity.index, self.identity.count), self.log,
            on_reclaim=lambda _moved: self._wake.set()).start()
        # the task's share of the index range is where it starts looking; after a claim it
        # looks on just past that unit (wrapping around), so a scan never walks again over
        # the units it took (PostgreSQL: their dead index entries, until a vacuum)
        self._hint = self.identity.index * self.spec.unit_count // self.identity.count
        idle_since: float | None = None
        # idle polls back off with jitter up to a ceiling that grows with the fleet, so
        # N lingering tasks together poll about FLEET_IDLE_POLLS_PER_SECOND times a second
        backoff = pacing.fleet_backoff(self.settings.poll_seconds, self.identity.count,
                                       pacing.FLEET_IDLE_POLLS_PER_SECOND)
        governor = self._governor(run)
        while not self.stop.is_set():
            opcount.set_phase("drain")
            # a unit claimed with the last completion was claimed as if here (no run-state
            # check was due then): it is worked before the run's state is looked at again
            if not self._ahead and not self._run_claimable():
                return EXIT_OK
            if governor is not None and (wait := governor.wait(clock.now())) > 0:
                # the fleet's writes keep under the store's ramp: this task's turn is later
                opcount.mark("ramp_ms", int(wait * 1000))
                self.stop.wait(min(wait, self._state_interval))
                continue
            opcount.set_phase("claim")
            claim = self._take_next() or self._claim(self._hint)
            if claim is not None:
                self._hint = (claim.unit_index + 1) % max(1, self.spec.unit_count)
                opcount.move("claim", "drain")
                opcount.set_phase("drain")
                opcount.mark("claim")
                idle_since = None
                if self._rescuer is not None:
                    self._rescuer.busy()
                backoff.reset()
                if governor is not None:
                    governor.claimed(clock.now())
                outcome = self._work(claim)
                if governor is not None:
                    governor.worked(outcome.renewals)
                if outcome.status == "done":
                    opcount.mark("unit_done")
                continue
            opcount.move("claim", "idle")
            opcount.set_phase("idle")
            opcount.mark("idle_poll")
            progress = self.store.progress(self.spec.run_id)  # counters: O(1) reads
            if progress.drained:
                code = self._finish(progress)
                if code is not None:
                    return code
                # the counters ran ahead of the units: linger on them as on a peer's unit
            # Nothing pending but peers' units are RUNNING: linger. The lease watch
            # (docfleet.kernel.rescue) reclaims a dead peer's unit on its own thread; a
            # reclaim wakes this wait, and the next claim takes it.
            idle_since = idle_since or time.monotonic()
            if self._rescuer is not None:
                self._rescuer.idle(progress[UnitState.RUNNING])
            left = self.settings.linger - (time.monotonic() - idle_since)
            if left < 0:
                self.log.info("leaving %d running unit(s) to their owners",
                              progress[UnitState.RUNNING], extra={"event": "linger.end"})
                return EXIT_OK
            if self._wake.is_set():
                self._wake.clear()
                backoff.reset()
                continue
            wait = min(backoff.next(), left + 0.01)
            opcount.mark("idle_ms", int(wait * 1000))
            self._idle_wait(wait)
        return self._signal_exit()

    def _governor(self, run: Run) -> pacing.ClaimGovernor | None:
        """The claim governor of a store that declares a write ramp (``None`` without
        one): N tasks, the run's plan time (its ``updated_at`` when it was marked planned
        or last changed state), the store's writes per unit. Before its first unit a task
        counts the renewals of a unit lasting one lease (``lease / heartbeat``); after, the
        renewals its last unit really took. The plan time is the planner's clock: one in
        this task's future (a planner with a fast clock) counts from now, so a bad clock
        can make the ramp look further along than it is, never stall a task."""
        if self._ramp is None:
            return None
        ramp, unit_writes = self._ramp
        first = unit_writes + self.settings.lease_seconds / self.settings.heartbeat
        planned = min(run.updated_at, clock.now())
        governor = pacing.ClaimGovernor(ramp, self.identity.count, unit_writes, planned,
                                        first_writes=first)
        self.log.info("claims spaced under the store's write ramp (%s): %.2fs apart at first",
                      ramp, governor.spacing(planned),
                      extra={"event": "ramp.governor", "ramp": str(ramp)})
        return governor

    def _idle_wait(self, seconds: float) -> None:
        """Wait ``seconds`` for peers' units, or less: a store that can signal a change
        (``wait_for_work``: PostgreSQL's LISTEN/NOTIFY for returned work, SQLite's
        ``data_version`` for any peer's commit) wakes the task at once; so do a stop and
        a unit this task's lease watch reclaimed."""
        wait_for_work = work_waiter(self.store)
        deadline = time.monotonic() + seconds
        # in slices, so SIGTERM ends the wait within half a second, and so does a unit
        # the lease watch gave back (``_wake``)
        while not self.stop.is_set() and not self._wake.is_set() and (
                left := deadline - time.monotonic()) > 0:
            if wait_for_work is None:
                self._wake.wait(min(left, 0.5))
            elif wait_for_work(self.spec.run_id, min(left, 0.5)):
                return

    def _stop_rescuer(self) -> None:
        if self._rescuer is not None:
            self._rescuer.stop()
            self._rescuer = None

    def _signal_exit(self) -> int:
        return EXIT_SIGINT if self.signal_received == signal.SIGINT else EXIT_SIGTERM

    def _state_check_due(self) -> bool:
        return time.monotonic() - self._state_checked >= self._state_interval

    def _run_claimable(self) -> bool:
        if not self._state_check_due():
            return True
        self._state_checked = time.monotonic()
        run = self.store.get_run(self.spec.run_id)
        if run is not None and run.state not in CLAIMABLE_RUN_STATES | {RunState.FAILED}:
            self.log.info("run %s is %s; not claiming", self.spec.run_id, run.state.value,
                          extra={"event": "run.stopped"})
            return False
        return True

    def _finish(self, progress: Progress) -> int | None:
        """The counters say the pool is drained. One task, elected by the finalizer lease,
        reads the units (the proof; the counters are only a hint), then finalizes if
        every unit is DONE or names the holes; the others leave at once (exit 1 if the
        counters show failed units) or, as standbys, wait to take over from a finalizer
        that dies. Returns the exit code, or ``None`` to drain on (a unit is not over yet
        after all)."""
        opcount.set_phase("finish")
        run_id = self.spec.run_id
        # at most FINALIZE_STANDBYS tasks wait here, for a finalize that takes well under a
        # second: start at an eighth of the poll so the fleet's last task leaves soon after
        # the root lands (it was a whole poll: ~1 s of wall on every run)
        backoff = pacing.fleet_backoff(self.settings.poll_seconds,
                                       min(self.identity.count, FINALIZE_STANDBYS),
                                       pacing.FLEET_IDLE_POLLS_PER_SECOND,
                                       start=self.settings.poll_seconds / 8)
        standby = self.identity.index < FINALIZE_STANDBYS or self.identity.attempt > (
            1 if self.identity.engine == "aws-batch" else 0)
        deadline = time.monotonic() + self.settings.linger
        while True:
            run = self.store.get_run(run_id)
            done = run is not None and run.state in (RunState.COMPLETED, RunState.FAILED)
            if not done and self.store.claim_finalizer(
                    run_id, self.identity.owner, self.settings.lease_seconds, clock.now()):
                break
            if done or not standby or time.monotonic() > deadline or self.stop.is_set():
                return self._leave_to_peer(progress, done)
            wait = backoff.next()
            opcount.mark("finalizer_wait")
            opcount.mark("idle_ms", int(wait * 1000))
            self._idle_wait(wait)
        with _FinalizerLease(self):
            run = self.store.get_run(run_id)  # a finalizer may have finished just now
            if run is not None and run.state in (RunState.COMPLETED, RunState.FAILED):
                return self._leave_to_peer(progress, True)
            opcount.mark("finalizer")
            return self._finish_elected()

    def _leave_to_peer(self, progress: Progress, done: bool) -> int:
        run_id = self.spec.run_id
        if progress[UnitState.FAILED]:
            self.log.error("run %s has %d failed unit(s); another task names them "
                           "('docfleet status %s'); fix the cause, then 'docfleet resume %s'",
                           run_id, progress[UnitState.FAILED], run_id, run_id,
                           extra={"event": "run.holes"})
            return EXIT_HOLES
        if self.stop.is_set():
            return self._signal_exit()
        self.log.info("run %s is %s by another task", run_id,
                      "finished" if done else "being finalized",
                      extra={"event": "finalize.peer"})
        return EXIT_OK

    def _finish_elected(self) -> int | None:
        units = self.store.units(self.spec.run_id)
        open_units = [u for u in units if u.state in (UnitState.PENDING, UnitState.RUNNING)]
        if open_units:
            self.log.warning("progress said drained but %d unit(s) are still open (first: "
                             "unit %d %s); draining on", len(open_units), open_units[0].index,
                             open_units[0].state.value, extra={"event": "progress.ahead"})
            return None
        failed = [u for u in units if u.state == UnitState.FAILED]
        if not failed:
            try:
                finalize_run(self.store, self.files, self.log)
            except ManifestGapError as exc:
                self.log.error("%s", exc, extra={"event": "manifest.gap"})
                # not complete and nobody can complete it without a repair: FAILED, so
                # that `status --wait` ends (exit 1) and `resume` knows to reopen it
                self.store.set_run_state(self.spec.run_id, RunState.FAILED, clock.now(),
                                         expected=[RunState.RUNNING])
                return EXIT_HOLES
            return EXIT_OK
        self.store.set_run_state(self.spec.run_id, RunState.FAILED, clock.now(),
                                 expected=[RunState.RUNNING])
        for unit in failed:
            self.log.error(
                "unit %d (documents %d-%d) FAILED after %d attempt(s): %s",
                unit.index, unit.start, unit.stop - 1, unit.attempts, unit.last_error,
                extra={"event": "unit.failed", "unit": unit.index},
            )
        self.log.error("run %s has %d failed unit(s): %s; fix the cause, then "
                       "'docfleet resume %s'", self.spec.run_id, len(failed),
                       ",".join(str(u.index) for u in failed), self.spec.run_id)
        return EXIT_HOLES

    # -- one unit ---------------------------------------------------------------------
    def _claim(self, hint: int) -> Claim | None:
        """``claim_next_unit``; when tracing, a ``docfleet.claim`` span for each claim
        (and for an empty poll only if it lost races: idle polls make no spans). With
        batches: the batch's unrecorded completions and a new batch, in one call."""
        if self._batches is not None:
            self._record(self._batches.size())
            return self._take_next()
        if not telemetry.enabled():
            return self.store.claim_next_unit(self.spec.run_id, self.identity.owner, hint,
                                              self.settings.lease_seconds, clock.now())
        races = lost_races(self.store)
        started, t0 = telemetry.now_ns(), time.perf_counter()
        claim = self.store.claim_next_unit(self.spec.run_id, self.identity.owner, hint,
                                           self.settings.lease_seconds, clock.now())
        attrs = telemetry.claim_attributes(claim, time.perf_counter() - t0, races,
                                           lost_races(self.store))
        if claim is not None or attrs.get("docfleet.claim.lost_races"):
            telemetry.record_span("docfleet.claim", started, {
                **telemetry.db_attributes(self.store.uri), "db.operation.name": "claim_next_unit",
                "docfleet.claim.hint": hint, **attrs}, kind=telemetry.SpanKind.CLIENT)
        return claim

    def _complete(self, claim: Claim, part_sha: str, written: int) -> bool | None:
        """Mark the unit DONE (fenced). When the task goes on claiming (no stop, no
        run-state check due) the same call claims the next unit
        (``complete_and_claim_next``: one statement on PostgreSQL), which the drain loop
        then works; a fenced completion claims nothing. With batches the completion waits
        for the batch's last unit and is recorded (and logged) with it: ``None``."""
        if self._batches is not None:
            self._unrecorded.append((claim, part_sha, written))
            if not self._ahead or self.stop.is_set():
                self._record(self._batches.size() if self._claims_with_completion() else 0)
            return None
        if not self._claims_with_completion():
            return self.store.complete_unit(claim, part_sha, clock.now())
        started, t0 = telemetry.now_ns(), time.perf_counter()
        races = lost_races(self.store) if telemetry.enabled() else None
        completed, nxt = complete_and_claim_next(
            self.store, claim, part_sha, self.identity.owner, self._hint,
            self.settings.lease_seconds, clock.now())
        if nxt is not None:
            attrs = {"docfleet.claim.hint": self._hint, **telemetry.claim_attributes(
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
            self.identity.owner, self._hint, want, self.settings.lease_seconds, clock.now())
        for (claim, _, written), ok in zip(done, applied, strict=True):
            self._log_completion(claim, ok, written)
        seconds = time.perf_counter() - t0
        races_after = lost_races(self.store) if started else None
        for nxt in claims:
            attrs = {"docfleet.claim.hint": self._hint, "docfleet.claim.batch": len(claims),
                     **telemetry.claim_attributes(nxt, seconds, races, races_after)
                     } if started else {}
            self._ahead.append((nxt, started, attrs, "complete_and_claim_units"))

    def _hand_back(self) -> None:
        """Leaving: record the batch's finished units and give back the units claimed
        ahead and not started (fenced; no attempt burnt), so peers take them at once."""
        if self._unrecorded:
            self._record(0)
        while self._ahead:
            claim, *_ = self._ahead.popleft()
            self._release(claim)

    def _log_completion(self, claim: Claim, completed: bool, written: int) -> None:
        if not completed:
            self.log.warning("unit %d was reclaimed before it completed; its new owner "
                             "will complete it", claim.unit_index,
                             extra={"event": "unit.fenced", "unit": claim.unit_index})
            return
        self.log.info("completed unit %d: %d documents, %d bytes", claim.unit_index,
                      claim.count, written,
                      extra={"event": "unit.done", "unit": claim.unit_index,
                             "token": claim.token})

    def _claims_with_completion(self) -> bool:
        """Whether the drain loop would claim right after this completion: no stop, no
        run-state check due (that check comes first, at the top of the loop), and no
        write ramp (its governor spaces the claims: a unit claimed with the completion
        would wait for its turn with its lease running unrenewed)."""
        return self._ramp is None and not self.stop.is_set() and not self._state_check_due()

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
            self._hand_back()
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
                self._log_completion(finished, ok, written)
        if charged is None:
            self.log.warning("unit %d claimed ahead was reclaimed before it started",
                             claim.unit_index,
                             extra={"event": "batch.taken", "unit": claim.unit_index})
            return self._take_next()
        claim = charged
        if started:
            telemetry.record_span("docfleet.claim", started, {
                **telemetry.db_attributes(self.store.uri),
                "db.operation.name": operation, **attrs},
                kind=telemetry.SpanKind.CLIENT)
        return claim

    def _release(self, claim: Claim) -> None:
        """Give ``claim``'s unit back for a peer at once (fenced; no attempt burnt)."""
        with telemetry.span("docfleet.lease.release",
                            {"docfleet.unit.index": claim.unit_index}) as s:
            released = self.store.release_unit(claim, clock.now())
            s.set_attribute("docfleet.lease.released", released)
        self.log.info("released unit %d for a peer" if released else
                      "unit %d was already reclaimed", claim.unit_index,
                      extra={"event": "lease.release", "unit": claim.unit_index})

    def _work(self, claim: Claim) -> UnitOutcome:
        self.log.info("claimed unit %d (documents %d-%d, attempt %d)", claim.unit_index,
                      claim.start, claim.start + claim.count - 1, claim.attempts,
                      extra={"event": "unit.claim", "unit": claim.unit_index,
                             "token": claim.token})
        with telemetry.span("docfleet.unit", {
            "docfleet.unit.index": claim.unit_index, "docfleet.unit.attempt": claim.attempts,
            "docfleet.unit.start": claim.start, "docfleet.unit.count": claim.count,
        }) as unit_span, LeaseKeeper(self.store, claim, self.settings.lease_seconds,
                                     self.settings.heartbeat, self.log) as keeper:
            try:
                outcome = self._produce(claim, keeper)
            except EnvironmentFault as exc:
                keeper.ending.set()
                outcome = self._environment_fault(claim, exc)
            except DocfleetError as exc:
                if exc.exit_code == EXIT_STORE:
                    raise
                keeper.ending.set()
                if isinstance(exc, ConfigError):  # this task's setup, not the unit's fault:
                    self.store.release_unit(claim, clock.now())  # no attempt burnt
                    raise
                outcome = self._fail(claim, f"{type(exc).__name__}: {exc}")
            except Exception as exc:  # a pack's bug or a bad document: the unit fails
                self.log.debug("%s", traceback.format_exc())
                keeper.ending.set()
                outcome = self._fail(claim, f"{type(exc).__name__}: {exc}")
            unit_span.set_attributes({"docfleet.unit.outcome": outcome.status,
                                      "docfleet.unit.documents": outcome.documents,
                                      "docfleet.unit.bytes": outcome.bytes})
        outcome.renewals = keeper.renewals  # the keeper has stopped: its final count
        return outcome

    def _environment_fault(self, claim: Claim, exc: EnvironmentFault) -> UnitOutcome:
        """Release the unit (no attempt burnt: a healthy peer can do it), back off with
        jitter, and give up (raise, exit EXIT_STORE) after MAX_ENVIRONMENT_FAULTS in a row."""
        self._environment_faults += 1
        released = self.store.release_unit(claim, clock.now())
        self.log.error("unit %d released: this task cannot write its outputs (%s); fault %d "
                       "of %d in a row", claim.unit_index, exc.message,
                       self._environment_faults, MAX_ENVIRONMENT_FAULTS,
                       extra={"event": "unit.environment", "unit": claim.unit_index,
                              "released": released})
        telemetry.fail(exc.message)
        if self._environment_faults >= MAX_ENVIRONMENT_FAULTS:
            raise EnvironmentFault(
                f"task gave up after {self._environment_faults} consecutive output write "
                f"failures (last: {exc.message})",
                "fix this task's output volume or credentials; its units were released "
                "to healthy peers",
            )
        delay = min(ENVIRONMENT_BACKOFF_MAX,
                    ENVIRONMENT_BACKOFF_BASE * 2 ** (self._environment_faults - 1))
        self.stop.wait(delay * random.uniform(0.5, 1.0))
        return UnitOutcome("released")

    def _put(self, key: str, data: bytes) -> None:
        """One output write; a failure of this task's environment is an EnvironmentFault."""
        try:
            self.files.put(key, data)
        except OSError as exc:
            where = self.files.uri(key)
            raise EnvironmentFault(f"writing {where} failed: {exc.strerror or exc}") from None
        except DocfleetError as exc:
            if exc.exit_code != EXIT_STORE:
                raise
            raise EnvironmentFault(exc.message, exc.hint) from None

    def _fail(self, claim: Claim, error: str) -> UnitOutcome:
        self.store.fail_unit(claim, error, self.spec.max_attempts, clock.now())
        telemetry.fail(error)
        self.log.error("unit %d failed (attempt %d of %d): %s", claim.unit_index,
                       claim.attempts, self.spec.max_attempts, error,
                       extra={"event": "unit.fail", "unit": claim.unit_index})
        return UnitOutcome("failed")

    def _session_for_work(self) -> PackSession:
        if self._session is None:
            # the pack's settings loaded once for the task; the store only if it uses one
            context = pack_context(self.pack, self.spec.run_id, self.settings,
                                   overrides=self.pack_settings, store=self.store,
                                   owner=self.identity.owner, log=self.log, stop=self.stop)
            self._session = self.pack.open(self.spec.options, context)
        return self._session

    def _produce(self, claim: Claim, keeper: LeaseKeeper) -> UnitOutcome:
        began = time.monotonic()
        part = Part(claim.run_id, claim.unit_index, claim.start, claim.count)
        rows: dict[str, list[dict]] = {table: [] for table in self.tables}
        written = 0
        documents = self._session_for_work().render(claim.run_id, claim.indexes,
                                                    self.spec.total)
        try:
            for doc in documents:
                for name, data in sorted(doc.files.items()):
                    key = document_key(name)
                    self._put(key, data)
                    part.add_document(key, data)
                    written += len(data)
                for table, table_rows in doc.rows.items():
                    if table not in rows:
                        raise ValueError(f"pack {self.pack.name} wrote undeclared table {table}")
                    rows[table].extend(table_rows)
                if keeper.lost.is_set() or self.stop.is_set():
                    break
        finally:
            close = getattr(documents, "close", None)
            if close is not None:
                close()
        if keeper.lost.is_set():
            self.log.warning("abandoning unit %d: its lease was lost", claim.unit_index,
                             extra={"event": "unit.abandon", "unit": claim.unit_index})
            return UnitOutcome("lost")
        if self.stop.is_set():
            keeper.ending.set()
            self._release(claim)
            return UnitOutcome("released")
        for table, schema in self.tables.items():
            data = shard_bytes(schema, rows[table])
            key = shard_key(table, claim.unit_index)
            self._put(key, data)
            part.add_shard(table, key, data, len(rows[table]))
            written += len(data)
        part_data = part.to_bytes()
        part_sha = sha256(part_data)
        with telemetry.span("docfleet.manifest.part", {
            "docfleet.manifest.key": part_key(claim.unit_index),
            "docfleet.manifest.sha256": part_sha, "docfleet.manifest.size": len(part_data),
            "docfleet.unit.index": claim.unit_index,
        }):
            self._put(part_key(claim.unit_index), part_data)
        if faults.ARMED:
            faults.hit("unit.part")
        keeper.ending.set()
        self._environment_faults = 0
        if self._batches is not None:
            self._batches.observe(time.monotonic() - began)
        completed = self._complete(claim, part_sha, written)
        if completed is not None:
            self._log_completion(claim, completed, written)
        return UnitOutcome("done" if completed is not False else "lost", claim.count, written)


class _FinalizerLease:
    """Renews the worker's finalizer lease every heartbeat while it finalizes."""

    def __init__(self, worker: Worker) -> None:
        self.worker = worker
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="finalizer-lease", daemon=True)

    def __enter__(self) -> _FinalizerLease:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        w = self.worker
        try:  # hand the lease back: a later task (after a resume) need not wait it out
            w.store.claim_finalizer(w.spec.run_id, w.identity.owner, 0.0, clock.now())
        except DocfleetError as exc:
            w.log.warning("finalizer lease release failed: %s", exc)

    def _loop(self) -> None:
        w = self.worker
        while not self._stop.wait(w.settings.heartbeat):
            try:
                w.store.claim_finalizer(w.spec.run_id, w.identity.owner,
                                        w.settings.lease_seconds, clock.now())
            except DocfleetError as exc:  # the root is create-if-absent: a second
                w.log.warning("finalizer lease renewal failed: %s", exc)  # finalizer is safe
