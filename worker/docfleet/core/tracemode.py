"""The ``--trace`` / ``DOCFLEET_TRACE`` syntax: which exporter a mode names. Here, below
telemetry, so that settings check a mode without importing telemetry; telemetry's
exporter setup (:mod:`docfleet.telemetry.exporters`) reads the same function."""

from __future__ import annotations

import os
from collections.abc import Mapping

TRACE_MODES = ("none", "otlp", "console", "gcp", "file:PATH")


def resolve_mode(flag: str | None, env: Mapping[str, str] | None = None) -> str:
    """The exporter to use: ``flag`` (``--trace`` / ``DOCFLEET_TRACE``), else
    ``OTEL_TRACES_EXPORTER``, else ``none``. Raises ``ValueError`` for an unknown mode."""
    env = os.environ if env is None else env
    if env.get("OTEL_SDK_DISABLED", "").lower() == "true":
        return "none"
    mode = (flag or env.get("OTEL_TRACES_EXPORTER") or "none").strip()
    mode = mode.split(",")[0].strip()
    if mode.lower() in ("none", "otlp", "console", "gcp"):
        return mode.lower()
    if mode.startswith("file:") and len(mode) > 5:
        return mode
    raise ValueError(f"unknown trace mode {mode!r} (one of {', '.join(TRACE_MODES)})")
