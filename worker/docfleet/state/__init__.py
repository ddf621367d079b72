"""State stores, chosen by URI scheme through the one backend registry
(:mod:`docfleet.state.registry`): ``sqlite:///path`` (default), ``firestore://``,
``dynamodb://``, ``postgresql://``."""

from __future__ import annotations

from docfleet.core.uris import parse_uri
from docfleet.state.base import CoordinationStore, CreateResult, LedgerStore, StateStore
from docfleet.state.registry import backend, schemes

__all__ = ["CoordinationStore", "CreateResult", "LedgerStore", "StateStore", "open_state_store"]


def open_state_store(uri: str, *, create: bool = True) -> StateStore:
    """Open the state store named by ``uri``. Raises :class:`ConfigError` for a bad URI and
    :class:`MissingExtraError` when the backend's optional SDK is not installed.
    ``create=False`` (read-only commands) never creates anything: a local database that
    does not exist raises :class:`RunNotFoundError`."""
    parsed = parse_uri(uri, schemes(), "state store")
    return backend(parsed.scheme).open(parsed, create=create)
