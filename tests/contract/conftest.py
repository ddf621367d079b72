from __future__ import annotations

import multiprocessing
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor

import pytest


@pytest.fixture(scope="session")
def pool() -> Iterator[ProcessPoolExecutor]:
    """Real OS processes (spawned, so no client state is shared through fork)."""
    with ProcessPoolExecutor(8, mp_context=multiprocessing.get_context("spawn")) as executor:
        # warm the workers up so a race's processes really start together
        list(executor.map(time.sleep, [0.01] * 8))
        yield executor

