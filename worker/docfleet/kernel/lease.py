"""The heartbeat: a thread that renews a claim's lease while its unit is worked, so a long
unit is not reclaimed from a live worker, and that flags the claim as lost the moment a
renewal is refused (fencing) or the lease runs out unrenewed."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from docfleet import telemetry
from docfleet.core import clock
from docfleet.core.errors import DocfleetError
from docfleet.core.models import Claim, Unit
from docfleet.state import opcount
from docfleet.state.base import CoordinationStore


class Heartbeat:
    """One daemon thread, started on first use, that runs the renewal loop of one
    :class:`LeaseKeeper` at a time: a task working unit after unit hands each keeper to
    it instead of starting (and joining) a thread per unit. A keeper that finds it busy
    runs on a thread of its own. :meth:`close` ends the thread (idempotent); a keeper
    handed to a closed heartbeat runs on a thread of its own."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._job: tuple[Callable[[], None], threading.Event] | None = None
        self._busy = False
        self._closed = False
        self._thread: threading.Thread | None = None

    @property
    def thread(self) -> threading.Thread | None:
        """The heartbeat's thread, once started."""
        return self._thread

    def close(self) -> None:
        """End the heartbeat thread once its current job returned; idempotent."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def take(self, job: Callable[[], None], ended: threading.Event) -> bool:
        """Run ``job`` on the heartbeat thread and set ``ended`` once it returned and the
        heartbeat is free for the next; false (nothing runs) when it is busy."""
        with self._cond:
            if self._busy or self._closed:
                return False
            self._busy, self._job = True, (job, ended)
            if self._thread is None:
                self._thread = threading.Thread(target=self._serve, name="lease-keeper",
                                                daemon=True)
                self._thread.start()
            self._cond.notify()
        return True

    def _serve(self) -> None:
        while True:
            with self._cond:
                while self._job is None and not self._closed:
                    self._cond.wait()
                if self._job is None:
                    return
                job, ended = self._job
            try:
                job()
            finally:
                with self._cond:  # free before the keeper's stop() returns
                    self._job, self._busy = None, False
                ended.set()


class LeaseKeeper:
    """Renews ``claim`` every ``interval`` seconds until :meth:`stop`. ``lost`` is set
    when the store refuses a renewal or the lease expired before one succeeded. With a
    ``heartbeat`` the renewals run on its thread; :meth:`stop` returns once they ended."""

    def __init__(
        self, store: CoordinationStore, claim: Claim, lease_seconds: float, interval: float,
        log: logging.Logger, heartbeat: Heartbeat | None = None,
    ) -> None:
        self.store = store
        self.claim = claim
        self.lease_seconds = lease_seconds
        self.interval = interval
        self.log = log
        self.lost = threading.Event()
        #: Renewal writes attempted so far (the claim governor counts a unit's writes).
        self.renewals = 0
        #: Set by the worker just before it completes, fails or releases the unit: a
        #: renewal refused after that is the worker's own doing, not a lost lease.
        self.ending = threading.Event()
        self._stop = threading.Event()
        self._trace_parent = telemetry.capture()  # lease spans are children of the unit's
        self._heartbeat = heartbeat
        self._started = False
        self._runner: threading.Thread | None = None  # the thread of the renewal loop
        self._ended = threading.Event()  # the renewal loop has returned

    def __enter__(self) -> LeaseKeeper:
        self._started = True
        if self._heartbeat is None or not self._heartbeat.take(self._loop_here, self._ended):
            threading.Thread(target=self._run, name="lease-keeper", daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        """Stop renewing; returns once no renewal of this keeper runs (at once when
        called from the renewal loop itself)."""
        self._stop.set()
        if self._started and threading.current_thread() is not self._runner:
            self._ended.wait()

    def _loop_here(self) -> None:
        self._runner = threading.current_thread()
        self._loop()

    def _run(self) -> None:
        try:
            self._loop_here()
        finally:
            self._ended.set()

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            started = telemetry.now_ns()
            self.renewals += 1
            try:
                # a write by the clock (once a heartbeat), not by the work: counted apart
                with opcount.thread_phase("renew"):
                    opcount.mark("renewal")
                    renewed = self.store.renew_lease(self.claim, self.lease_seconds,
                                                     clock.now())
            except DocfleetError as exc:
                self._span("docfleet.lease.renew", started, False, str(exc))
                self.log.warning("lease renewal of unit %d failed: %s", self.claim.unit_index, exc)
                if clock.now() >= self.claim.lease_expires_at:
                    self._lose("expired while the store was unreachable")
                    return
                continue
            if renewed is not None or not self.ending.is_set():  # else: the unit just ended
                self._span("docfleet.lease.renew", started, renewed is not None)
            if renewed is None:
                if not self.ending.is_set():
                    self._lose("the store refused the renewal (the unit was reclaimed)")
                return
            self.claim = renewed
            self.log.debug("renewed lease of unit %d", self.claim.unit_index,
                           extra={"event": "lease.renew", "unit": self.claim.unit_index})

    def _span(self, name: str, started: int, ok: bool, error: str | None = None) -> None:
        telemetry.record_span(name, started, {"docfleet.unit.index": self.claim.unit_index,
                                              "docfleet.lease.renewed": ok,
                                              "docfleet.lease.seconds": self.lease_seconds},
                              error=error, parent=self._trace_parent)

    def _lose(self, why: str) -> None:
        self._span("docfleet.lease.lost", telemetry.now_ns(), False, why)
        self.log.warning("lost the lease of unit %d: %s", self.claim.unit_index, why,
                         extra={"event": "lease.lost", "unit": self.claim.unit_index})
        self.lost.set()


class LeaseWatch:
    """Judge other tasks' leases by this process's own clock, never theirs.

    A lease's stored ``lease_expires_at`` changes with every renewal, so it doubles as a
    renewal counter. The watch remembers, per RUNNING unit, the lease it saw and when (on
    this process's monotonic clock); a unit whose lease has stayed the same for longer
    than ``lease_seconds`` of that clock is stale, whatever time its writer's clock
    shows. No two machines' clocks are ever compared, so any clock *offset* is tolerated
    (a task at +3600 s that dies is reclaimed one lease later; a task at -3600 s or +60 s
    steals nothing); only clock *rate* matters, and the margin is the lease minus the
    heartbeat (two missed renewals by default)."""

    def __init__(self, lease_seconds: float,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self.lease_seconds = lease_seconds
        self._monotonic = monotonic
        self._seen: dict[int, tuple[str | None, float | None, float]] = {}

    def observe(self, running: list[Unit]) -> list[Unit]:
        """Record ``running`` (from :meth:`CoordinationStore.running_units`) and return the
        units whose lease has not changed for over ``lease_seconds`` since first seen."""
        now = self._monotonic()
        seen: dict[int, tuple[str | None, float | None, float]] = {}
        stale = []
        for unit in running:
            lease = (unit.lease_owner, unit.lease_expires_at)
            before = self._seen.get(unit.index)
            if before is None or before[:2] != lease:
                seen[unit.index] = (*lease, now)
                continue
            seen[unit.index] = before
            if now - before[2] > self.lease_seconds:
                stale.append(unit)
        self._seen = seen
        return stale
