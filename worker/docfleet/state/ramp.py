"""A store's write ramp: how fast traffic to a new collection may grow (Firestore's
"500/50/5" rule), and the ``?ramp=`` syntax that overrides it. A property of a store, read
by the kernel through :func:`docfleet.state.optional.write_ramp`, so it lives here, below
the kernel (``kernel/pacing.py`` spaces a fleet's claims under it). Pure: no I/O."""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class WriteRamp:
    """A store's documented ramp for traffic to a new collection: ``start`` operations per
    second at first, times ``growth`` every ``step_seconds`` (Firestore's "500/50/5":
    500 ops/s, +50% every 5 minutes)."""

    start: float
    growth: float = 1.5
    step_seconds: float = 300.0

    def rate(self, elapsed: float) -> float:
        """Operations per second allowed ``elapsed`` seconds after the traffic began (a
        step function: ``start`` before it began or in its first step)."""
        steps = math.floor(max(elapsed, 0.0) / self.step_seconds)
        return self.start * self.growth ** min(steps, 200)  # 1.5**200: no limit left

    def budget(self, elapsed: float) -> float:
        """Operations the ramp allows from its start until ``elapsed`` (its integral)."""
        elapsed, total, k = max(elapsed, 0.0), 0.0, 0
        while elapsed > self.step_seconds and k < 200:
            total += self.rate(k * self.step_seconds) * self.step_seconds
            elapsed -= self.step_seconds
            k += 1
        return total + self.rate(k * self.step_seconds) * elapsed

    def elapsed_at(self, budget: float) -> float:
        """The inverse of :meth:`budget`: seconds from the start until ``budget``
        operations are allowed."""
        budget, elapsed, k = max(budget, 0.0), 0.0, 0
        while k < 200 and budget > (step := self.rate(k * self.step_seconds)
                                    * self.step_seconds):
            budget -= step
            elapsed += self.step_seconds
            k += 1
        return elapsed + budget / self.rate(k * self.step_seconds)

    def seconds_to(self, rate: float) -> float:
        """Seconds from the traffic's start until the ramp allows ``rate`` ops/s (0 if it
        does from the start)."""
        if rate <= self.start or self.growth <= 1.0:
            return 0.0 if rate <= self.start else math.inf
        return self.step_seconds * math.ceil(math.log(rate / self.start, self.growth))

    def __str__(self) -> str:
        return f"{self.start:g},{self.growth:g},{self.step_seconds:g}"


def parse_ramp(text: str | None, default: WriteRamp | None) -> WriteRamp | None:
    """The ramp an option names: ``None``/empty -> ``default``; ``off`` -> no ramp;
    ``START`` or ``START,GROWTH,STEP_SECONDS`` (e.g. ``500,1.5,300``), other members from
    ``default`` (or Firestore's 1.5 and 300 s). Raises :class:`ValueError` naming what is
    wrong."""
    if text is None or not text.strip():
        return default
    if text.strip().lower() == "off":
        return None
    parts = [p.strip() for p in text.split(",")]
    base = default or WriteRamp(1.0)
    try:
        numbers = [float(p) for p in parts]
    except ValueError:
        raise ValueError(f"ramp {text!r} is not 'off' or numbers") from None
    if len(numbers) not in (1, 3):
        raise ValueError(f"ramp {text!r} has {len(numbers)} values (want START or "
                         "START,GROWTH,STEP_SECONDS)")
    start = numbers[0]
    growth, step = (numbers[1], numbers[2]) if len(numbers) == 3 else (base.growth,
                                                                       base.step_seconds)
    if not all(math.isfinite(x) for x in (start, growth, step)) or start <= 0 \
            or growth < 1.0 or step <= 0:
        raise ValueError(f"ramp {text!r}: START and STEP_SECONDS must be > 0 and GROWTH >= 1")
    return WriteRamp(start, growth, step)
