"""The fleet write-rate governor (``pacing.ClaimGovernor``): N tasks that each space their
claims ``N * writes_per_unit / R(t)`` apart keep the whole fleet under the store's ramp,
with no coordination. Checked on a simulated fleet with a fake clock (the real-process
check on the Firestore emulator is ``tests/cloud/test_write_ramp_fleet.py``)."""

from __future__ import annotations

import heapq
import math
import random

import pytest

from docfleet.core.errors import ConfigError
from docfleet.kernel import pacing
from docfleet.kernel.pacing import ClaimGovernor, claim_spacing
from docfleet.state import open_state_store
from docfleet.state.optional import write_ramp
from docfleet.state.ramp import WriteRamp, parse_ramp
from support.errors import assert_one_line_error
from support.fleet import cli

FIRESTORE = WriteRamp(500.0, 1.5, 300.0)


def test_the_ramp_is_500_50_5_as_a_step_function() -> None:
    assert FIRESTORE.rate(-10) == FIRESTORE.rate(0) == FIRESTORE.rate(299.9) == 500
    assert FIRESTORE.rate(300) == 750
    assert FIRESTORE.rate(600) == pytest.approx(1125)
    assert FIRESTORE.rate(10 ** 9) < math.inf  # no overflow after a very long run
    assert FIRESTORE.seconds_to(400) == 0
    assert FIRESTORE.seconds_to(667) == 300  # one step: 750 >= 667
    assert FIRESTORE.seconds_to(1300) == 900  # 500 * 1.5**3 = 1687.5
    assert WriteRamp(10, 1.0, 60).seconds_to(11) == math.inf


def test_spacing_is_n_times_writes_over_the_rate() -> None:
    # 10,000 tasks, 4 writes a unit, 500 ops/s: 80 s between one task's claims (/0.9)
    assert claim_spacing(10_000, 4, FIRESTORE, 0) == pytest.approx(80 / pacing.RAMP_HEADROOM)
    assert claim_spacing(10_000, 4, FIRESTORE, 300) == pytest.approx(
        80 / 1.5 / pacing.RAMP_HEADROOM)


@pytest.mark.parametrize("text, want", [
    (None, FIRESTORE), ("", FIRESTORE), ("off", None), ("OFF", None),
    ("20", WriteRamp(20, 1.5, 300)), ("20,2,60", WriteRamp(20, 2, 60)),
])
def test_parse_ramp(text: str | None, want: WriteRamp | None) -> None:
    assert parse_ramp(text, FIRESTORE) == want


@pytest.mark.parametrize("text", ["fast", "0", "-5", "20,1.5", "20,0.5,300", "20,1.5,0",
                                  "nan", "inf"])
def test_parse_ramp_refuses_nonsense(text: str) -> None:
    with pytest.raises(ValueError, match="ramp"):
        parse_ramp(text, FIRESTORE)


def test_firestore_declares_the_ramp_and_the_uri_overrides_it(monkeypatch) -> None:
    monkeypatch.setenv("FIRESTORE_EMULATOR_HOST", "127.0.0.1:9")  # never contacted
    store = open_state_store("firestore://p?prefix=x")
    assert write_ramp(store) == (FIRESTORE, 4.0)
    assert write_ramp(open_state_store("firestore://p?ramp=off")) is None
    assert write_ramp(open_state_store("firestore://p?ramp=20")) == (WriteRamp(20), 4.0)
    with pytest.raises(ConfigError, match="ramp=off"):
        open_state_store("firestore://p?ramp=fast")


def test_sqlite_declares_no_ramp(tmp_path) -> None:
    store = open_state_store(f"sqlite:///{tmp_path}/s.db")
    try:
        assert write_ramp(store) is None
    finally:
        store.close()


