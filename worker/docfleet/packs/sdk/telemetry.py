"""Spans for a pack's own steps: ``@traced(name, attributes)`` wraps a function in a span
of the task's trace (no-op when tracing is off). The telemetry layer owns it
(:mod:`docfleet.telemetry`); a pack reaches it through here."""

from __future__ import annotations

from docfleet.telemetry import traced

__all__ = ["traced"]
