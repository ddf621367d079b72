"""Functions run in separate OS processes by the contract suite's race tests. Each opens
its own store from a URI, waits for a common start time, and races."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from docfleet.blob import open_blob_store
from docfleet.core.models import RunSpec
from docfleet.state import open_state_store
from docfleet.state.optional import complete_and_claim_next, complete_and_claim_units


def _wait(start_at: float) -> None:
    delay = start_at - time.time()
    if delay > 0:
        time.sleep(delay)


def race_create_run(uri: str, spec_params: dict, planner: str, start_at: float) -> bool:
    store = open_state_store(uri)
    spec = RunSpec.from_parameters(spec_params)
    _wait(start_at)
    try:
        return store.create_run(spec, planner, time.time()).won
    finally:
        store.close()


def race_claims(uri: str, run_id: str, owner: str, hint: int, start_at: float) -> list[str]:
    """Claim and complete units until none is left; return the claim tokens taken."""
    store = open_state_store(uri)
    _wait(start_at)
    taken = []
    try:
        while True:
            claim = store.claim_next_unit(run_id, owner, hint, 60.0, time.time())
            if claim is None:
                return taken
            taken.append(f"{claim.unit_index}|{claim.token}")
            assert store.complete_unit(claim, "0" * 64, time.time())
    finally:
        store.close()


def race_complete_and_claim(uri: str, run_id: str, owner: str, hint: int, start_at: float
                            ) -> list[str]:
    """Claim once, then complete each unit and claim the next in one call
    (``complete_and_claim_next``) until none is left; return the claim tokens taken."""
    store = open_state_store(uri)
    _wait(start_at)
    taken = []
    try:
        claim = store.claim_next_unit(run_id, owner, hint, 60.0, time.time())
        while claim is not None:
            taken.append(f"{claim.unit_index}|{claim.token}")
            done, claim = complete_and_claim_next(store, claim, "0" * 64, owner, hint, 60.0,
                                                  time.time())
            assert done
        return taken
    finally:
        store.close()


def race_batches(uri: str, run_id: str, owner: str, hint: int, start_at: float) -> list[str]:
    """Claim a batch, then complete it and claim the next batch in one call
    (``complete_and_claim_units``, batches of 1 to 4) until none is left; return the claim
    tokens taken."""
    store = open_state_store(uri)
    _wait(start_at)
    taken: list[str] = []
    try:
        _, batch = complete_and_claim_units(store, run_id, [], owner, hint, 3, 60.0, time.time())
        while batch:
            taken.extend(f"{c.unit_index}|{c.token}" for c in batch)
            hint = batch[-1].unit_index + 1
            applied, batch = complete_and_claim_units(
                store, run_id, [(c, "0" * 64) for c in batch], owner, hint,
                1 + len(taken) % 4, 60.0, time.time())
            assert all(applied)
        return taken
    finally:
        store.close()


def race_spend(uri: str, run_id: str, model: str, times: int, nano: int, start_at: float) -> None:
    store = open_state_store(uri)
    _wait(start_at)
    try:
        for _ in range(times):
            store.add_spend(run_id, model, nano)
    finally:
        store.close()


def race_put_if_absent(uri: str, key: str, payload: bytes, start_at: float) -> bool:
    blob = open_blob_store(uri)
    _wait(start_at)
    return blob.put_if_absent(key, payload)


def race(pool: ProcessPoolExecutor, fn: Callable[..., Any], args: list[tuple]) -> list[Any]:
    """Run ``fn(*args_i, start_at)`` in parallel processes that start at the same instant."""
    start_at = time.time() + 1.0
    futures = [pool.submit(fn, *a, start_at) for a in args]
    return [f.result(timeout=120) for f in futures]
