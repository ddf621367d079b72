"""One task's life: race to plan, drain units (claim → render → shards → part →
complete), linger for peers' units, finalize, and exit with a code that names holes.

:class:`Worker` is the drain loop; each role has one owner beside it: the plan race
(:func:`docfleet.kernel.planner.ensure_planned`), the claim queue
(:class:`docfleet.kernel.claims.ClaimQueue`: one unit at a time, with the last
completion, or in batches, chosen once), the unit executor
(:class:`docfleet.kernel.executor.UnitExecutor`), the lease watch
(:class:`docfleet.kernel.rescue.LeaseRescuer`, its own thread) and the finalizer election
(:class:`docfleet.kernel.election.FinalizerElection`); every role stops at the latch of a
run deleted under the task (:class:`docfleet.kernel.gone.RunGone`: exit 3)."""

from __future__ import annotations

import logging
import signal
import threading
import time
from collections.abc import Mapping
from types import FrameType
from typing import Any

from docfleet import telemetry
from docfleet.blob.base import BlobStore
from docfleet.core import clock
from docfleet.core.identity import TaskIdentity
from docfleet.core.models import CLAIMABLE_RUN_STATES, Run, RunSpec, RunState, UnitState
from docfleet.core.settings import Settings
from docfleet.dataset.manifest import RunFiles
from docfleet.kernel import pacing
from docfleet.kernel.admission import writes_where_recorded
from docfleet.kernel.claims import ClaimQueue
from docfleet.kernel.election import FINALIZE_STANDBYS, FinalizerElection
from docfleet.kernel.executor import (
    MAX_ENVIRONMENT_FAULTS,
    EnvironmentFault,
    UnitExecutor,
    UnitOutcome,
)
from docfleet.kernel.exits import (
    EXIT_CONFIG,
    EXIT_GONE,
    EXIT_HOLES,
    EXIT_OK,
    EXIT_SIGINT,
    EXIT_SIGTERM,
    EXIT_STORE,
)
from docfleet.kernel.gone import RunGone
from docfleet.kernel.planner import ensure_planned
from docfleet.kernel.rescue import LeaseRescuer, designated
from docfleet.packs.base import DocumentPack
from docfleet.state import opcount
from docfleet.state.base import StateStore
from docfleet.state.optional import work_waiter, write_ramp

__all__ = ["EXIT_CONFIG", "EXIT_GONE", "EXIT_HOLES", "EXIT_OK", "EXIT_SIGINT", "EXIT_SIGTERM",
           "EXIT_STORE", "FINALIZE_STANDBYS", "MAX_ENVIRONMENT_FAULTS", "EnvironmentFault",
           "UnitOutcome", "Worker"]

