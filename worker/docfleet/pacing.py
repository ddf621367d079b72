"""Pacing of a task's idle store traffic (docs/design.md, "Scale rule"): jittered exponential
backoff whose ceiling grows with the fleet, so that the whole fleet's idle polls stay
under a fixed budget per second whatever the number of tasks.

A fleet of N tasks each waiting a mean of ``m`` seconds between idle polls makes ``N / m``
polls per second; each wait here is drawn uniformly from ``[d/2, d]`` (mean ``3d/4``), so
waits of at least ``N / (0.75 * budget)`` (where :func:`fleet_backoff` starts) bound the
fleet at ``budget`` polls per second from its first wait on; a small fleet starts at the
poll interval and backs off to ``MIN_GROWTH`` intervals. The budgets are per fleet.
"""

from __future__ import annotations

import random

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
