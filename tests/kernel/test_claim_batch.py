"""Claiming short units in batches (docfleet.kernel.claimbatch and the drain loop): a real
worker on a real SQLite store, in this process, its store given the optional
``complete_and_claim_units`` (the generic default) so that the worker batches as it does
on PostgreSQL; the real-process PostgreSQL fleet is tests/cloud/test_claim_batches_fleet.py."""

from __future__ import annotations

import hashlib
import logging
import time
from pathlib import Path
from typing import Any

import pytest

from docfleet.core.models import Claim, UnitState
from docfleet.dataset.manifest import part_key
from docfleet.kernel.claimbatch import MAX_BATCH_UNITS, BatchSizer, batch_window
from docfleet.kernel.worker import EXIT_OK, EXIT_SIGTERM, Worker
from docfleet.state.optional import claims_in_batches, complete_and_claim_units
from support.inprocess import in_process_worker


def test_a_batch_holds_the_window_of_unit_time_between_one_and_the_ceiling() -> None:
    sizer = BatchSizer(1.0)
    assert sizer.size() == 1, "no unit timed yet: one at a time"
    sizer.observe(0.1)
    assert sizer.size() == 10
    sizer.observe(0.001)
    assert sizer.size() == 14, "a running mean: 0.3 x the newest unit + 0.7 x before"
    for _ in range(10):
        sizer.observe(0.001)
    assert sizer.size() == MAX_BATCH_UNITS
    for _ in range(20):
        sizer.observe(3.0)  # units of seconds: one at a time again
    assert sizer.size() == 1
    off = BatchSizer(0.0)
    off.observe(0.001)
    assert off.size() == 1


def test_the_window_leaves_the_lease_time_for_the_last_unit_of_a_batch() -> None:
    assert batch_window(1.0, 30.0, 10.0) == 1.0
    assert batch_window(10.0, 30.0, 10.0) == 5.0, "a quarter of lease - heartbeat"
    assert batch_window(1.0, 3.0, 2.9) == pytest.approx(0.025)
    assert batch_window(0.0, 30.0, 10.0) == 0.0


class _Batching:
    """The real store, offering ``complete_and_claim_units`` (the generic default: one
    write each); each call is recorded, and after ``stop_after`` calls it sets the
    worker's stop, as a SIGTERM arriving just then would."""

    def __init__(self, store: Any, stop_after: int | None = None) -> None:
        self._store = store
        self.worker: Worker | None = None
        self.calls: list[tuple[int, int, list[Claim]]] = []  # (completions, want, claims)
        self.stop_after = stop_after

    def complete_and_claim_units(self, run_id: str, completions: Any, owner: str, hint: int,
                                 want: int, lease: float, now: float
                                 ) -> tuple[list[bool], list[Claim]]:
        applied, claims = complete_and_claim_units(self._store, run_id, completions, owner,
                                                   hint, want, lease, now)
        self.calls.append((len(completions), want, claims))
        if self.stop_after is not None and len(self.calls) >= self.stop_after:
            assert self.worker is not None
            self.worker.stop.set()
        return applied, claims

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


def _worker(tmp_path: Path, run_id: str, total: int, stop_after: int | None = None,
            **settings: Any) -> tuple[Worker, _Batching]:
    worker, store = in_process_worker(tmp_path, run_id, total,
                                      lambda real: _Batching(real, stop_after),
                                      "docfleet.test.batch", **settings)
    assert claims_in_batches(store) and not claims_in_batches(store._store)
    return worker, store


def test_short_units_are_claimed_and_recorded_in_batches_and_each_is_done_once(
    tmp_path: Path, run_id: str
) -> None:
    worker, store = _worker(tmp_path, run_id, total=60)
    assert worker.run() == EXIT_OK
    units = store.units(run_id)
    assert [u.state for u in units] == [UnitState.DONE] * 60
    assert all(u.attempts == 1 for u in units)
    sizes = [len(claims) for _, _, claims in store.calls]
    assert sum(sizes) == 60
    assert sizes[0] == 1, "the first unit is claimed alone (no unit time known yet)"
    assert max(sizes) > 4, sizes
    # each call records the completions of the batch before it (one call for many units)
    assert sum(n for n, _, _ in store.calls) == 60
    assert len(store.calls) < 60 / 3, store.calls
    # each unit's recorded part is the part it wrote (recorded with a later unit's call)
    for unit in units:
        part = tmp_path / "out" / run_id / part_key(unit.index)
        assert hashlib.sha256(part.read_bytes()).hexdigest() == unit.part_sha256


def test_a_stop_mid_batch_records_the_finished_units_and_gives_back_the_rest(
    tmp_path: Path, run_id: str
) -> None:
    worker, store = _worker(tmp_path, run_id, total=60, stop_after=3)
    assert worker.run() == EXIT_SIGTERM
    units = store.units(run_id)
    assert not [u for u in units if u.state == UnitState.RUNNING], "nothing left RUNNING"
    done = [u for u in units if u.state == UnitState.DONE]
    claimed = sum(len(claims) for _, _, claims in store.calls)
    # the stop came with the third call's batch: its units were given back unstarted,
    # every unit worked before it was recorded
    last = store.calls[-1][2]
    assert last, "the third call claimed a batch"
    assert len(done) == claimed - len(last)
    for claim in last:
        unit = units[claim.unit_index]
        assert unit.state == UnitState.PENDING and unit.attempts == 0, unit


