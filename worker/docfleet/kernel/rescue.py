"""The lease watch (rescuer): a thread beside the task's executor that reclaims the units of
dead tasks, at any point of the run, not only when this task goes idle.

Expiry is judged exactly as :class:`docfleet.kernel.lease.LeaseWatch` judges it: a unit
whose stored lease has not changed for a whole lease of *this* process's monotonic clock
is stale, and it is reclaimed with a conditional write on the very lease that was seen
(``reclaim_stale_units``). No clock of another task is read or compared.

Who looks, and how often (issue 26, items 2 and 3):

* **designated watchers** — at most :data:`WATCHERS` tasks of the fleet, chosen by index
  alone (:func:`designated`: indexes ``0, s, 2s, …`` with ``s = ceil(N / WATCHERS)``),
  look every :func:`watch_period` seconds for their whole life, busy or idle. A look
  reads every RUNNING unit, so the fleet's watch reads are ``WATCHERS x (run seconds /
  period) x RUNNING units``: about ``WATCHERS x unit seconds / period`` reads per unit,
  whatever the fleet's size N (it was every idle task, three times a lease: O(N²) in a
  fleet's tail);
* **any idle task** (one that found the pool dry and lingers) looks too, at the slower
  ``lease / WATCHES_PER_LEASE`` cadence, but only while the run's counters show at most
  :data:`IDLE_WINDOW` RUNNING units, so each such look reads a bounded window (at most
  ``IDLE_WINDOW`` units, ``linger / idle period`` looks a task): the fleet still heals
  its tail if every designated watcher is gone, at a per-task cost that is flat in N.

With a period ``p`` a unit's final lease value is first seen within ``p`` of its last
renewal and judged stale at the first look more than a lease later, so a dead task's unit
is claimable again at most ``lease + 2p`` after its last renewal; ``p`` is at most
:data:`MAX_WATCH_PERIOD` (4 s), so within ``lease + 8 s`` plus one look's own time.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable

from docfleet import telemetry
from docfleet.core import clock
from docfleet.core.errors import DocfleetError
from docfleet.kernel.lease import LeaseWatch
from docfleet.state import opcount
from docfleet.state.base import CoordinationStore

#: Designated watchers per fleet (two: one dead watcher does not leave the fleet blind
#: until its engine restarts it).
WATCHERS = 2
#: How often a task idle for long looks at the RUNNING units' leases, per lease period.
WATCHES_PER_LEASE = 3
#: The longest time between two looks of a designated watcher (reclaim ≤ lease + 2x this).
MAX_WATCH_PERIOD = 4.0
#: An idle task that is not a designated watcher looks only while at most this many
#: units are RUNNING (by the run's counters).
IDLE_WINDOW = 64


def watch_period(lease_seconds: float) -> float:
    """Seconds between a designated watcher's looks: a third of the lease, at most
    :data:`MAX_WATCH_PERIOD`."""
    return min(lease_seconds / WATCHES_PER_LEASE, MAX_WATCH_PERIOD)


def designated(index: int, count: int, watchers: int = WATCHERS) -> bool:
    """Whether task ``index`` of ``count`` is one of the fleet's designated watchers: the
    indexes ``0, s, 2s, …`` with ``s = ceil(count / watchers)`` (at most ``watchers``)."""
    count = max(1, count)
    stride = math.ceil(count / max(1, min(watchers, count)))
    return index % stride == 0


class LeaseRescuer:
    """The lease watch of one task, on a thread of its own (:meth:`start` / :meth:`stop`).

    The drain loop tells it when the task goes idle (:meth:`idle`) and what the run's
    counters said of RUNNING units; ``on_reclaim`` is called (from the watch's thread)
    with the number of units it gave back, so an idle drain loop can claim at once."""

    def __init__(self, store: CoordinationStore, run_id: str, max_attempts: int,
                 lease_seconds: float, watcher: bool, log: logging.Logger,
                 on_reclaim: Callable[[int], None] | None = None,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self.store = store
        self.run_id = run_id
        self.max_attempts = max_attempts
        self.lease_seconds = lease_seconds
        self.watcher = watcher
        self.log = log
        self.on_reclaim = on_reclaim
        self.period = watch_period(lease_seconds)
        self.idle_period = lease_seconds / WATCHES_PER_LEASE
        self._monotonic = monotonic
        self._leases = LeaseWatch(lease_seconds, monotonic=monotonic)
        self._idle_since: float | None = None
        self._running: int | None = None  # RUNNING units by the counters, when idle
        self._looked = -math.inf
        self._stop = threading.Event()
        self._lock = threading.Lock()  # one look at a time (the thread, or a test's look)
        self._thread = threading.Thread(target=self._loop, name="lease-watch", daemon=True)
        #: Looks made and units reclaimed so far (for logs and tests).
        self.looks = 0
        self.reclaimed = 0

    def start(self) -> LeaseRescuer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join()

    def idle(self, running: int | None) -> None:
        """The task found no work; ``running``: RUNNING units by the run's counters."""
        with self._lock:
            if self._idle_since is None:
                self._idle_since = self._monotonic()
            self._running = running

    def busy(self) -> None:
        """The task claimed a unit."""
        with self._lock:
            self._idle_since = None
            self._running = None

    def due(self) -> bool:
        """Whether a look is due now: a designated watcher every :attr:`period`; any
        idle task every :attr:`idle_period` while the counters show at most
        :data:`IDLE_WINDOW` RUNNING units."""
        now = self._monotonic()
        if self.watcher:
            return now - self._looked >= self.period
        running = self._running
        return (self._idle_since is not None and running is not None
                and running <= IDLE_WINDOW and now - self._looked >= self.idle_period)

    def look(self) -> int:
        """One look: read the RUNNING units, reclaim those this task has seen unrenewed
        for over a lease (by its own monotonic clock). Returns the units reclaimed."""
        with self._lock, opcount.thread_phase("watch"):
            self._looked = self._monotonic()
            self.looks += 1
            opcount.mark("lease_watch")
            started = telemetry.now_ns()
            running = self.store.running_units(self.run_id)
            opcount.mark("watch_units", len(running))
            stale = self._leases.observe(running)
            if not stale:
                return 0
            moved = self.store.reclaim_stale_units(self.run_id, stale, self.max_attempts,
                                                   clock.now())
        if moved:
            self.reclaimed += moved
            telemetry.record_span("docfleet.lease.reclaim", started,
                                  {"docfleet.lease.reclaimed": moved})
            self.log.info("reclaimed %d expired unit(s)", moved,
                          extra={"event": "lease.reclaim", "units": moved,
                                 "indexes": [u.index for u in stale]})
            if self.on_reclaim is not None:
                self.on_reclaim(moved)
        return moved

    def _loop(self) -> None:
        tick = min(0.5, self.period / 4)
        while not self._stop.wait(tick):
            if not self.due():
                continue
            try:
                self.look()
            except Exception as exc:  # the store is down (the drain loop decides), or a
                # bug: the watch goes on at its next look either way
                self.log.warning("lease watch failed: %s", exc if isinstance(
                    exc, DocfleetError) else f"{type(exc).__name__}: {exc}",
                    extra={"event": "lease.watch_failed"})
