"""What a test needs from the machine. Under CI=true a missing part (emulator, browser,
tool) fails the test with a message naming it; on a developer machine it skips."""

from __future__ import annotations

import os

import pytest

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def require(condition: bool, what: str) -> None:
    """Fail under CI=true when ``what`` is missing; skip elsewhere."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"{what} is missing: CI must install and start it (see scripts/setup-dev)")
    pytest.skip(f"{what} is not available on this machine")
