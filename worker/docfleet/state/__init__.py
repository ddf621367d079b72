"""State stores, chosen by URI scheme through the one backend registry
(:mod:`docfleet.core.backends`): ``sqlite:///path`` (default), ``firestore://``,
``dynamodb://``, ``postgresql://``, one folder each (``state/<backend>/``: store, ledger,
``store init``, instrumentation). Shared by every backend: the contract
(:mod:`.base`, :mod:`.optional`), the transition rules (:mod:`.rules`), the ledger rules
(:mod:`.budget`), record codecs (:mod:`.codecs`), the retry path (:mod:`.calls`), the
write ramp (:mod:`.ramp`) and operation counting (:mod:`.opcount`)."""

from __future__ import annotations

from docfleet.core.backends import backend, schemes
from docfleet.core.uris import parse_uri
from docfleet.state.base import CoordinationStore, CreateResult, LedgerStore, StateStore

__all__ = ["CoordinationStore", "CreateResult", "LedgerStore", "StateStore", "open_state_store"]


def open_state_store(uri: str, *, create: bool = True) -> StateStore:
    """Open the state store named by ``uri``. Raises :class:`ConfigError` for a bad URI and
    :class:`MissingExtraError` when the backend's optional SDK is not installed.
    ``create=False`` (read-only commands) never creates anything: a local database that
    does not exist raises :class:`RunNotFoundError`."""
    parsed = parse_uri(uri, schemes(), "state store")
    return backend(parsed.scheme).open(parsed, create=create)
