"""Claiming short units in batches: how many units a task claims in one write.

A store that records a batch of completions and claims a batch of units in one write
(:func:`docfleet.state.optional.claims_in_batches`: PostgreSQL) costs one round trip and one
commit per batch instead of one per unit. A task sizes its batch to hold about
``seconds`` of its own recent unit time, so units of a second or more go one at a time
(as without batches), and two things stay bounded by that time: the work a task holds
claimed ahead (which an idle peer cannot take: the tail of a run) and how long a
finished unit waits before its completion is recorded (what a SIGKILL costs: such units
are redone after their lease, as the unit in flight always was)."""

from __future__ import annotations

#: The most units one batch holds (bench/claims.py --batch: past this the gain per unit
#: is small and one statement's locks and latency grow).
MAX_BATCH_UNITS = 16
#: Weight of the newest unit in the running mean of unit times.
_WEIGHT = 0.3


def batch_window(seconds: float, lease_seconds: float, heartbeat: float) -> float:
    """The work one batch may hold: ``seconds``, and no more than a quarter of what the
    lease leaves after one heartbeat, so a batch's last unit starts long before its lease
    (claimed with the batch) would need the renewal its heartbeat makes."""
    return max(0.0, min(seconds, (lease_seconds - heartbeat) / 4))


class BatchSizer:
    """The size of a task's next batch: ``window / mean unit time``, between 1 and
    ``most``; 1 until a unit has been timed, and always 1 for a window of 0 (batches
    off)."""

    def __init__(self, window: float, most: int = MAX_BATCH_UNITS) -> None:
        self.window = window
        self.most = max(1, most)
        self.mean: float | None = None

    def observe(self, unit_seconds: float) -> None:
        """Add one unit's time (from its start to its part written)."""
        seconds = max(0.0, unit_seconds)
        self.mean = seconds if self.mean is None else (
            _WEIGHT * seconds + (1 - _WEIGHT) * self.mean)

    def size(self) -> int:
        if self.window <= 0 or self.mean is None:
            return 1
        if self.mean <= 0:
            return self.most
        return max(1, min(self.most, int(self.window / self.mean)))
