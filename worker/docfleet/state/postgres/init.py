"""``docfleet store init postgresql://…``: create or migrate the schema (what any opening
does; :mod:`.schema`) and say which version it holds."""

from __future__ import annotations

from docfleet.core.findings import Finding
from docfleet.core.uris import ParsedURI
from docfleet.state.postgres.store import open_postgres_store


def init_store(parsed: ParsedURI) -> list[Finding]:
    """Open the store, which creates or migrates its schema; idempotent."""
    store = open_postgres_store(parsed)
    try:
        version = store.schema_version()
    finally:
        store.close()
    return [Finding(True, f"{store.uri}: reachable, schema version {version}")]
