"""Backend registry for the parametrised contract suite and the fleet tests.

Each entry maps a backend name to a factory ``(request, tmp_path) -> URI``. A factory may
pull session fixtures lazily with ``request.getfixturevalue`` (for example an emulator),
so a test that only uses SQLite never starts one. Cloud backends add themselves here."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

UriFactory = Callable[[pytest.FixtureRequest, Path], str]


def _sqlite(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'state.db'}"


def _file(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return f"file://{tmp_path / 'out'}"


STATE_BACKENDS: dict[str, UriFactory] = {"sqlite": _sqlite}
BLOB_BACKENDS: dict[str, UriFactory] = {"file": _file}


# -- cloud backends (emulators from tests/emulators.py; each test gets its own namespace) --
# Imported now, not lazily: it sets dummy AWS keys and strips cloud credentials from the
# environment before any process (the contract suite's spawned pool) inherits it.
import emulators  # noqa: E402


def _emulator(request: pytest.FixtureRequest, name: str) -> emulators.Emulator:
    emulators.ensure_plugin(request.config)
    return request.getfixturevalue(name)


def _unique(prefix: str) -> str:
    import uuid

    return f"{prefix}{uuid.uuid4().hex[:12]}"


def _firestore(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return emulators.firestore_uri(_emulator(request, "firestore_emulator"), _unique("t") + "-")


def _dynamodb(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return emulators.make_dynamodb_table(_emulator(request, "moto_emulator"), _unique("docfleet-"))


def _gs(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return emulators.make_gcs_bucket(_emulator(request, "gcs_emulator"), _unique("docfleet-"))


def _s3(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return emulators.make_s3_bucket(_emulator(request, "moto_emulator"), _unique("docfleet-"))


STATE_BACKENDS.update({"firestore": _firestore, "dynamodb": _dynamodb})
BLOB_BACKENDS.update({"gs": _gs, "s3": _s3})
