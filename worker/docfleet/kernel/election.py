"""The finalizer election: when the run's counters say the pool is drained, one task,
elected by the finalizer lease, proves every unit DONE from the units and finalizes the
run (:func:`docfleet.kernel.finalize.finalize_run`), or names its holes; the others
leave at once, or, as standbys, wait to take over from a finalizer that dies. A run
deleted meanwhile (:class:`docfleet.kernel.gone.RunGone`) ends the election: exit 3."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from docfleet.core import clock
from docfleet.core.errors import DocfleetError, ManifestGapError, RunNotFoundError
from docfleet.core.identity import TaskIdentity
from docfleet.core.models import Progress, Run, RunSpec, RunState, UnitState
from docfleet.core.settings import Settings
from docfleet.dataset.manifest import RunFiles
from docfleet.kernel import pacing
from docfleet.kernel.exits import EXIT_GONE, EXIT_HOLES, EXIT_OK
from docfleet.kernel.finalize import finalize_run
from docfleet.kernel.gone import RunGone
from docfleet.state import opcount
from docfleet.state.base import StateStore

#: Tasks with an index below this (and retried tasks) stand by while a peer finalizes,
#: to take over if it dies; the others leave as soon as a live finalizer is elected.
FINALIZE_STANDBYS = 3


class FinalizerElection:
    """The end of one task's run. ``idle_wait(seconds)`` waits as the drain loop does
    (woken by a store's signal or a stop); ``signal_exit()`` is the exit code of the
    signal that stopped the task (or of the run's deletion); ``gone`` is the task's
    latch for a run deleted under it."""

    def __init__(self, settings: Settings, spec: RunSpec, identity: TaskIdentity,
                 store: StateStore, files: RunFiles, log: logging.Logger,
                 stop: threading.Event, idle_wait: Callable[[float], None],
                 signal_exit: Callable[[], int], gone: RunGone) -> None:
        self.settings = settings
        self.spec = spec
        self.identity = identity
        self.store = store
        self.files = files
        self.log = log
        self.stop = stop
        self._idle_wait = idle_wait
        self._signal_exit = signal_exit
        self.gone = gone

    def finish(self, progress: Progress) -> int | None:
        """The counters say the pool is drained. One task, elected by the finalizer lease,
        reads the units (the proof; the counters are only a hint), then finalizes if
        every unit is DONE or names the holes; the others leave at once (exit 1 if the
        counters show failed units or the run ended FAILED) or, as standbys, wait to
        take over from a finalizer that dies. Returns the exit code (:data:`EXIT_GONE`
        for a run deleted meanwhile), or ``None`` to drain on (a unit is not over yet
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
            if self.gone.check(run, read=False):
                return EXIT_GONE
            done = run is not None and run.state in (RunState.COMPLETED, RunState.FAILED)
            if not done and self.store.claim_finalizer(
                    run_id, self.identity.owner, self.settings.lease_seconds, clock.now()):
                break
            if done or not standby or time.monotonic() > deadline or self.stop.is_set():
                return self._leave_to_peer(progress, run)
            wait = backoff.next()
            opcount.mark("finalizer_wait")
            opcount.mark("idle_ms", int(wait * 1000))
            self._idle_wait(wait)
        with _FinalizerLease(self):
            run = self.store.get_run(run_id)  # a finalizer may have finished just now
            if self.gone.check(run, read=False):
                return EXIT_GONE
            if run is not None and run.state in (RunState.COMPLETED, RunState.FAILED):
                return self._leave_to_peer(progress, run)
            opcount.mark("finalizer")
            return self._finish_elected()

    def _leave_to_peer(self, progress: Progress, run: Run | None) -> int:
        """Leave a drained run to the task that finishes it: exit 1 if it has failed
        units or has ended FAILED (a refused root), else 0 (or the signal's code)."""
        run_id = self.spec.run_id
        done = run is not None and run.state in (RunState.COMPLETED, RunState.FAILED)
        if progress[UnitState.FAILED]:
            self.log.error("run %s has %d failed unit(s); another task names them "
                           "('docfleet status %s'); fix the cause, then 'docfleet resume %s'",
                           run_id, progress[UnitState.FAILED], run_id, run_id,
                           extra={"event": "run.holes"})
            return EXIT_HOLES
        if run is not None and run.state == RunState.FAILED:
            self.log.error("run %s is FAILED: its root manifest was refused (the finalizer "
                           "logged why; 'docfleet verify %s --state …' names it); fix the "
                           "cause, then 'docfleet resume %s'", run_id, run_id, run_id,
                           extra={"event": "run.failed"})
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
            except RunNotFoundError:  # deleted between the check and the proof
                self.gone.check(None, read=False)
                return EXIT_GONE
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


class _FinalizerLease:
    """Renews the worker's finalizer lease every heartbeat while it finalizes."""

    def __init__(self, worker: FinalizerElection) -> None:
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
