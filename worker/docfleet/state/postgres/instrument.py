"""The PostgreSQL store's operation counting (:mod:`docfleet.state.opcount`): each
statement the store sends, through a counting wrapper of its connection."""

from __future__ import annotations

from typing import Any

from docfleet.state.opcount import OpCounts, count_sql


def instrument(store: Any, counts: OpCounts) -> None:
    """Count ``store``'s statements into ``counts`` (it wraps each connection it uses in
    :class:`Counted` from now on)."""
    store._opcounts = counts


class Counted:
    """A connection that counts each statement it runs."""

    def __init__(self, conn: Any, counts: OpCounts) -> None:
        self._conn = conn
        self._counts = counts

    def execute(self, query: Any, params: Any = None, **kw: Any) -> Any:
        count_sql(self._counts, "postgres", query if isinstance(query, str) else "")
        return self._conn.execute(query, params, **kw)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)
