"""The SQLite store's ledger half (:class:`~docfleet.state.base.LedgerStore`): the spend
rollup per (run, model) with its ``__total__`` row, the quarantine set and budget
reservations, each change one ``BEGIN IMMEDIATE`` transaction; a reservation is granted by
the shared rule (:func:`docfleet.state.budget.fits`) inside it."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping

from docfleet.state import budget
from docfleet.state.base import TOTAL_SPEND_KEY, BudgetState
from docfleet.state.sqlite.client import SQLiteClient


class SQLiteLedger(SQLiteClient):
    """Spend, quarantine and budget reservations in one SQLite file."""

    # -- spend and quarantine ---------------------------------------------------------
    def add_spend(self, run_id: str, model: str, nano_dollars: int) -> None:
        def tx(conn: sqlite3.Connection) -> None:
            conn.executemany(
                "INSERT INTO spend (run_id, model, nano) VALUES (?, ?, ?)"
                " ON CONFLICT (run_id, model) DO UPDATE SET nano = nano + excluded.nano",
                [(run_id, model, int(nano_dollars)), (run_id, TOTAL_SPEND_KEY, int(nano_dollars))],
            )

        self._write(tx)

    def total_spend(self, run_id: str) -> int:
        row = self._read(lambda c: c.execute(
            "SELECT nano FROM spend WHERE run_id = ? AND model = ?", (run_id, TOTAL_SPEND_KEY)
        ).fetchone())
        return int(row["nano"]) if row else 0

    def spend_by_model(self, run_id: str) -> dict[str, int]:
        rows = self._read(lambda c: c.execute(
            "SELECT model, nano FROM spend WHERE run_id = ? AND model != ?",
            (run_id, TOTAL_SPEND_KEY),
        ).fetchall())
        return {r["model"]: int(r["nano"]) for r in rows}

    def quarantine_providers(self, run_id: str, providers: Iterable[str]) -> None:
        rows = [(run_id, p) for p in providers]
        self._write(lambda c: c.executemany(
            "INSERT OR IGNORE INTO quarantine (run_id, provider) VALUES (?, ?)", rows
        ))

    def quarantined_providers(self, run_id: str) -> set[str]:
        rows = self._read(lambda c: c.execute(
            "SELECT provider FROM quarantine WHERE run_id = ?", (run_id,)
        ).fetchall())
        return {r["provider"] for r in rows}

    # -- fleet budget -----------------------------------------------------------------
    def reserve_budget(
        self, run_id: str, reservation_id: str, nano: int, cap_nano: int, expires_at: float
    ) -> bool:
        """One ``BEGIN IMMEDIATE`` transaction: read spent + reserved, insert if it fits."""

        def tx(conn: sqlite3.Connection) -> bool:
            if conn.execute(
                "SELECT 1 FROM reservations WHERE run_id = ? AND rid = ?",
                (run_id, reservation_id),
            ).fetchone():
                return True
            spent = conn.execute(
                "SELECT COALESCE(SUM(nano), 0) FROM spend WHERE run_id = ? AND model = ?",
                (run_id, TOTAL_SPEND_KEY),
            ).fetchone()[0]
            reserved = conn.execute(
                "SELECT COALESCE(SUM(nano), 0) FROM reservations WHERE run_id = ?", (run_id,)
            ).fetchone()[0]
            if not budget.fits(spent, reserved, nano, cap_nano):
                return False
            conn.execute(
                "INSERT INTO reservations (run_id, rid, nano, expires_at) VALUES (?, ?, ?, ?)",
                (run_id, reservation_id, int(nano), expires_at),
            )
            return True

        return self._write(tx)

    def settle_reservation(
        self, run_id: str, reservation_id: str, spend: Mapping[str, int]
    ) -> bool:
        rows = [(run_id, m, n) for m, n in budget.settled(spend).items()]

        def tx(conn: sqlite3.Connection) -> bool:
            held = conn.execute(
                "DELETE FROM reservations WHERE run_id = ? AND rid = ?", (run_id, reservation_id)
            ).rowcount == 1
            conn.executemany(
                "INSERT INTO spend (run_id, model, nano) VALUES (?, ?, ?)"
                " ON CONFLICT (run_id, model) DO UPDATE SET nano = nano + excluded.nano",
                rows,
            )
            return held

        return self._write(tx)

    def release_expired_reservations(self, run_id: str, now: float) -> int:
        return self._write(lambda c: c.execute(
            "DELETE FROM reservations WHERE run_id = ? AND expires_at < ?", (run_id, now)
        ).rowcount)

    def budget_state(self, run_id: str) -> BudgetState:
        def read(conn: sqlite3.Connection) -> BudgetState:
            spent = conn.execute(
                "SELECT COALESCE(SUM(nano), 0) FROM spend WHERE run_id = ? AND model = ?",
                (run_id, TOTAL_SPEND_KEY),
            ).fetchone()[0]
            row = conn.execute(
                "SELECT COALESCE(SUM(nano), 0), COUNT(*) FROM reservations WHERE run_id = ?",
                (run_id,),
            ).fetchone()
            return BudgetState(int(spent), int(row[0]), int(row[1]))

        return self._read(read)

