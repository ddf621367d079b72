"""``docfleet store init sqlite:///…``: create the database file and its schema."""

from __future__ import annotations

from docfleet.core.findings import Finding
from docfleet.core.uris import ParsedURI
from docfleet.state.sqlite.store import open_sqlite_store


def init_store(parsed: ParsedURI) -> list[Finding]:
    """Create the file (and its folders) and its schema; idempotent."""
    store = open_sqlite_store(parsed)
    uri = store.uri
    store.close()
    return [Finding(True, f"{uri}: database file and schema ready")]
