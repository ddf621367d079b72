"""The emulators as pytest session fixtures: a plugin the root ``conftest.py`` loads
(``pytest_plugins``). Each fixture starts its server on first use and stops it at the end
of the session; a missing server fails under CI=true and skips elsewhere
(:func:`support.needs.require`)."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterator

import pytest

from support.emulators import (
    Emulator,
    PostgresServer,
    discard,
    fake_gcs_binary,
    firestore_launcher,
    moto_available,
    postgres_bin,
    start_fake_gcs,
    start_firestore,
    start_moto,
    start_postgres,
)
from support.needs import require


def _session(start: Callable[[], Emulator], what: str) -> Iterator[Emulator]:
    try:
        emulator = start()
    except RuntimeError as exc:
        require(False, f"{what} ({exc})")
        raise
    try:
        yield emulator
    finally:
        emulator.stop()


@pytest.fixture(scope="session")
def firestore_emulator() -> Iterator[Emulator]:
    require(firestore_launcher() is not None, "the Firestore emulator (gcloud SDK + java)")
    yield from _session(start_firestore, "the Firestore emulator")


@pytest.fixture(scope="session")
def moto_emulator() -> Iterator[Emulator]:
    require(moto_available(), "moto[server] (DynamoDB/S3 emulator)")
    yield from _session(start_moto, "moto (DynamoDB/S3 emulator)")


@pytest.fixture(scope="session")
def gcs_emulator(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Emulator]:
    require(fake_gcs_binary() is not None, "fake-gcs-server (GCS emulator)")
    root = tmp_path_factory.mktemp("fake-gcs")
    yield from _session(lambda: start_fake_gcs(root), "fake-gcs-server (GCS emulator)")


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    require(postgres_bin() is not None, "PostgreSQL (Debian's postgresql package)")
    try:
        server = start_postgres()
    except (RuntimeError, subprocess.CalledProcessError) as exc:
        require(False, f"a PostgreSQL test server ({exc})")
        raise
    try:
        yield server
    finally:
        discard(server)
