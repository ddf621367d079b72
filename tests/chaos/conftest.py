"""Chaos fixtures: one *stack* per state backend of ``tests/backends.py`` (SQLite, and the
Firestore and DynamoDB emulators), outputs on ``file://``, and a seeded RNG per test."""

from __future__ import annotations

import os
import random
import zlib
from pathlib import Path

import pytest
from chaoslib import Stack

from backends import STATE_BACKENDS

#: Seed of every chaos test's RNG (env ``CHAOS_SEED``).
SEED = int(os.environ.get("CHAOS_SEED", "9"))
EMULATOR_FIXTURE = {"firestore": "firestore_emulator", "dynamodb": "moto_emulator"}


@pytest.fixture(params=sorted(STATE_BACKENDS))
def stack(request: pytest.FixtureRequest, tmp_path: Path) -> Stack:
    backend = request.param
    state = STATE_BACKENDS[backend](request, tmp_path)
    emulator = (request.getfixturevalue(EMULATOR_FIXTURE[backend])
                if backend in EMULATOR_FIXTURE else None)
    return Stack(backend, state, f"file://{tmp_path / 'out'}", tmp_path, emulator)


@pytest.fixture
def rng(request: pytest.FixtureRequest) -> random.Random:
    """Seeded per test id, so a failure replays with the same choices."""
    return random.Random(SEED ^ zlib.crc32(request.node.nodeid.encode()))
