"""Issue 26, item 4: an attempt is spent when work on a unit starts, never by being
claimed ahead in a batch. Real ``docfleet work`` fleets on every state store: one SIGKILL
with ``--max-attempts 1`` fails at most the unit the task had started; the units it held
claimed ahead (PostgreSQL batches of up to 16 short units) are completed by its peers
(``chaoslib.kill_mid_batch``)."""

from __future__ import annotations

import random

import pytest

from support import chaoslib
from support.chaoslib import Stack

pytestmark = pytest.mark.fleet


def test_one_sigkill_with_max_attempts_1_fails_exactly_the_started_unit(
        stack: Stack, rng: random.Random) -> None:
    result = chaoslib.kill_mid_batch(stack, rng)
    print(f"\n{stack.backend}: {result.notes}")
    result.check()
