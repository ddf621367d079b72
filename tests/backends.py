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
