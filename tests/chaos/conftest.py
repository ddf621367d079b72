"""Chaos fixtures: one *stack* per state backend of the registry (``support/backends.py``:
SQLite, the Firestore and DynamoDB emulators, a PostgreSQL server), outputs on
``file://``, and a seeded RNG per test."""

from __future__ import annotations

import os
import random
import zlib
from pathlib import Path

import pytest

from support.backends import STATE_BACKENDS, server_for
from support.chaoslib import Stack

#: Seed of every chaos test's RNG (env ``CHAOS_SEED``).
SEED = int(os.environ.get("CHAOS_SEED", "9"))


@pytest.fixture(params=sorted(STATE_BACKENDS))
def stack(request: pytest.FixtureRequest, tmp_path: Path) -> Stack:
    backend = request.param
    state = STATE_BACKENDS[backend](request, tmp_path)
    emulator = server_for(request, backend)
    return Stack(backend, state, f"file://{tmp_path / 'out'}", tmp_path, emulator)


@pytest.fixture
def rng(request: pytest.FixtureRequest) -> random.Random:
    """Seeded per test id, so a failure replays with the same choices."""
    return random.Random(SEED ^ zlib.crc32(request.node.nodeid.encode()))
