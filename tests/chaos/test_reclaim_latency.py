"""Issue 26, item 2: a SIGKILLed task's unit comes back within its lease at any point of
the run, not when the pool drains. Real ``docfleet work`` fleets on every state store
(the cloud ones on their emulators): three tasks over ~30 s of work with an 8 s lease,
one killed at its first unit while its peers are busy (``chaoslib.early_kill``).

The goal is lease + 10 s from the task's last renewal; the kill is after it, so the
time is measured from the kill. A look of the lease watch every ``min(lease / 3, 4 s)``
gives lease + 2 looks = 13.3 s at most on an idle machine; the assertion allows
``LOAD_SLACK_S`` more for a loaded CI machine (a look, the reclaim write and the test's
0.25 s store poll delayed by CPU starvation), stated here rather than hidden in the goal.
"""

from __future__ import annotations

import random

import pytest

from support import chaoslib
from support.chaoslib import EARLY_KILL_LEASE, RECLAIM_GOAL_S, Stack

#: a bound on time under load: the timing pass (scripts/test runs `timing` tests apart)
pytestmark = [pytest.mark.fleet, pytest.mark.timing]

#: Allowed on top of the goal for a loaded machine (see the module docstring).
LOAD_SLACK_S = 5.0


def test_a_killed_tasks_unit_is_reclaimed_within_its_lease_while_peers_are_busy(
        stack: Stack, rng: random.Random) -> None:
    result = chaoslib.early_kill(stack, rng)
    print(f"\n{stack.backend}: {result.notes}")
    result.check()
    reclaim = result.notes["reclaim_s"]
    assert reclaim <= EARLY_KILL_LEASE + RECLAIM_GOAL_S + LOAD_SLACK_S, result
    # the pool was not drained: the watch ran beside busy executors, not in an idle task
    assert result.notes["pending_at_reclaim"] > 0, result
