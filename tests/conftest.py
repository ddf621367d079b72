"""Shared fixtures. Tests never reach a cloud address: every client points at 127.0.0.1.

The emulator fixtures (``firestore_emulator``, ``moto_emulator``, ``gcs_emulator``,
``postgres_server``) come from the :mod:`support.emulator_fixtures` plugin."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from docfleet.render.browser import Chromium
from support.backends import BLOB_BACKENDS, STATE_BACKENDS
from support.browsers import chromium_browser
from support.needs import IN_CI, require

__all__ = ["IN_CI", "require"]

pytest_plugins = ["support.emulator_fixtures"]

os.environ.setdefault("NO_GCE_CHECK", "true")
# Workers spawned by tests must not inherit a developer's settings (DOCFLEET_TEST_* are
# the harness's own, e.g. scripts/test's DOCFLEET_TEST_IMAGE, and stay).
for _name in list(os.environ):
    if _name.startswith("DOCFLEET_") and not _name.startswith("DOCFLEET_TEST_"):
        del os.environ[_name]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The order ``--dist loadfile`` hands files out in (scripts/test passes
    ``--no-loadscope-reorder`` so that this order stands): files marked ``early`` first,
    then files with more tests first (pytest-xdist's own order). Without it a long
    one-test file that mostly waits (the Terraform apply) went last and ended the
    parallel pass alone, the machine idle. Tests keep their order within a file."""
    files: dict[str, list[pytest.Item]] = {}
    for item in items:
        files.setdefault(item.nodeid.split("::", 1)[0], []).append(item)
    ordered = sorted(files.values(), key=lambda group: (
        not any(item.get_closest_marker("early") for item in group), -len(group)))
    items[:] = [item for group in ordered for item in group]


@pytest.fixture(scope="module")
def chromium() -> Iterator[Chromium]:
    """One real headless Chromium with two pages, shared by a test module."""
    yield from chromium_browser()


@pytest.fixture
def run_id() -> str:
    return f"t-{uuid.uuid4().hex[:12]}"


@pytest.fixture(params=sorted(STATE_BACKENDS))
def state_uri(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return STATE_BACKENDS[request.param](request, tmp_path)


@pytest.fixture(params=sorted(BLOB_BACKENDS))
def blob_uri(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return BLOB_BACKENDS[request.param](request, tmp_path)
