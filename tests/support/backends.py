"""Backends for the parametrised contract suite, the chaos suite and the fleet tests.

The state backends are the registry's (:mod:`docfleet.core.backends`): each entry names
the session fixture of :mod:`support.emulator_fixtures` that serves it (``test_server``), and
:data:`STATE_URI_MAKERS` below says how to make a fresh namespace in that server. A factory
``(request, tmp_path) -> URI`` pulls its server lazily with ``request.getfixturevalue``, so
a test that only uses SQLite never starts one."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from docfleet.core.backends import BACKENDS, backend

UriFactory = Callable[[pytest.FixtureRequest, Path], str]

# Imported now, not lazily: it sets dummy AWS keys and strips cloud credentials from the
# environment before any process (the contract suite's spawned pool) inherits it.
from support import emulators  # noqa: E402


def unique(prefix: str) -> str:
    return f"{prefix}{uuid.uuid4().hex[:12]}"


#: scheme -> (its test server or None, a scratch dir) -> a state URI of a fresh namespace.
STATE_URI_MAKERS: dict[str, Callable[[Any, Path], str]] = {
    "sqlite": lambda server, tmp: f"sqlite:///{tmp / 'state.db'}",
    "firestore": lambda server, tmp: emulators.firestore_uri(server, unique("t") + "-"),
    "dynamodb": lambda server, tmp: emulators.make_dynamodb_table(server, unique("docfleet-")),
    "postgresql": lambda server, tmp: server.uri(unique("t_")),
}
missing = {b.scheme for b in BACKENDS} ^ set(STATE_URI_MAKERS)
assert not missing, f"backend registry and STATE_URI_MAKERS disagree on {sorted(missing)}"


def server_for(request: pytest.FixtureRequest, scheme: str) -> emulators.Emulator | None:
    """The started test server of ``scheme`` (``None`` for one that needs none)."""
    fixture = backend(scheme).test_server
    if fixture is None:
        return None
    return request.getfixturevalue(fixture)  # type: ignore[no-any-return]


def _state_factory(scheme: str) -> UriFactory:
    def make(request: pytest.FixtureRequest, tmp_path: Path) -> str:
        return STATE_URI_MAKERS[scheme](server_for(request, scheme), tmp_path)

    return make


def _file(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return f"file://{tmp_path / 'out'}"


def _emulator(request: pytest.FixtureRequest, name: str) -> emulators.Emulator:
    return request.getfixturevalue(name)  # type: ignore[no-any-return]


def _gs(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return emulators.make_gcs_bucket(_emulator(request, "gcs_emulator"), unique("docfleet-"))


def _s3(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return emulators.make_s3_bucket(_emulator(request, "moto_emulator"), unique("docfleet-"))


STATE_BACKENDS: dict[str, UriFactory] = {b.scheme: _state_factory(b.scheme) for b in BACKENDS}
BLOB_BACKENDS: dict[str, UriFactory] = {"file": _file, "gs": _gs, "s3": _s3}
