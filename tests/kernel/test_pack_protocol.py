"""The pack protocol (``packs/base.py``) and a store's optional members
(``state/optional.py``): a pack inheriting ``Pack`` with only the required members gets
every optional member's stated default; an object that is not a whole pack is refused
with one line naming what it lacks; the context carries the pack's own settings (loaded
once from the environment given) and the store only for a pack that declares it uses
one; the golden-table declaration names the document table and each table's role."""

from __future__ import annotations

import ast
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from unittest import mock

import pyarrow as pa
import pytest

from docfleet.core.errors import ConfigError
from docfleet.core.settings import load_settings
from docfleet.packs import _MEMBERS, load_pack
from docfleet.packs.base import DocumentPack, GoldenTables, Pack, PackContext, pack_context
from docfleet.state import open_state_store
from docfleet.state.optional import lost_races, work_waiter

WORKER = Path(__file__).resolve().parents[2] / "worker" / "docfleet"
SCHEMA = pa.schema([pa.field("document", pa.int64(), nullable=False)])


class BarePack(Pack):
    """Only what :class:`Pack` leaves abstract."""

    name = "bare"

    def tables(self, options: Mapping[str, Any]) -> GoldenTables:
        return GoldenTables({"docs": SCHEMA}, document="docs")

    def validate_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        return dict(options)

    def open(self, options: Mapping[str, Any], context: PackContext) -> Any:
        raise AssertionError("not opened here")


def test_a_pack_that_omits_the_optional_members_gets_the_declared_defaults() -> None:
    pack = BarePack()
    assert isinstance(pack, DocumentPack)
    context = pack_context(pack, "r1", load_settings())
    assert (pack.kind, pack.uses_store) == ("generate", False)
    assert pack.load_settings({}, {}) is None and context.pack_settings is None
    assert pack.preflight({}, context) is None
    assert pack.cost({}) is None and pack.describe() == {}
    assert pack.template_loader() is None


def test_every_installed_pack_is_a_whole_pack_with_its_own_members() -> None:
    catalogue, invoice, bench = load_pack("catalogue"), load_pack("invoice"), load_pack("bench")
    assert (catalogue.kind, catalogue.uses_store) == ("catalogue", True)
    assert (invoice.kind, invoice.uses_store) == ("generate", False)
    estimate = invoice.cost(invoice.validate_options({}))
    assert estimate is not None and estimate["pages"] > 0
    assert invoice.describe() and isinstance(invoice.describe(), dict)
    assert invoice.template_loader() is not None and bench.template_loader() is None
    for name in ("invoice", "receipt", "purchase_order", "bank_statement", "form", "bench"):
        assert isinstance(load_pack(name), DocumentPack), name


def test_an_object_that_is_not_a_whole_pack_is_refused_naming_what_it_lacks() -> None:
    class Half:
        name = "half"

        def tables(self, options: Mapping[str, Any]) -> dict:
            return {}

    entry = mock.Mock(value="somewhere:Half")
    entry.name = "half"
    entry.load.return_value = Half
    load_pack.cache_clear()
    try:
        with mock.patch("docfleet.packs.entry_points", return_value=[entry]), \
                pytest.raises(ConfigError) as err:
            load_pack("half")
    finally:
        load_pack.cache_clear()
    assert "pack 'half' (somewhere:Half) lacks kind, uses_store, validate_options" \
        in err.value.message
    assert "inherit docfleet.packs.base.Pack" in (err.value.hint or "")
    assert set(_MEMBERS) == {"name", "kind", "uses_store", "tables", "validate_options",
                             "load_settings", "preflight", "open", "cost", "describe",
                             "template_loader"}


def test_the_context_carries_the_pack_settings_and_the_store_only_when_declared(
    tmp_path: Path,
) -> None:
    store = open_state_store(f"sqlite:///{tmp_path / 'state.db'}")
    settings = load_settings()
    bench, catalogue = load_pack("bench"), load_pack("catalogue")
    context = pack_context(bench, "r1", settings, store=store,
                           environ={"DOCFLEET_BENCH_DOC_MS": "250",
                                    "DOCFLEET_BENCH_FAIL_INDEXES": "3,5"})
    assert context.store is None  # bench does not declare uses_store
    assert context.pack_settings.doc_seconds == 0.25
    assert context.pack_settings.fail_indexes == frozenset({3, 5})
    assert context.settings is settings and context.run_id == "r1"
    with pytest.raises(ConfigError, match="DOCFLEET_BENCH_DOC_MS='x' is not a number"):
        pack_context(bench, "r1", settings, environ={"DOCFLEET_BENCH_DOC_MS": "x"})
    context = pack_context(catalogue, "r1", settings, store=store, overrides={"retries": 5},
                           environ={"DOCFLEET_CATALOGUE_CONCURRENCY": "3"})
    assert context.store is store
    assert (context.pack_settings.concurrency, context.pack_settings.retries) == (3, 5)
    store.close()


def test_golden_tables_name_the_document_table_and_each_role() -> None:
    invoice = load_pack("invoice").tables(load_pack("invoice").validate_options({}))
    assert (invoice.document, invoice.key, invoice.split) == ("invoices", "document", "split")
    assert invoice.role("line_items") == "records" and invoice.table("pages") == "pages"
    assert invoice.boxed == ("fields", "words", "chars", "lines", "labels", "cells")
    before = load_pack("invoice").tables({"content": 2})  # ink truth came with content 3
    assert before.boxed == ("fields", "words", "lines", "labels", "cells")
    assert dict(invoice) == {name: invoice[name] for name in invoice}
    receipt = load_pack("receipt").tables({})
    assert (receipt.document, receipt.split, receipt.role("receipt_items")) == (
        "receipts", None, "records")
    catalogue = load_pack("catalogue").tables({})
    assert (catalogue.document, catalogue.key, catalogue.boxed) == ("entries", "item", ())
    with pytest.raises(ValueError, match="no table 'nope'"):
        GoldenTables({"docs": SCHEMA}, document="nope")
    with pytest.raises(ValueError, match="roles"):
        GoldenTables({"docs": SCHEMA, "x": SCHEMA}, document="docs", roles={"x": "boxes"})


def test_no_member_of_a_pack_is_looked_up_by_name() -> None:
    """No ``getattr(pack, ...)`` / ``hasattr(pack, ...)`` outside the registry's one check."""
    offenders = []
    for path in sorted(WORKER.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id in ("getattr", "hasattr") and node.args
                    and "pack" in ast.unparse(node.args[0]).lower()
                    and path != WORKER / "packs" / "__init__.py"):
                offenders.append(f"{path.relative_to(WORKER)}:{node.lineno}")
    assert offenders == []


def test_store_members_beyond_the_contract(tmp_path: Path) -> None:
    store = open_state_store(f"sqlite:///{tmp_path / 'state.db'}")
    assert lost_races(store) == 0
    waiter = work_waiter(store)
    assert waiter is not None and waiter("no-such-run", 0.01) is False
    store.close()
    assert lost_races(object()) is None and work_waiter(object()) is None
