"""The backend registry: the one list of state-store backends. Everything that depends on
which backends exist reads it: URI parsing and settings validation (:func:`schemes`),
:func:`docfleet.state.open_state_store`, telemetry's ``db.system.name``, ``store init``,
operation counting (:mod:`docfleet.state.opcount`), the tests' contract and chaos suites
and the benches (through :attr:`StateBackend.test_server`).

It is data, in core because the layers below the stores read it too (URIs, settings,
telemetry): each entry names its backend's hooks as ``"module:function"`` strings in the
backend's folder ``docfleet/state/<backend>/`` (opener, ``store init``, instrumentation),
imported only when called, so core imports no backend and a backend's module (and its
SDK) is imported only when a URI of its scheme is used.

Adding a backend is one folder (``state/<backend>/``: its store, ledger, init and
instrumentation, taking its transition rules from :mod:`docfleet.state.rules`, its budget
rule from :mod:`docfleet.state.budget`, its record codecs from :mod:`docfleet.state.codecs`,
its retry path from :mod:`docfleet.state.calls` and its cloud clients from
:mod:`docfleet.cloud`), one :class:`StateBackend` entry below, and its test-server hook in
``tests/support/emulator_fixtures.py`` / ``tests/support/emulators.py``.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from docfleet.core.errors import ConfigError


@dataclass(frozen=True)
class StateBackend:
    """One state-store backend.

    ``opener`` is ``"module:function"``, the function taking a :class:`ParsedURI` (and
    ``create``: false for read-only commands) and
    returning a :class:`StateStore` (it raises :class:`ConfigError` for a bad URI and
    :class:`MissingExtraError` naming ``extra`` when the SDK is missing). ``db_system`` is
    the OpenTelemetry ``db.system.name``. ``test_server`` names the pytest session fixture
    of ``tests/support/emulator_fixtures.py`` that serves the backend in tests (``None``:
    nothing to start).
    ``op_prices`` is the published list price in USD of one read and one write operation
    (``bench/scale.py`` prices a run with it; 0 for a store billed by the machine).
    ``init`` is the ``"module:function"`` that ``docfleet store init`` runs on a parsed URI,
    returning :class:`~docfleet.core.findings.Finding` lines; ``instrument`` the
    ``"module:function"`` that makes an open store count its operations into a
    :class:`~docfleet.state.opcount.OpCounts` (``bench/scale.py``, the scale tests).
    ``write_ramp`` is the store's documented ramp for a new collection's writes, as
    ``(start ops/s, growth, step seconds)`` (``None``: no ramp), and ``unit_writes`` the
    writes one unit costs it (claim and completion, measured by ``bench/scale.py``); the
    kernel spaces a fleet's claims by them (``pacing.ClaimGovernor``, read through
    ``state.optional.write_ramp``). ``renew_units`` is the (read, write) units one lease
    renewal costs, in ``state.opcount``'s billing terms (``bench/scale.py``'s model adds
    them for units longer than a heartbeat; its cells' one-document units renew none).
    """

    scheme: str
    opener: str
    db_system: str
    extra: str | None
    test_server: str | None
    example: str
    init: str
    instrument: str
    op_prices: tuple[float, float] = (0.0, 0.0)
    write_ramp: tuple[float, float, float] | None = None
    unit_writes: float = 0.0
    renew_units: tuple[float, float] = (0.0, 1.0)  # one conditional UPDATE / UpdateItem

    def hook(self, name: str) -> Any:
        """The function one of ``opener``, ``init``, ``instrument`` names, its module
        imported now (the backend's SDK with it: :class:`MissingExtraError` without it)."""
        module, _, function = getattr(self, name).partition(":")
        return getattr(importlib.import_module(module), function)

    def open(self, parsed: Any, *, create: bool = True) -> Any:
        """Open the store ``parsed`` (a :class:`~docfleet.core.uris.ParsedURI`) names, a
        :class:`~docfleet.state.base.StateStore`; ``create=False`` (read-only commands)
        must not create anything."""
        return self.hook("opener")(parsed, create=create)


BACKENDS: tuple[StateBackend, ...] = (
    StateBackend("sqlite", db_system="sqlite", extra=None, test_server=None,
                 example="sqlite:///.docfleet/state.db",
                 opener="docfleet.state.sqlite.store:open_sqlite_store",
                 init="docfleet.state.sqlite.init:init_store",
                 instrument="docfleet.state.sqlite.instrument:instrument"),
    StateBackend("firestore", db_system="gcp.firestore", extra="gcp",
                 test_server="firestore_emulator", example="firestore://PROJECT?prefix=P",
                 opener="docfleet.state.firestore.store:open_firestore_store",
                 init="docfleet.state.firestore.init:init_store",
                 instrument="docfleet.state.firestore.instrument:instrument",
                 # nam5: $0.06 per 100,000 document reads, $0.18 per 100,000 writes
                 op_prices=(0.06 / 1e5, 0.18 / 1e5),
                 # "500/50/5": a new collection starts at 500 ops/s, +50% every 5 minutes;
                 # a unit is 4 writes (claim, completion: unit document + counter shard)
                 write_ramp=(500.0, 1.5, 300.0), unit_writes=4.0,
                 renew_units=(1.0, 1.0)),  # compare-and-set: read, then a fenced update
    StateBackend("dynamodb", db_system="aws.dynamodb", extra="aws",
                 test_server="moto_emulator", example="dynamodb://TABLE?region=R",
                 opener="docfleet.state.dynamodb.store:open_dynamodb_store",
                 init="docfleet.state.dynamodb.init:init_store",
                 instrument="docfleet.state.dynamodb.instrument:instrument",
                 # on-demand, us-east-1: $0.125 per million reads, $0.625 per million writes
                 op_prices=(0.125 / 1e6, 0.625 / 1e6)),
    StateBackend("postgresql", db_system="postgresql", extra="postgres",
                 test_server="postgres_server",
                 example="postgresql://USER@HOST:5432/DB?schema=S",
                 opener="docfleet.state.postgres.store:open_postgres_store",
                 init="docfleet.state.postgres.init:init_store",
                 instrument="docfleet.state.postgres.instrument:instrument"),
)

_BY_SCHEME = {b.scheme: b for b in BACKENDS}


def schemes() -> tuple[str, ...]:
    """Every state URI scheme, in registry order."""
    return tuple(_BY_SCHEME)


def backend(scheme: str) -> StateBackend:
    """The backend of ``scheme``. Raises :class:`ConfigError` naming the schemes that
    exist."""
    try:
        return _BY_SCHEME[scheme.lower()]
    except KeyError:
        raise ConfigError(
            f"unknown state store URI scheme '{scheme}://'",
            f"the schemes that exist are: {', '.join(s + '://' for s in _BY_SCHEME)}",
        ) from None


def db_system(scheme: str) -> str:
    """The OpenTelemetry ``db.system.name`` of ``scheme`` (the scheme itself if unknown)."""
    entry = _BY_SCHEME.get(scheme.lower())
    return entry.db_system if entry else scheme