def simulate(tasks: int, ramp: WriteRamp, *, unit_writes: float, unit_seconds: float,
             heartbeat: float, first_writes: float, horizon: float, seed: int = 7
             ) -> list[float]:
    """Times of every write of a fleet of ``tasks`` governed tasks (a fake clock): a claim
    writes ``unit_writes / 2``, each heartbeat renewal one write, the completion the
    other half; a task claims again as soon as its governor lets it."""
    rng = random.Random(seed)
    plan = 1000.0
    govs = [ClaimGovernor(ramp, tasks, unit_writes, plan, first_writes, rng=rng)
            for _ in range(tasks)]
    writes: list[float] = []
    ready = [(g.next_at, i) for i, g in enumerate(govs)]
    heapq.heapify(ready)
    while ready:
        free_at, i = heapq.heappop(ready)
        gov = govs[i]
        at = free_at + gov.wait(free_at)
        if at > plan + horizon:
            continue
        gov.claimed(at)
        writes += [at] * int(unit_writes // 2)
        renewals = int((unit_seconds - 1e-9) // heartbeat)
        writes += [at + heartbeat * (k + 1) for k in range(renewals)]
        writes += [at + unit_seconds] * int(unit_writes - unit_writes // 2)
        gov.worked(renewals)
        heapq.heappush(ready, (at + unit_seconds, i))
    return [w - plan for w in writes]


def window_rates(writes: list[float], width: float, horizon: float) -> list[tuple[float, float]]:
    counts: dict[int, int] = {}
    for w in writes:
        counts[int(w // width)] = counts.get(int(w // width), 0) + 1
    return [(k * width, counts.get(k, 0) / width) for k in range(int(horizon // width))]


@pytest.mark.parametrize("unit_seconds, heartbeat, lease", [
    (2.0, 10.0, 30.0),  # short units: the first slot overestimates them (3 renewals)
    (25.0, 10.0, 30.0),  # units near a lease: tasks busy past their slots
    (60.0, 20.0, 60.0),  # minute-long units under a minute's lease
])
def test_a_simulated_fleet_stays_under_the_ramp_and_follows_it_up(
        unit_seconds: float, heartbeat: float, lease: float) -> None:
    """500 tasks, a tiny ramp (40 ops/s, x1.5 every 120 s), 4 writes a unit plus a renewal
    every heartbeat, the first slot sized for a unit of one lease: every 30-second window
    is under the ramp, and once warm the fleet uses most of what the ramp (or its own
    speed) allows: the governor does not just stall it."""
    ramp, horizon, tasks = WriteRamp(40.0, 1.5, 120.0), 900.0, 500
    writes = simulate(tasks, ramp, unit_writes=4, unit_seconds=unit_seconds,
                      heartbeat=heartbeat, first_writes=4 + lease / heartbeat, horizon=horizon)
    renewals = (unit_seconds - 1e-9) // heartbeat
    fleet_max = tasks / unit_seconds * (4 + renewals)  # writes/s with no governor
    rates = window_rates(writes, 30.0, horizon)
    for start, rate in rates:
        # the ramp at the window's end is the most it allows anywhere in the window
        assert rate <= ramp.rate(start + 30.0), (start, rate)
    warm = [rate / min(fleet_max, ramp.rate(start)) for start, rate in rates
            if start >= 300 and (start % 120) + 30 <= 120]  # whole windows inside a step
    assert min(warm) > 0.6, warm


def test_units_far_longer_than_a_slot_stay_under_with_the_ramps_heartbeat() -> None:
    """500 tasks on 10-minute units under a 40 ops/s ramp: with the default heartbeat (10 s
    of a 30 s lease) their renewals alone are 50 writes/s, over the ramp whatever the
    claims do. ``ramp_heartbeat`` (what the worker applies to its lease) spaces them so
    that every window stays under the ramp, the first ones included."""
    ramp, horizon, tasks, unit = WriteRamp(40.0, 1.5, 120.0), 900.0, 500, 600.0
    fast = simulate(tasks, ramp, unit_writes=4, unit_seconds=unit, heartbeat=10.0,
                    first_writes=4 + 3, horizon=horizon)
    assert max(rate for _, rate in window_rates(fast, 30.0, horizon)) > ramp.rate(0)
    heartbeat = pacing.ramp_heartbeat(ramp, tasks, 10.0)
    assert heartbeat == pytest.approx(tasks / (pacing.RENEWAL_SHARE
                                               * pacing.RAMP_HEADROOM * 40.0))
    writes = simulate(tasks, ramp, unit_writes=4, unit_seconds=unit, heartbeat=heartbeat,
                      first_writes=4 + 3, horizon=horizon)
    for start, rate in window_rates(writes, 30.0, horizon):
        assert rate <= ramp.rate(start + 30.0), (start, rate)
    assert pacing.ramp_heartbeat(ramp, 5, 10.0) == 10.0  # a small fleet keeps its own


def test_the_worker_scales_its_lease_for_a_large_fleet_under_a_ramp(tmp_path) -> None:
    """10,000 tasks under Firestore's 500 ops/s: a heartbeat of ~56 s and the lease scaled
    with it (the same in every task: it depends on N and the ramp only); 10 tasks, or a
    store with no ramp, keep the settings they were given."""
    import logging

    from docfleet.core.identity import task_identity
    from docfleet.core.settings import load_settings
    from docfleet.kernel.worker import Worker

    class Ramped:
        write_ramp, unit_writes = FIRESTORE, 4.0

    settings = load_settings(run_id="r", total=4, lease_seconds=30,
                             state=f"sqlite:///{tmp_path / 's.db'}")
    log = logging.getLogger("docfleet.test.ramp")

    def scaled(count: int, store: object) -> tuple[float, float]:
        ident = task_identity({"DOCFLEET_TASK_INDEX": "0", "DOCFLEET_TASK_COUNT": str(count)})
        s = Worker._ramped_settings(settings, ident, write_ramp(store), log)
        return s.lease_seconds, s.heartbeat

    lease, heartbeat = scaled(10_000, Ramped())
    assert heartbeat == pytest.approx(10_000 / (0.4 * 0.9 * 500))
    assert lease == pytest.approx(3 * heartbeat)
    assert scaled(10, Ramped()) == (30, 10)
    assert scaled(10_000, object()) == (30, 10)


def test_first_claims_are_spread_over_one_interval() -> None:
    rng = random.Random(3)
    govs = [ClaimGovernor(FIRESTORE, 10_000, 4, 0.0, rng=rng) for _ in range(10_000)]
    first = sorted(g.next_at for g in govs)
    interval = claim_spacing(10_000, 4, FIRESTORE, 0)
    assert first[0] >= 0 and first[-1] <= interval
    # uniform: each tenth of the interval holds about a tenth of the fleet
    for k in range(10):
        share = sum(k * interval / 10 <= t < (k + 1) * interval / 10 for t in first)
        assert 800 < share < 1200, (k, share)


def test_the_next_claim_waits_a_whole_slot_sized_by_the_last_units_real_writes() -> None:
    ramp = WriteRamp(10.0, 1.5, 300.0)
    gov = ClaimGovernor(ramp, 10, 4, 0.0, first_writes=7, rng=random.Random(1))
    assert gov.wait(gov.next_at) == 0 and gov.wait(gov.next_at - 1) == 1
    assert gov.spacing(0) == pytest.approx(10 * 7 / (10 * pacing.RAMP_HEADROOM))
    gov.claimed(100.0)
    assert 1 - 1e-6 <= (gov.next_at - 100) / gov.spacing(100) <= 2
    gov.worked(renewals=6)  # a long unit: 4 + 6 writes, a longer slot
    assert gov.spacing(100) == pytest.approx(10 * 10 / (10 * pacing.RAMP_HEADROOM))
    assert 1 - 1e-6 <= (gov.next_at - 100) / gov.spacing(100) <= 2
    gov.claimed(400.0)  # in the ramp's second step (15 ops/s): shorter slots in seconds
    assert gov.spacing(400) == pytest.approx(10 * 10 / (15 * pacing.RAMP_HEADROOM))
    assert 1 - 1e-6 <= (gov.next_at - 400) / gov.spacing(400) <= 2


def test_the_ramps_budget_is_its_integral() -> None:
    assert FIRESTORE.budget(0) == 0 and FIRESTORE.budget(-5) == 0
    assert FIRESTORE.budget(300) == pytest.approx(150_000)
    assert FIRESTORE.budget(450) == pytest.approx(150_000 + 150 * 750)
    for t in (0.0, 1.0, 299.0, 300.0, 301.0, 1234.5, 10 ** 6):
        assert FIRESTORE.elapsed_at(FIRESTORE.budget(t)) == pytest.approx(t)


def test_a_bad_ramp_option_is_one_clear_line_and_plans_nothing(tmp_path) -> None:
    result = cli("work", "--run-id", "r1", "--total", "10", "--pack", "bench",
                 "--state", "firestore://p?prefix=x&emulator=127.0.0.1:9&ramp=fast",
                 "--out", f"file://{tmp_path}/out")
    assert_one_line_error(result, "ramp 'fast' is not 'off' or numbers", "?ramp=off",
                          code=2)
    assert not (tmp_path / "out").exists()


def test_the_plan_is_paced_at_the_ramps_start_rate() -> None:
    """The plan writes sequential ids and idx: it stays under RAMP_HEADROOM of the ramp's
    start (Firestore's 500 writes/s for sequential indexed values), however long it runs."""
    rate = pacing.RAMP_HEADROOM * FIRESTORE.start  # 450 units/s
    assert pacing.plan_wait(FIRESTORE, 500, 0.0) == pytest.approx(500 / rate)
    assert pacing.plan_wait(FIRESTORE, 500, 0.5) == pytest.approx(500 / rate - 0.5)
    assert pacing.plan_wait(FIRESTORE, 500, 5.0) == 0  # a slow store paces itself
    assert pacing.plan_wait(FIRESTORE, 900_000, 1800.0) == pytest.approx(200)  # no growth
