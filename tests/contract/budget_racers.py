"""Process bodies for the budget contract's races (run in spawned OS processes)."""

from __future__ import annotations

import time

from docfleet.state import open_state_store


def race_reserve(
    uri: str, run_id: str, owner: str, tries: int, nano: int, cap: int, start_at: float
) -> int:
    """Reserve ``nano`` ``tries`` times (settling half of them at their full amount);
    return how many reservations were granted."""
    store = open_state_store(uri)
    delay = start_at - time.time()
    if delay > 0:
        time.sleep(delay)
    granted = 0
    try:
        for i in range(tries):
            rid = f"{owner}-{i}"
            if store.reserve_budget(run_id, rid, nano, cap, time.time() + 600):
                granted += 1
                if i % 2:
                    store.settle_reservation(run_id, rid, {"m": nano})
        return granted
    finally:
        store.close()
