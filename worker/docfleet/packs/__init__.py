"""Pack registry: packs are found through the ``docfleet.packs`` entry-point group, so a
third party can ship one in its own distribution."""

from __future__ import annotations

from functools import cache
from importlib.metadata import entry_points

from docfleet.core.errors import ConfigError
from docfleet.packs.base import DocumentPack, PackSession, RenderedDocument

__all__ = ["DocumentPack", "PackSession", "RenderedDocument", "available_packs", "load_pack"]

ENTRY_POINT_GROUP = "docfleet.packs"


def available_packs() -> list[str]:
    return sorted({ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)})


@cache
def load_pack(name: str) -> DocumentPack:
    """Instantiate the pack registered as ``name``; :class:`ConfigError` if none is."""
    matches = [ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == name]
    if not matches:
        raise ConfigError(
            f"unknown pack '{name}'", f"installed packs: {', '.join(available_packs()) or 'none'}"
        )
    return matches[0].load()()
