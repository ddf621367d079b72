"""The SQLite store's operation counting (:mod:`docfleet.state.opcount`): every statement
a connection runs, through SQLite's trace callback."""

from __future__ import annotations

import sqlite3
from typing import Any

from docfleet.state.opcount import OpCounts, count_sql


def attach(conn: sqlite3.Connection, counts: OpCounts) -> None:
    """Count every statement ``conn`` runs: a write statement (INSERT/UPDATE/DELETE) is a
    write request, a SELECT a read request; transaction control is not counted."""
    conn.set_trace_callback(lambda sql: count_sql(counts, "sqlite", sql))


def instrument(store: Any, counts: OpCounts) -> None:
    """Count ``store``'s statements into ``counts``: its connections trace into it (the
    open one now, each new one as it opens)."""
    store._opcounts = counts
    conn = getattr(store._local, "conn", None)
    if conn is not None:
        attach(conn, counts)
