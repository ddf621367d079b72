"""The optional members of a pack and of a state store are declared with their defaults
(``packs/base.py``, ``state/optional.py``); a pack or store that omits one gets the
declared default, one that has it gets its own."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from docfleet.packs import load_pack
from docfleet.packs.base import (
    PackDefaults,
    cost,
    describe,
    preflight,
    run_kind,
    uses_context,
)
from docfleet.state import open_state_store
from docfleet.state.optional import lost_races, work_waiter


class BarePack:
    """Only what :class:`DocumentPack` requires."""

    name = "bare"

    def tables(self, options: Mapping[str, Any]) -> dict:
        return {}

    def validate_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        return dict(options)

    def open(self, options: Mapping[str, Any]) -> Any:
        raise AssertionError("not opened here")


def test_a_pack_that_omits_the_optional_members_gets_the_declared_defaults() -> None:
    pack = BarePack()
    assert run_kind(pack) == PackDefaults.kind == "generate"
    assert uses_context(pack) is PackDefaults.uses_context is False
    assert preflight(pack, {}) is None
    assert cost(pack, {}) is None
    assert describe(pack) == {}


def test_a_pack_that_has_them_gets_its_own() -> None:
    catalogue, invoice = load_pack("catalogue"), load_pack("invoice")
    assert (run_kind(catalogue), uses_context(catalogue)) == ("catalogue", True)
    assert (run_kind(invoice), uses_context(invoice)) == ("generate", False)
    estimate = cost(invoice, invoice.validate_options({}))
    assert estimate is not None and estimate["pages"] > 0
    assert describe(invoice) and isinstance(describe(invoice), dict)


def test_store_members_beyond_the_contract(tmp_path: Path) -> None:
    store = open_state_store(f"sqlite:///{tmp_path / 'state.db'}")
    assert lost_races(store) == 0
    waiter = work_waiter(store)
    assert waiter is not None and waiter("no-such-run", 0.01) is False
    store.close()
    assert lost_races(object()) is None and work_waiter(object()) is None
