"""Issue 19: a stopped PostgreSQL server (SIGSTOP of the postmaster and every backend:
connections accepted, nothing answered) must not hang a task. Real ``docfleet work``
processes, a real server, real signals (``chaoslib.stopped_server``); and the 32-task
cold-start storm on one PostgreSQL run."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from support import chaoslib
from support.backends import STATE_BACKENDS, server_for
from support.chaoslib import Stack

pytestmark = [pytest.mark.fleet, pytest.mark.timing]


@pytest.fixture
def pg_stack(request: pytest.FixtureRequest, tmp_path: Path) -> Stack:
    state = STATE_BACKENDS["postgresql"](request, tmp_path)
    return Stack("postgresql", state, f"file://{tmp_path / 'out'}", tmp_path,
                 server_for(request, "postgresql"))


def test_a_stop_shorter_than_the_retry_window_is_ridden_out(
        pg_stack: Stack, rng: random.Random) -> None:
    result = chaoslib.stopped_server(pg_stack, rng, longer=False)
    result.check()


def test_a_stop_longer_than_the_retry_window_exits_4_and_a_later_task_completes(
        pg_stack: Stack, rng: random.Random) -> None:
    result = chaoslib.stopped_server(pg_stack, rng, longer=True)
    result.check()
    # nothing hung: every task left within the window plus its last client timeouts
    assert result.notes["exit_after_s"] < 60, result


def test_a_cold_start_storm_of_32_tasks_has_no_store_error(
        pg_stack: Stack, rng: random.Random) -> None:
    result = chaoslib.storm(pg_stack, rng, tasks=32, unit_size=1)
    result.check()
    assert result.notes["store_errors"] == 0 and result.units == 64, result
