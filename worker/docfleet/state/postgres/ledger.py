"""The PostgreSQL store's ledger half (:class:`~docfleet.state.base.LedgerStore`): the
spend rollup per (run, model) and a per-run ``ledger`` row (settled total and reserved
sum). A reservation locks that row, so concurrent reservations serialise, and is granted
by the shared rule (:func:`docfleet.state.budget.fits`); reservation expiries are judged by
the database's clock."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from docfleet.state import budget
from docfleet.state.base import TOTAL_SPEND_KEY, BudgetState
from docfleet.state.postgres.client import DB_NOW as _DB_NOW
from docfleet.state.postgres.client import PostgresClient


class PostgresLedger(PostgresClient):
    """Spend, quarantine and budget reservations in one PostgreSQL schema."""

    # -- spend and quarantine ---------------------------------------------------------
    @staticmethod
    def _lock_ledger(conn: Any, run_id: str) -> tuple[int, int]:
        conn.execute("INSERT INTO ledger (run_id) VALUES (%s) ON CONFLICT DO NOTHING", (run_id,))
        spent, reserved = conn.execute(
            "SELECT spent, reserved FROM ledger WHERE run_id = %s FOR UPDATE", (run_id,)
        ).fetchone()
        return int(spent), int(reserved)

    @staticmethod
    def _add_spend(conn: Any, run_id: str, spend: Mapping[str, int]) -> None:
        """Add ``spend`` per model and to the ledger's total (ledger row locked first)."""
        amounts = budget.settled(spend)
        conn.execute("UPDATE ledger SET spent = spent + %s WHERE run_id = %s",
                     (amounts.pop(TOTAL_SPEND_KEY), run_id))
        models = sorted(amounts)
        conn.execute(
            "INSERT INTO spend (run_id, model, nano) SELECT %s, m, n"
            " FROM unnest(%s::text[], %s::bigint[]) AS x(m, n)"
            " ON CONFLICT (run_id, model) DO UPDATE SET nano = spend.nano + excluded.nano",
            (run_id, models, [amounts[m] for m in models]),
        )

    def add_spend(self, run_id: str, model: str, nano_dollars: int) -> None:
        def body(conn: Any) -> None:
            self._lock_ledger(conn, run_id)
            self._add_spend(conn, run_id, {model: int(nano_dollars)})

        self._tx("add_spend", body)

    def total_spend(self, run_id: str) -> int:
        row = self._run("total_spend", lambda c: c.execute(
            "SELECT spent FROM ledger WHERE run_id = %s", (run_id,)).fetchone())
        return int(row[0]) if row else 0

    def spend_by_model(self, run_id: str) -> dict[str, int]:
        rows = self._run("spend_by_model", lambda c: c.execute(
            "SELECT model, nano FROM spend WHERE run_id = %s AND model <> %s",
            (run_id, TOTAL_SPEND_KEY)).fetchall())
        return {model: int(nano) for model, nano in rows}

    def quarantine_providers(self, run_id: str, providers: Iterable[str]) -> None:
        names = sorted(set(providers))
        if names:
            self._run("quarantine_providers", lambda c: c.execute(
                "INSERT INTO quarantine (run_id, provider) SELECT %s, p FROM unnest(%s::text[])"
                " AS x(p) ON CONFLICT DO NOTHING", (run_id, names)))

    def quarantined_providers(self, run_id: str) -> set[str]:
        rows = self._run("quarantined_providers", lambda c: c.execute(
            "SELECT provider FROM quarantine WHERE run_id = %s", (run_id,)).fetchall())
        return {r[0] for r in rows}

    # -- fleet budget -----------------------------------------------------------------
    def reserve_budget(
        self, run_id: str, reservation_id: str, nano: int, cap_nano: int, expires_at: float
    ) -> bool:
        """One transaction holding the run's ledger row: idempotent per id, and granted only
        if spent + reserved + ``nano`` <= ``cap_nano``."""

        def body(conn: Any) -> bool:
            spent, reserved = self._lock_ledger(conn, run_id)
            if conn.execute("SELECT 1 FROM reservations WHERE run_id = %s AND rid = %s",
                            (run_id, reservation_id)).fetchone():
                return True
            if not budget.fits(spent, reserved, nano, cap_nano):
                return False
            conn.execute("UPDATE ledger SET reserved = reserved + %s WHERE run_id = %s",
                         (int(nano), run_id))
            conn.execute(
                "INSERT INTO reservations (run_id, rid, nano, expires_at)"
                f" VALUES (%s, %s, %s, {_DB_NOW} + %s)",
                (run_id, reservation_id, int(nano), self._at(expires_at)))
            return True

        return self._tx("reserve_budget", body)

    def settle_reservation(
        self, run_id: str, reservation_id: str, spend: Mapping[str, int]
    ) -> bool:
        def body(conn: Any) -> bool:
            self._lock_ledger(conn, run_id)
            row = conn.execute("DELETE FROM reservations WHERE run_id = %s AND rid = %s"
                               " RETURNING nano", (run_id, reservation_id)).fetchone()
            if row is not None:
                conn.execute("UPDATE ledger SET reserved = reserved - %s WHERE run_id = %s",
                             (int(row[0]), run_id))
            self._add_spend(conn, run_id, spend)
            return row is not None

        return self._tx("settle_reservation", body)

    def release_expired_reservations(self, run_id: str, now: float) -> int:
        def body(conn: Any) -> int:
            self._lock_ledger(conn, run_id)
            held = [int(r[0]) for r in conn.execute(
                "DELETE FROM reservations WHERE run_id = %s"
                f" AND expires_at < {_DB_NOW} + %s RETURNING nano",
                (run_id, self._at(now))).fetchall()]
            if held:
                conn.execute("UPDATE ledger SET reserved = reserved - %s WHERE run_id = %s",
                             (sum(held), run_id))
            return len(held)

        return self._tx("release_expired_reservations", body)

    def budget_state(self, run_id: str) -> BudgetState:
        row = self._run("budget_state", lambda c: c.execute(
            "SELECT l.spent, l.reserved, (SELECT count(*) FROM reservations r"
            " WHERE r.run_id = l.run_id) FROM ledger l WHERE l.run_id = %s",
            (run_id,)).fetchone())
        return BudgetState(*(int(v) for v in row)) if row else BudgetState(0, 0, 0)
