"""Deterministic train/validation/test splits, part of a run's parameters.

A document's split is a pure function of the run's split parameters and of one *group
key* of the document, so it is the same in every process and every worker, and every
document of one group lands in the same split:

- ``document``: each document is its own group (the document index);
- ``seller``: the seller's name (case-folded): no seller appears in two splits;
- ``template``: the archetype (the template a document is printed with): no template
  appears in two splits. Templates are few, so they are dealt to the splits as whole
  groups in proportion to their share of the run (see :func:`assign_groups`).

Ratios are normalised weights (``train:8,validation:1,test:1`` = 80/10/10 %).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from docfleet.core.errors import ConfigError

SPLITS = ("train", "validation", "test")
SPLIT_BY = ("document", "seller", "template")
DEFAULT_SPLITS = {"train": 0.8, "validation": 0.1, "test": 0.1}


def parse_splits(raw: Any) -> dict[str, float]:
    """``train:0.8,validation:0.1,test:0.1`` | a mapping → normalised ratios in
    :data:`SPLITS` order (zero-weight splits dropped). Raises :class:`ConfigError`."""
    example = "e.g. --option splits=train:0.8,validation:0.1,test:0.1"
    if raw is None or raw == "":
        return dict(DEFAULT_SPLITS)
    pairs: list[tuple[str, Any]]
    if isinstance(raw, Mapping):
        pairs = list(raw.items())
    elif isinstance(raw, str):
        pairs = []
        for item in (x.strip() for x in raw.split(",")):
            if item:
                key, sep, weight = item.partition(":")
                if not sep:
                    raise ConfigError(f"option splits: {item!r} has no ratio", example)
                pairs.append((key.strip(), weight.strip()))
    else:
        raise ConfigError(f"option splits={raw!r} is not a list of name:ratio", example)
    weights: dict[str, float] = {}
    for key, weight in pairs:
        if key not in SPLITS:
            raise ConfigError(f"option splits: unknown split {key!r}",
                              f"choose from {', '.join(SPLITS)}")
        try:
            value = float(weight)
        except (TypeError, ValueError):
            raise ConfigError(f"option splits: ratio {weight!r} of {key} is not a number",
                              example) from None
        if not 0 <= value < float("inf"):
            raise ConfigError(f"option splits: ratio of {key} must be a finite number >= 0",
                              example)
        weights[key] = weights.get(key, 0.0) + value
    total = sum(weights.values())
    if total <= 0:
        raise ConfigError("option splits gives every split a ratio of 0", example)
    return {k: round(weights[k] / total, 6) for k in SPLITS if weights.get(k)}


def parse_split_by(raw: Any) -> str:
    value = str(raw or "document").strip().lower()
    if value not in SPLIT_BY:
        raise ConfigError(f"option split_by={raw!r} is not supported",
                          f"use one of {', '.join(SPLIT_BY)}")
    return value


def _unit(salt: str, key: str) -> float:
    digest = hashlib.sha256(f"docfleet-split\0{salt}\0{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def split_of(key: str, ratios: Mapping[str, float], salt: str = "") -> str:
    """The split of group ``key``: a hash of (salt, key) in [0, 1) against the
    cumulative ratios. Deterministic; groups spread in proportion to the ratios."""
    u = _unit(salt, key)
    acc = 0.0
    names = list(ratios)
    for name in names:
        acc += ratios[name]
        if u < acc:
            return name
    return names[-1]


def assign_groups(groups: Mapping[str, float], ratios: Mapping[str, float], salt: str = ""
                  ) -> dict[str, str]:
    """Deal a small, known set of groups (weight = their expected share of documents) to
    splits as wholes: groups in hash order, each to the split furthest below its target
    share. Every split with a ratio gets a group while there are groups left for it."""
    order = sorted(groups, key=lambda g: _unit(salt, g))
    names = list(ratios)
    total = sum(groups.values()) or 1.0
    got = dict.fromkeys(names, 0.0)
    out: dict[str, str] = {}
    empty = list(names)
    for k, group in enumerate(order):
        remaining = len(order) - k
        if empty and remaining <= len(empty):  # keep one group for each empty split
            name = empty[0]
        else:
            name = max(names, key=lambda n: (ratios[n] - got[n] / total, -names.index(n)))
        out[group] = name
        got[name] += groups[group]
        if name in empty:
            empty.remove(name)
    return out
