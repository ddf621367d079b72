"""Pacing of a task's idle store traffic (docs/design.md, "Scale rule"): jittered exponential
backoff whose ceiling grows with the fleet, so that the whole fleet's idle polls stay
under a fixed budget per second whatever the number of tasks.

A fleet of N tasks each waiting a mean of ``m`` seconds between idle polls makes ``N / m``
polls per second; each wait here is drawn uniformly from ``[d/2, d]`` (mean ``3d/4``), so
waits of at least ``N / (0.75 * budget)`` (where :func:`fleet_backoff` starts) bound the
fleet at ``budget`` polls per second from its first wait on; a small fleet starts at the
poll interval and backs off to ``MIN_GROWTH`` intervals. The budgets are per fleet.

A store that declares a write ramp (Firestore's 500/50/5 rule) also has its fleet's claims
spaced by :class:`ClaimGovernor`: ``N * writes_per_unit / R(t)`` seconds apart per task, so
that the whole fleet's writes stay under the ramp ``R(t)`` with no coordination.
"""

from __future__ import annotations

import math
import random

from docfleet.state.ramp import WriteRamp

#: Idle polls per second of the whole fleet while it lingers (an idle poll is an empty
#: claim, a progress read and a reclaim query: a handful of requests, about 20 document
#: reads on Firestore), so the fleet lingers at about 50 reads/s or less, whatever N.
FLEET_IDLE_POLLS_PER_SECOND = 2.0
#: Reads of the run marker per second of the whole fleet while it waits for a plan.
FLEET_PLAN_POLLS_PER_SECOND = 200.0
#: Reads of the run's state (pause/cancel checks) per second of the whole fleet.
FLEET_STATE_CHECKS_PER_SECOND = 100.0
#: A cold start spreads the fleet's first reads of the run marker at this rate.
FLEET_COLD_START_READS_PER_SECOND = 1000.0
#: However small the fleet, an idle task's waits grow to this many poll intervals.
MIN_GROWTH = 8.0


def fleet_ceiling(base: float, tasks: int, fleet_per_second: float,
                  growth: float = MIN_GROWTH) -> float:
    """The longest wait for one of ``tasks`` tasks so the fleet stays under
    ``fleet_per_second`` polls per second (and at least ``growth * base``)."""
    return max(base * growth, max(tasks, 1) / (0.75 * fleet_per_second))


def fleet_interval(base: float, tasks: int, fleet_per_second: float) -> float:
    """A fixed per-task interval keeping ``tasks`` periodic readers under
    ``fleet_per_second`` reads per second (at least ``base``)."""
    return max(base, max(tasks, 1) / fleet_per_second)


def cold_start_spread(tasks: int) -> float:
    """Seconds over which a cold-started fleet spreads its first look at the run."""
    return max(tasks - 1, 0) / FLEET_COLD_START_READS_PER_SECOND


def fleet_backoff(base: float, tasks: int, fleet_per_second: float,
                  start: float | None = None) -> Backoff:
    """Backoff for one of ``tasks`` pollers: it starts at :func:`fleet_interval` (so even
    the fleet's first waits keep it under ``fleet_per_second``) and grows to
    :func:`fleet_ceiling`. A small fleet starts at ``base``; ``start`` overrides the first
    wait for a short, bounded wait of a few pollers (the finalizer's standbys)."""
    if start is None:
        start = max(base, max(tasks, 1) / (0.75 * fleet_per_second))
    return Backoff(start, fleet_ceiling(base, tasks, fleet_per_second))


class Backoff:
    """Jittered exponential backoff: the n-th consecutive wait is drawn uniformly from
    ``[d/2, d]`` with ``d = min(base * 2**n, ceiling)``; :meth:`reset` after useful work.
    Not thread-safe (one per loop)."""

    def __init__(self, base: float, ceiling: float, rng: random.Random | None = None) -> None:
        self.base = base
        self.ceiling = max(ceiling, base)
        self._rng = rng or random.Random()
        self._delay = base

    def next(self) -> float:
        """The next wait in seconds (and grow the one after)."""
        d = min(self._delay, self.ceiling)
        self._delay = min(self._delay * 2, self.ceiling)
        return self._rng.uniform(d / 2, d)

    def reset(self) -> None:
        self._delay = self.base


# -- the fleet's write rate under a store's ramp --------------------------------------------
#: The governor aims the fleet at this share of the ramp, so that jitter between the tasks'
#: claims and a little clock drift between their plan times do not carry it over the line.
RAMP_HEADROOM = 0.9


def claim_spacing(tasks: int, writes_per_unit: float, ramp: WriteRamp,
                  elapsed: float) -> float:
    """The least time between two claims of one of ``tasks`` tasks so that the fleet,
    each unit costing ``writes_per_unit`` writes, stays under ``RAMP_HEADROOM`` of the
    ramp ``elapsed`` seconds after the plan: ``N * w / R(t)``."""
    return max(tasks, 1) * max(writes_per_unit, 0.0) / (RAMP_HEADROOM * ramp.rate(elapsed))