class _Thief(_Batching):
    """On its ``steal_at``-th call a peer takes over the first completion's unit just
    before the call (a reclaim after a lost lease, as a paused task would suffer) and
    completes it; ``progress`` reads (the idle path) are logged between the calls."""

    def __init__(self, store: Any, steal_at: int, run_dir: Path) -> None:
        super().__init__(store)
        self.steal_at = steal_at
        self.run_dir = run_dir
        self.log: list[str] = []
        self.stolen: int | None = None

    def complete_and_claim_units(self, run_id: str, completions: Any, *args: Any
                                 ) -> tuple[list[bool], list[Claim]]:
        if len(self.calls) + 1 == self.steal_at and completions:
            victim = completions[0][0]
            assert self._store.release_unit(victim, 0.0)
            thief = self._store.claim_next_unit(run_id, "thief", victim.unit_index, 30.0, 0.0)
            assert thief is not None and thief.unit_index == victim.unit_index
            # the thief's part is the same part (outputs are deterministic)
            part = (self.run_dir / part_key(victim.unit_index)).read_bytes()
            assert self._store.complete_unit(thief, hashlib.sha256(part).hexdigest(), 0.0)
            self.stolen = victim.unit_index
        applied, claims = super().complete_and_claim_units(run_id, completions, *args)
        self.log.append(f"call {len(completions)} {all(applied)} {len(claims)}")
        return applied, claims

    def progress(self, run_id: str) -> Any:
        self.log.append("progress")
        return self._store.progress(run_id)


def test_a_fenced_completion_in_a_batch_is_logged_and_the_task_claims_again_at_once(
    tmp_path: Path, run_id: str, caplog: pytest.LogCaptureFixture
) -> None:
    worker, _ = _worker(tmp_path, run_id, total=60)
    store = _Thief(worker.store._store, 3, tmp_path / "out" / run_id)  # type: ignore[attr-defined]
    store.worker = worker
    worker.store = store  # type: ignore[assignment]
    with caplog.at_level(logging.INFO, logger="docfleet.test.batch"):
        assert worker.run() == EXIT_OK
    assert store.stolen is not None
    fenced = [r for r in caplog.records if getattr(r, "event", "") == "unit.fenced"]
    assert [r.unit for r in fenced] == [store.stolen]  # type: ignore[attr-defined]
    units = store.units(run_id)
    assert [u.state for u in units] == [UnitState.DONE] * 60
    assert units[store.stolen].worked_by == "thief", "the thief's completion stands"
    # the fenced call claimed nothing; the next call claims at once (no idle poll between)
    at = next(i for i, entry in enumerate(store.log) if entry.startswith("call") and
              " False " in entry)
    assert store.log[at].endswith(" 0"), store.log
    assert store.log[at + 1].startswith("call 0 True") and not store.log[at + 1].endswith(
        " 0"), store.log


class _Slow(_Batching):
    """Its ``slow_at``-th call answers ``pause`` seconds late (a store that stalled after
    applying it): the batch it claimed has used up that much of its lease already."""

    def __init__(self, store: Any, slow_at: int, pause: float) -> None:
        super().__init__(store)
        self.slow_at, self.pause = slow_at, pause

    def complete_and_claim_units(self, *args: Any) -> tuple[list[bool], list[Claim]]:
        result = super().complete_and_claim_units(*args)
        if len(self.calls) == self.slow_at:
            time.sleep(self.pause)
        return result


def test_a_batch_whose_leases_ran_down_is_given_back_and_claimed_afresh(
    tmp_path: Path, run_id: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Lease 3 s, heartbeat 1 s: a unit claimed ahead is started only with more than
    1 + (3 - 1) / 2 = 2 s of its lease left; a batch answered 1.5 s late has less."""
    worker, _ = _worker(tmp_path, run_id, total=40, lease_seconds=3)
    store = _Slow(worker.store._store, slow_at=3, pause=1.5)  # type: ignore[attr-defined]
    store.worker = worker
    worker.store = store  # type: ignore[assignment]
    with caplog.at_level(logging.INFO, logger="docfleet.test.batch"):
        assert worker.run() == EXIT_OK
    stale = store.calls[2][2]
    assert len(stale) > 1, "the slow call claimed a batch"
    events = [getattr(r, "event", "") for r in caplog.records]
    assert "batch.stale" in events
    released = {r.unit for r in caplog.records  # type: ignore[attr-defined]
                if getattr(r, "event", "") == "lease.release"}
    assert released == {c.unit_index for c in stale}, "the whole batch, none of it started"
    units = store.units(run_id)
    assert [u.state for u in units] == [UnitState.DONE] * 40
    assert all(u.attempts == 1 for u in units), "a give-back burns no attempt"


def test_claim_batch_seconds_zero_takes_one_unit_at_a_time(tmp_path: Path, run_id: str
                                                           ) -> None:
    worker, store = _worker(tmp_path, run_id, total=6, claim_batch_seconds=0)
    assert worker.run() == EXIT_OK
    assert store.calls == [], "the one-unit path (complete_and_claim_next)"
    assert [u.state for u in store.units(run_id)] == [UnitState.DONE] * 6
