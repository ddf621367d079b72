"""Fixtures of the contract suite: a store per backend, real process pools."""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor

import pytest

from docfleet.state import StateStore, open_state_store


@pytest.fixture
def store(state_uri: str) -> Iterator[StateStore]:
    """A fresh store on each backend of the ``state_uri`` fixture, closed after the test."""
    s = open_state_store(state_uri)
    yield s
    s.close()


@pytest.fixture(scope="session")
def pool() -> Iterator[ProcessPoolExecutor]:
    """Real OS processes (spawned, so no client state is shared through fork)."""
    with ProcessPoolExecutor(8, mp_context=multiprocessing.get_context("spawn")) as executor:
        # warm the workers up so a race's processes really start together
        list(executor.map(time.sleep, [0.01] * 8))
        yield executor

