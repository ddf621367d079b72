"""Deterministic seeding: every draw for document *i* of run *r* comes from sha256(r, i)."""

from __future__ import annotations

import hashlib
import random


def document_seed(run_id: str, index: int) -> int:
    """The 64-bit seed of one document; identical on every process and machine."""
    digest = hashlib.sha256(f"{run_id}\x00{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def document_rng(run_id: str, index: int) -> random.Random:
    """A private ``random.Random`` seeded for one document."""
    return random.Random(document_seed(run_id, index))
