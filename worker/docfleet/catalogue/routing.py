"""Provider routing: weighted rendezvous hashing over litellm model strings. The same item
goes to the same model (reproducible); removing a quarantined model moves only its own
items, to the next model by the same hash. A fallback pool is tried after the primary."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable, Mapping


def _unit_hash(key: str, model: str) -> float:
    digest = hashlib.sha256(f"{key}\x00{model}".encode()).digest()
    return (int.from_bytes(digest[:8], "big") + 1) / (2**64 + 2)  # in (0, 1)


def rendezvous(key: str, weights: Mapping[str, float]) -> list[str]:
    """Models ordered by weighted rendezvous score for ``key`` (best first)."""
    return sorted(weights, key=lambda m: (-weights[m] / -math.log(_unit_hash(key, m)), m))


class Router:
    """Pure, deterministic routing; holds no state but the model lists."""

    def __init__(self, primary: Mapping[str, float], fallback: Iterable[str] = ()) -> None:
        self.primary = dict(primary)
        self.fallback = [m for m in dict.fromkeys(fallback) if m not in self.primary]

    @property
    def models(self) -> list[str]:
        return [*self.primary, *self.fallback]

    def candidates(self, key: str, excluded: Iterable[str] = ()) -> list[str]:
        """The models to try for ``key``, in order: the best primary not ``excluded``, then
        the fallback pool, then the other primaries. Empty if every model is excluded."""
        skip = set(excluded)
        primaries = [m for m in rendezvous(key, self.primary) if m not in skip]
        fallbacks = [m for m in rendezvous(key, dict.fromkeys(self.fallback, 1.0))
                     if m not in skip]
        return primaries[:1] + fallbacks + primaries[1:]