#: The most of the ramp's start (after RAMP_HEADROOM) the fleet's lease renewals may take
#: when every task works at once. A claim slot assumes a first unit of one lease (the
#: backend's unit writes + lease/heartbeat renewals, 4 + 3 on Firestore), so the claims
#: and completions take at most 4/7 of the headroom and the renewals this share: together
#: under the ramp, however long the units turn out to be.
RENEWAL_SHARE = 0.4


def ramp_heartbeat(ramp: WriteRamp, tasks: int, heartbeat: float) -> float:
    """The least heartbeat interval with which ``tasks`` tasks, all renewing at once, stay
    within ``RENEWAL_SHARE`` of the ramp's start: ``heartbeat`` itself when it already
    does (10,000 tasks under Firestore's 500 ops/s need about 56 s; 100 tasks any)."""
    need = max(tasks, 1) / (RENEWAL_SHARE * RAMP_HEADROOM * ramp.start)
    return max(heartbeat, need)


def plan_wait(ramp: WriteRamp, written: int, elapsed: float) -> float:
    """Seconds a planner that has written ``written`` units ``elapsed`` seconds into its
    plan waits before the next batch, so that its writes stay under ``RAMP_HEADROOM`` of
    the ramp's *start* rate: the plan writes document ids and ``idx`` in order, sequential
    values, which Firestore holds to 500 writes/s however far its ramp has grown (the same
    as the ramp's start; a ``?ramp=START`` lowers both)."""
    return max(0.0, written / (RAMP_HEADROOM * ramp.start) - elapsed)


class ClaimGovernor:
    """Keeps a fleet's writes under a store's ramp with no coordination. Every task knows
    the task count N, the run's plan time and the ramp; it claims only on its own slots,
    one per ``N * w / RAMP_HEADROOM`` operations of the ramp's budget (its integral since
    the plan, so a slot is :func:`claim_spacing` seconds long at the rate of its time), at
    a random place in each slot drawn once. The N tasks' places are uniform, so the fleet
    claims at most once per ``w / RAMP_HEADROOM`` budget operations, spread evenly, and its
    writes follow the ramp up its steps without bunching at them; the first claims are
    jittered uniformly over one slot after the plan. A task claims at least one slot after
    its last claim (so at least :func:`claim_spacing` apart); a task busy past its slot
    claims when it is free and waits a whole slot from then.

    ``w`` is the writes a unit costs: ``first_writes`` before the first unit, then the
    backend's ``unit_writes`` plus the lease renewals the last unit took (:meth:`worked`).
    Times are wall-clock seconds (the plan time is the planner's clock, which the worker
    clamps to its own now; a skew of seconds is small against a ramp's minutes). Not
    thread-safe (one per claim loop)."""

    def __init__(self, ramp: WriteRamp, tasks: int, unit_writes: float, plan_time: float,
                 first_writes: float | None = None, rng: random.Random | None = None) -> None:
        self.ramp = ramp
        self.tasks = max(tasks, 1)
        self.unit_writes = unit_writes
        self.plan_time = plan_time
        self.writes = first_writes if first_writes is not None else unit_writes
        self.place = (rng or random.Random()).random()
        self._after = 0.0  # ramp budget before which this task does not claim
        self._grid = True  # on its slots (until a late claim)
        self.next_at = self._next_slot()

    def interval(self) -> float:
        """One slot, in operations of the ramp's budget."""
        return self.tasks * max(self.writes, 1e-9) / RAMP_HEADROOM

    def spacing(self, at: float) -> float:
        """A slot's length in seconds at the ramp's rate of time ``at``."""
        return claim_spacing(self.tasks, self.writes, self.ramp, at - self.plan_time)

    def _next_slot(self) -> float:
        slot = self.interval()
        if not self._grid:
            return self.plan_time + self.ramp.elapsed_at(self._after)
        k = max(0, math.ceil(self._after / slot - self.place))
        return self.plan_time + self.ramp.elapsed_at(slot * (k + self.place))

    def wait(self, now: float) -> float:
        """Seconds to wait from ``now`` before the next claim (0: claim now)."""
        return max(0.0, self.next_at - now)

    def claimed(self, now: float) -> None:
        """A claim was made at ``now``: the next one waits at least a whole slot. A claim
        made on time keeps the task on its slots; a late one (the task was busy past its
        slot) waits a slot from ``now`` and leaves the grid (its place is then set by
        when its units end, which spreads as well as a random draw)."""
        budget, slot = self.ramp.budget(now - self.plan_time), self.interval()
        if budget - self.ramp.budget(self.next_at - self.plan_time) > 0.01 * slot:
            self._grid = False
        self._after = budget + slot * (1 - 1e-9)
        self.next_at = self._next_slot()

    def worked(self, renewals: int) -> None:
        """The claimed unit ended after ``renewals`` lease renewals (one write each): its
        writes replace the estimate, which sizes the slots from here on."""
        before = self.interval()
        self.writes = self.unit_writes + max(renewals, 0)
        self._after += self.interval() - before  # a whole slot (of the new size) after
        self.next_at = self._next_slot()
