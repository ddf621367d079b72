"""The one list of state-store backends. Everything that depends on which backends exist
reads it: URI parsing and settings validation (:func:`schemes`), :func:`open_state_store`,
telemetry's ``db.system.name``, the tests' contract and chaos suites and the benches
(through :attr:`StateBackend.test_server`).

Adding a backend is one module with an ``open_…(parsed, *, create) -> StateStore`` function,
one :class:`StateBackend` entry below, and its test-server hook in
``tests/support/emulator_fixtures.py`` / ``tests/support/backends.py``. The module takes
its unit transition rules from :mod:`docfleet.state.rules` and its cloud clients from
:mod:`docfleet.cloud`. Opening is
lazy: a backend's module (and its SDK) is imported only when a URI of its scheme is opened.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from docfleet.core.errors import ConfigError

if TYPE_CHECKING:
    from docfleet.core.uris import ParsedURI
    from docfleet.state.base import StateStore


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
    ``init`` is the ``"module:function"`` that ``docfleet store init`` runs on a parsed URI
    (``None``: opening the store creates or checks what it needs).
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
    op_prices: tuple[float, float] = (0.0, 0.0)
    init: str | None = None
    write_ramp: tuple[float, float, float] | None = None
    unit_writes: float = 0.0
    renew_units: tuple[float, float] = (0.0, 1.0)  # one conditional UPDATE / UpdateItem

    def open(self, parsed: ParsedURI, *, create: bool = True) -> StateStore:
        """Import the backend's module and open the store ``parsed`` names; ``create=False``
        (read-only commands) must not create anything."""
        module, _, function = self.opener.partition(":")
        opener = getattr(importlib.import_module(module), function)
        return opener(parsed, create=create)


BACKENDS: tuple[StateBackend, ...] = (
    StateBackend("sqlite", "docfleet.state.sqlite:open_sqlite_store", "sqlite", None, None,
                 "sqlite:///.docfleet/state.db", init="docfleet.ops.storeinit:_init_sqlite"),
    StateBackend("firestore", "docfleet.state.firestore:open_firestore_store",
                 "gcp.firestore", "gcp", "firestore_emulator", "firestore://PROJECT?prefix=P",
                 # nam5: $0.06 per 100,000 document reads, $0.18 per 100,000 writes
                 (0.06 / 1e5, 0.18 / 1e5), init="docfleet.ops.storeinit:_init_firestore",
                 # "500/50/5": a new collection starts at 500 ops/s, +50% every 5 minutes;
                 # a unit is 4 writes (claim, completion: unit document + counter shard)
                 write_ramp=(500.0, 1.5, 300.0), unit_writes=4.0,
                 renew_units=(1.0, 1.0)),  # compare-and-set: read, then a fenced update
    StateBackend("dynamodb", "docfleet.state.dynamodb:open_dynamodb_store", "aws.dynamodb",
                 "aws", "moto_emulator", "dynamodb://TABLE?region=R",
                 # on-demand, us-east-1: $0.125 per million reads, $0.625 per million writes
                 (0.125 / 1e6, 0.625 / 1e6), init="docfleet.ops.storeinit:_init_dynamodb"),
    StateBackend("postgresql", "docfleet.state.postgres:open_postgres_store", "postgresql",
                 "postgres", "postgres_server", "postgresql://USER@HOST:5432/DB?schema=S"),
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
