"""Durations read from text: an environment variable (:func:`env_seconds`), a URI
parameter (:func:`uri_seconds`, e.g. a store's ``?retry_seconds=``), each checked into range
with one clear error. Plain functions with no settings model, so a store, a pack and the
retry policy read theirs without importing :mod:`docfleet.core.settings` (pydantic)."""

from __future__ import annotations

import math
import os

from docfleet.core.errors import ConfigError

#: The longest duration a setting takes, in seconds.
DAY = 86_400.0


def parse_seconds(raw: str, name: str, *, minimum: float = 0.0, maximum: float = DAY,
                  hint: str | None = None, what: str = "a number of seconds") -> float:
    """``raw`` as a number of seconds within [``minimum``, ``maximum``]; ``name`` is what
    set it (a variable or URI parameter). Raises :class:`ConfigError` for a value that is
    not a finite number in range: never a silent fallback."""
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or not minimum <= value <= maximum:
        raise ConfigError(f"{name}={raw!r} is not {what} in [{minimum:g}, {maximum:g}]",
                          hint or f"set {name} to a finite number in that range")
    return value


def env_seconds(var: str, default: float, *, minimum: float = 0.0,
                maximum: float = DAY, what: str = "a number of seconds") -> float:
    """A duration from environment variable ``var`` (``default`` if unset or empty), checked
    as :func:`parse_seconds` does."""
    raw = os.environ.get(var, "").strip()
    if not raw:
        return default
    return parse_seconds(raw, var, minimum=minimum, maximum=maximum, what=what,
                         hint=f"set {var} to a finite number in that range, or unset it "
                              f"(default {default:g})")


def uri_seconds(query: dict[str, str], key: str, uri: str) -> float | None:
    """The URI parameter ``?key=SECONDS`` of ``uri`` (``None`` if absent), checked as
    :func:`parse_seconds` does."""
    raw = query.get(key)
    if not raw:
        return None
    return parse_seconds(raw, f"?{key}", hint=f"fix ?{key}= in {uri!r}")
