"""Issue 9, the fast version: every fault scenario on every state backend, with real
``docfleet work`` processes, real signals and real emulators (see ``chaoslib``)."""

from __future__ import annotations

import random

import pytest

from support import chaoslib
from support.chaoslib import Stack

pytestmark = pytest.mark.fleet


def test_1_cold_start_storm_plans_once_and_no_unit_has_two_live_leases(
        stack: Stack, rng: random.Random) -> None:
    chaoslib.storm(stack, rng).check()


def test_2_sigkill_at_plan_part_root_and_random_points_recovers_exactly_once(
        stack: Stack, rng: random.Random) -> None:
    chaoslib.kills(stack, rng).check()


def test_3_sigstop_past_the_lease_is_fenced_on_wake(stack: Stack, rng: random.Random) -> None:
    chaoslib.sigstop(stack, rng).check()


def test_4_sigterm_releases_within_the_grace_and_a_peer_takes_it(
        stack: Stack, rng: random.Random) -> None:
    result = chaoslib.sigterm(stack, rng)
    result.check()
    assert result.recover_s and result.recover_s[0] < 3.0, result


def test_5_poison_unit_fails_alone_and_resume_completes(
        stack: Stack, rng: random.Random) -> None:
    chaoslib.poison(stack, rng).check()


def test_6_store_outage_is_ridden_out(stack: Stack, rng: random.Random) -> None:
    chaoslib.outage(stack, rng).check()


def test_7_clock_skew_beyond_a_lease_never_double_completes(
        stack: Stack, rng: random.Random) -> None:
    result = chaoslib.skew(stack, rng)
    result.check()


def test_8_blob_faults_are_retried_and_a_deleted_shard_is_a_named_gap(
        stack: Stack, rng: random.Random) -> None:
    chaoslib.blob_faults(stack, rng).check()
