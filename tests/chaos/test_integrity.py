"""Issue 12: no run ever reads as complete when it is not, and every damaged run can be
repaired. Real ``docfleet work`` processes, real files, real signals, on every state
backend (``stack``: SQLite, the Firestore emulator, the DynamoDB emulator)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from docfleet.core.models import UnitState
from docfleet.state import open_state_store
from support import chaoslib
from support.chaoslib import Stack
from support.fleet import cli, events, named, start_worker

pytestmark = pytest.mark.fleet


def test_9_a_root_from_another_run_is_refused_and_resume_replaces_it(
        stack: Stack, rng: random.Random) -> None:
    chaoslib.foreign_root(stack, rng).check()


def test_10_damage_after_done_before_the_root_is_refused_then_repaired(
        stack: Stack, rng: random.Random) -> None:
    chaoslib.damage_before_root(stack, rng).check()


@pytest.mark.parametrize("damage", [*chaoslib.DAMAGES, "all"])
def test_11_damage_to_a_completed_run_is_repaired_by_one_resume(
        stack: Stack, damage: str) -> None:
    # a fixed RNG per damage kind: "all" applies every kind at once
    class Pick(random.Random):
        def sample(self, population, k):  # type: ignore[no-untyped-def, override]
            if population is chaoslib.DAMAGES:
                return list(chaoslib.DAMAGES) if damage == "all" else [damage]
            return super().sample(population, k)

        def randint(self, a: int, b: int) -> int:
            return b

    chaoslib.damage_after_completed(stack, Pick(len(damage))).check()


def test_12_an_environment_fault_on_one_task_burns_no_attempt(
        stack: Stack, rng: random.Random) -> None:
    chaoslib.environment_fault(stack, rng).check()


@pytest.mark.timing
def test_13_a_fast_clock_and_a_sigkill_strand_nothing(
        stack: Stack, rng: random.Random) -> None:
    chaoslib.fast_clock(stack, rng).check()


def test_one_resume_leaves_every_unit_workable(stack: Stack, tmp_path: Path) -> None:
    """Item 4: a unit on its last attempt whose lease expired (its task died) and a FAILED
    unit: one ``resume`` must leave both PENDING with their attempts reset (reclaim runs
    before the reset), and one worker then completes the run."""
    run_id = chaoslib.new_run_id("resume1")
    env = stack.env(run_id, 9, unit_size=3, MAX_ATTEMPTS=1, BENCH_DOC_MS=5,
                    BENCH_FAIL_INDEXES="4")
    # the first task fails unit 1 (max_attempts 1: FAILED) and dies holding unit 2
    code = start_worker({**env, "DOCFLEET_BENCH_CRASH_INDEXES": "7"},
                        tmp_path / "first.log").wait(120)
    assert code == 137
    store = open_state_store(stack.state)
    states = {u.index: u.state for u in store.units(run_id)}
    assert states[1] == UnitState.FAILED and states[2] == UnitState.RUNNING, states
    import time

    time.sleep(chaoslib.LEASE + 1)  # the dead task's lease (on its last attempt) runs out
    resumed = cli("resume", run_id, "--state", stack.state, "--out", stack.out)
    assert resumed.returncode == 0, resumed.stderr
    assert "1 expired lease(s) reclaimed, 2 failed unit(s) reset" in resumed.stdout, \
        resumed.stdout
    units = store.units(run_id)
    assert all(u.state in (UnitState.PENDING, UnitState.DONE) for u in units), units
    assert all(u.attempts == 0 for u in units if u.state == UnitState.PENDING)
    store.close()
    env.pop("DOCFLEET_BENCH_FAIL_INDEXES")
    assert start_worker(env, tmp_path / "after.log").wait(120) == 0
    assert cli("verify", run_id, "--out", stack.out, "--state", stack.state).returncode == 0


def test_finalize_refusal_names_the_conflict_on_one_line(stack: Stack, tmp_path: Path) -> None:
    """Item 1: the refusal is one readable line naming both fingerprints and the totals."""
    run_id = chaoslib.new_run_id("conflict")
    assert start_worker(stack.env(run_id, 4, unit_size=2), tmp_path / "a.log").wait(120) == 0
    other = stack.other_state()
    env = {**stack.env(run_id, 8, unit_size=2), "DOCFLEET_STATE": other}
    assert start_worker(env, tmp_path / "b.log").wait(120) == 1
    gap = named(events(tmp_path / "b.log"), "manifest.gap")
    assert gap and "\n" not in gap[0]["message"]
    assert "fingerprint" in gap[0]["message"] and "total 4 vs 8" in gap[0]["message"]
    verify = cli("verify", run_id, "--out", stack.out, "--state", other)
    assert verify.returncode == 1 and "fingerprint" in verify.stderr
