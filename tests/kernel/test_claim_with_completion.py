"""The drain loop claims a task's next unit with the completion of its last one
(``complete_and_claim_next``): a real worker on a real SQLite store, in this process."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from docfleet.core.models import Claim, UnitState
from docfleet.kernel.worker import EXIT_OK, EXIT_SIGTERM, Worker
from docfleet.state.ramp import WriteRamp
from support.inprocess import in_process_worker


class _Store:
    """The real store; its ``complete_and_claim_next`` (the default: complete, then claim)
    is counted, and after ``stop_after`` calls it sets the worker's stop, as a SIGTERM
    arriving just then would."""

    def __init__(self, store: Any, stop_after: int | None = None,
                 ramp: WriteRamp | None = None) -> None:
        self._store = store
        if ramp is not None:  # declared as Firestore declares its 500/50/5 rule
            self.write_ramp, self.unit_writes = ramp, 4.0
        self.worker: Worker | None = None
        self.calls: list[Claim | None] = []
        self.stop_after = stop_after

    def complete_and_claim_next(self, claim: Claim, sha: str, owner: str, hint: int,
                                lease: float, now: float) -> tuple[bool, Claim | None]:
        done = self._store.complete_unit(claim, sha, now)
        nxt = self._store.claim_next_unit(claim.run_id, owner, hint, lease, now) if done else None
        self.calls.append(nxt)
        if self.stop_after is not None and len(self.calls) >= self.stop_after:
            assert self.worker is not None
            self.worker.stop.set()
        return done, nxt

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


def _worker(tmp_path: Path, run_id: str, stop_after: int | None,
            ramp: WriteRamp | None = None) -> tuple[Worker, _Store]:
    return in_process_worker(tmp_path, run_id, 6,
                             lambda real: _Store(real, stop_after, ramp), "docfleet.test.combined")


def test_each_completion_claims_the_next_unit_and_the_run_completes(
    tmp_path: Path, run_id: str
) -> None:
    worker, store = _worker(tmp_path, run_id, stop_after=None)
    assert worker.run() == EXIT_OK
    # 6 units: the first claimed on its own, then completions claim the rest (a
    # run-state check falling due makes a plain completion and a claim of its own)
    assert 1 <= len([c for c in store.calls if c is not None]) <= 5
    units = store.units(run_id)
    assert [u.state for u in units] == [UnitState.DONE] * 6
    assert all(u.attempts == 1 for u in units)


def test_a_stop_right_after_a_completion_claimed_releases_that_unit(
    tmp_path: Path, run_id: str
) -> None:
    worker, store = _worker(tmp_path, run_id, stop_after=2)
    assert worker.run() == EXIT_SIGTERM
    taken = store.calls[-1]
    assert taken is not None, "the second completion claimed a unit"
    units = {u.index: u for u in store.units(run_id)}
    assert units[taken.unit_index].state == UnitState.PENDING, "released, not left RUNNING"
    assert units[taken.unit_index].attempts == 0, "a release burns no attempt"
    assert sum(u.state == UnitState.DONE for u in units.values()) == len(store.calls) == 2
    assert not [u for u in units.values() if u.state == UnitState.RUNNING]


def test_under_a_write_ramp_no_unit_is_claimed_with_a_completion(
    tmp_path: Path, run_id: str
) -> None:
    """The claim governor spaces claims on a ramped store: a unit claimed with the last
    completion would wait for the task's turn with its lease running and no heartbeat."""
    worker, store = _worker(tmp_path, run_id, stop_after=None, ramp=WriteRamp(1e6))
    assert worker.run() == EXIT_OK
    assert store.calls == []
    assert [u.state for u in store.units(run_id)] == [UnitState.DONE] * 6