#: How often the drain loop re-reads the run's state (pause / cancel), at least; a large
#: fleet reads it less often (``pacing.FLEET_STATE_CHECKS_PER_SECOND`` for the fleet).
RUN_STATE_CHECK_SECONDS = 2.0


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
        self.spec = spec
        self.identity = identity
        self.store = store
        self.files = RunFiles(blob, spec.run_id)
        self.pack = pack
        self.log = log
        self.stop = threading.Event()
        self.signal_received: int | None = None
        self._state_checked = 0.0
        self._gone = RunGone(store, spec.run_id, self.stop, log)  # deleted while it worked
        # the lease watch, on its own thread from the plan on (docfleet.kernel.rescue);
        # ``_wake`` is set when it reclaims a unit, to end an idle wait at once
        self._rescuer: LeaseRescuer | None = None
        self._wake = threading.Event()
        self._state_interval = pacing.fleet_interval(
            RUN_STATE_CHECK_SECONDS, identity.count, pacing.FLEET_STATE_CHECKS_PER_SECOND)
        # batches are not for a store under a write ramp: its governor spaces each claim
        self._claims = ClaimQueue(store, spec, identity.owner, settings, log, self.stop,
                                  self._claims_with_completion, batches=self._ramp is None)
        self._executor = UnitExecutor(settings, spec, identity, store, self.files, pack, log,
                                      self.stop, self._claims, pack_settings)
        self._election = FinalizerElection(settings, spec, identity, store, self.files, log,
                                           self.stop, self._idle_wait, self._signal_exit,
                                           self._gone)

    @property
    def store(self) -> StateStore:
        """The task's state store (its coordination half for the kernel; packs get the
        ledger). Set, it is the store of every role (a test wraps the real one)."""
        return self._store

    @store.setter
    def store(self, store: StateStore) -> None:
        self._store = store
        for role in (getattr(self, name, None) for name in ("_claims", "_executor",
                                                            "_election", "_gone")):
            if role is not None:
                role.store = store

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
            self._claims.hand_back()
            return code
        finally:
            self._stop_rescuer()
            self._executor.close()

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
        if run is None:  # stopped, or the run was deleted while the plan was awaited
            if not self.stop.is_set():
                self._gone.check()
            return self._signal_exit()
        if not writes_where_recorded(run, self.settings, self.log):
            return EXIT_CONFIG
        self._rescuer = LeaseRescuer(
            self.store, self.spec.run_id, self.spec.max_attempts, self.settings.lease_seconds,
            designated(self.identity.index, self.identity.count), self.log,
            on_reclaim=lambda _moved: self._wake.set()).start()
        # the task's share of the index range is where it starts looking; after a claim it
        # looks on just past that unit (wrapping around), so a scan never walks again over
        # the units it took (PostgreSQL: their dead index entries, until a vacuum)
        self._claims.hint = self.identity.index * self.spec.unit_count // self.identity.count
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
            if not self._claims.holding and not self._run_claimable():
                return EXIT_GONE if self._gone.gone else EXIT_OK
            if governor is not None and (wait := governor.wait(clock.now())) > 0:
                # the fleet's writes keep under the store's ramp: this task's turn is later
                opcount.mark("ramp_ms", int(wait * 1000))
                self.stop.wait(min(wait, self._state_interval))
                continue
            opcount.set_phase("claim")
            claim = self._claims.next()
            if claim is not None:
                opcount.move("claim", "drain")
                opcount.set_phase("drain")
                opcount.mark("claim")
                idle_since = None
                if self._rescuer is not None:
                    self._rescuer.busy()
                backoff.reset()
                if governor is not None:
                    governor.claimed(clock.now())
                outcome = self._executor.work(claim)
                if outcome.status == "lost" and self._gone.check():
                    return EXIT_GONE
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
                code = self._election.finish(progress)
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
        """The code of a stopped task: the run's deletion, else the signal's."""
        if self._gone.gone:
            return EXIT_GONE
        return EXIT_SIGINT if self.signal_received == signal.SIGINT else EXIT_SIGTERM

    def _state_check_due(self) -> bool:
        return time.monotonic() - self._state_checked >= self._state_interval

    def _run_claimable(self) -> bool:
        if not self._state_check_due():
            return True
        self._state_checked = time.monotonic()
        # a read by the clock (once a state interval), not by the work: counted apart
        with opcount.thread_phase("state_check"):
            opcount.mark("state_check")
            run = self.store.get_run(self.spec.run_id)
        if self._gone.check(run, read=False):
            return False
        if run is not None and run.state not in CLAIMABLE_RUN_STATES | {RunState.FAILED}:
            self.log.info("run %s is %s; not claiming", self.spec.run_id, run.state.value,
                          extra={"event": "run.stopped"})
            return False
        return True

    def _claims_with_completion(self) -> bool:
        """Whether the drain loop would claim right after this completion: no stop, no
        run-state check due (that check comes first, at the top of the loop), and no
        write ramp (its governor spaces the claims: a unit claimed with the completion
        would wait for its turn with its lease running unrenewed)."""
        return self._ramp is None and not self.stop.is_set() and not self._state_check_due()
