"""The worker's time source. All lease arithmetic goes through :func:`now` so that a fault
point (``DOCFLEET_FAULT_CLOCK_SKEW_SECONDS``) can shift one worker's clock in tests."""

from __future__ import annotations

import os
import time

_SKEW = float(os.environ.get("DOCFLEET_FAULT_CLOCK_SKEW_SECONDS", "0") or 0)


def now() -> float:
    """Seconds since the epoch, as this worker sees them."""
    return time.time() + _SKEW
