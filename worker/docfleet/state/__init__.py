"""State stores, chosen by URI scheme: ``sqlite:///path`` (default), ``firestore://``,
``dynamodb://``."""

from __future__ import annotations

from docfleet.errors import ConfigError
from docfleet.state.base import CreateResult, StateStore
from docfleet.uris import STATE_SCHEMES, parse_uri

__all__ = ["CreateResult", "StateStore", "open_state_store"]


def open_state_store(uri: str, *, create: bool = True) -> StateStore:
    """Open the state store named by ``uri``. Raises :class:`ConfigError` for a bad URI and
    :class:`MissingExtraError` when the backend's optional SDK is not installed.
    ``create=False`` (read-only commands) never creates a local database file."""
    parsed = parse_uri(uri, STATE_SCHEMES, "state store")
    if parsed.scheme == "sqlite":
        from docfleet.state.sqlite import SQLiteStateStore

        # SQLAlchemy's convention: sqlite:///relative/path, sqlite:////absolute/path
        if parsed.netloc:
            raise ConfigError(
                f"state URI {uri!r} has a host part ({parsed.netloc!r}); SQLite is a local file",
                "use sqlite:///relative/state.db or sqlite:////absolute/state.db",
            )
        path = parsed.path[1:]
        if not path or path.endswith("/"):
            raise ConfigError(
                f"state URI {uri!r} names no database file",
                "use sqlite:///relative/state.db or sqlite:////absolute/state.db",
            )
        return SQLiteStateStore(path, create=create)
    if parsed.scheme == "firestore":
        from docfleet.state.firestore import open_firestore_store

        return open_firestore_store(parsed)
    from docfleet.state.dynamodb import open_dynamodb_store

    return open_dynamodb_store(parsed)
