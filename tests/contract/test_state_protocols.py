"""The state contract is two protocols (``docfleet.state.base``): coordination (runs and
units, the kernel's) and ledger (spend, quarantine, budget, the catalogue's). Together they
are :class:`StateStore`, which every backend implements; each side of the code types
against, and calls, only its own half."""

from __future__ import annotations

import ast
from pathlib import Path

from docfleet.state import CoordinationStore, LedgerStore, StateStore, open_state_store

ROOT = Path(__file__).resolve().parents[2] / "worker" / "docfleet"
LEDGER = {"add_spend", "total_spend", "spend_by_model", "quarantine_providers",
          "quarantined_providers", "reserve_budget", "settle_reservation",
          "release_expired_reservations", "budget_state"}
#: Kernel modules that work on runs and units only.
KERNEL = ["kernel/planner.py", "kernel/finalize.py", "ops/repair.py", "kernel/lease.py",
          "ops/fleet.py", "kernel/admission.py", "ops/launch.py", "ops/fleetview.py"]
CATALOGUE = ["catalogue/budget.py", "catalogue/complete.py"]


def _methods(protocol: type) -> set[str]:
    return {name for name in vars(protocol) if not name.startswith("_")
            and callable(getattr(protocol, name))}


def test_the_two_halves_split_the_contract_and_make_the_union() -> None:
    coordination, ledger = _methods(CoordinationStore), _methods(LedgerStore)
    assert ledger == LEDGER
    assert not coordination & ledger
    assert {"claim_next_unit", "reclaim_stale_units", "claim_finalizer", "list_runs",
            "delete_run", "close"} <= coordination
    union = {name for name in dir(StateStore) if not name.startswith("_")} - {"uri"}
    assert union == coordination | ledger
    assert "uri" in CoordinationStore.__annotations__ and "uri" in LedgerStore.__annotations__


def test_a_backend_is_a_state_store_and_each_half(tmp_path: Path) -> None:
    store = open_state_store(f"sqlite:///{tmp_path / 'state.db'}")
    try:
        assert isinstance(store, StateStore)
        assert isinstance(store, CoordinationStore) and isinstance(store, LedgerStore)
    finally:
        store.close()


def _calls_and_types(path: Path) -> tuple[set[str], set[str]]:
    tree = ast.parse(path.read_text(), str(path))
    attrs = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
                for a in n.names}
    return attrs, names | imported


def test_the_kernel_types_against_coordination_and_never_touches_the_ledger() -> None:
    for name in KERNEL:
        attrs, names = _calls_and_types(ROOT / name)
        assert not attrs & LEDGER, (name, attrs & LEDGER)
        assert "StateStore" not in names and "LedgerStore" not in names, name


def test_the_catalogue_types_against_the_ledger_only() -> None:
    coordination = _methods(CoordinationStore) - {"close"}
    for name in CATALOGUE:
        attrs, names = _calls_and_types(ROOT / name)
        assert "LedgerStore" in names, name
        assert "StateStore" not in names and "CoordinationStore" not in names, name
        assert not attrs & coordination, (name, attrs & coordination)
