"""Pack registry: packs are found through the ``docfleet.packs`` entry-point group, so a
third party can ship one in its own distribution."""

from __future__ import annotations

from functools import cache
from importlib.metadata import entry_points

from docfleet.core.errors import ConfigError
from docfleet.packs.base import DocumentPack, Pack, PackSession, RenderedDocument

__all__ = ["DocumentPack", "Pack", "PackSession", "RenderedDocument", "available_packs",
           "load_pack"]

ENTRY_POINT_GROUP = "docfleet.packs"


def available_packs() -> list[str]:
    return sorted({ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)})


@cache
def load_pack(name: str) -> DocumentPack:
    """Instantiate the pack registered as ``name``; :class:`ConfigError` if none is, or if
    the object it names lacks a member of :class:`DocumentPack` (a pack inherits
    :class:`Pack`, which states the optional members' defaults)."""
    matches = [ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == name]
    if not matches:
        raise ConfigError(
            f"unknown pack '{name}'", f"installed packs: {', '.join(available_packs()) or 'none'}"
        )
    pack = matches[0].load()()
    if not isinstance(pack, DocumentPack):
        missing = [m for m in _MEMBERS if not hasattr(pack, m)]
        raise ConfigError(f"pack '{name}' ({matches[0].value}) lacks {', '.join(missing)}",
                          "inherit docfleet.packs.base.Pack, which states every optional "
                          "member's default (docs/packs.md)")
    return pack


#: every member of the pack protocol, for the error that names what a pack lacks
_MEMBERS = (*DocumentPack.__annotations__,
            *(n for n, v in vars(DocumentPack).items() if callable(v) and n[0] != "_"))
