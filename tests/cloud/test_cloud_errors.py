"""What a user sees when a cloud backend cannot be used: a missing SDK names its extra;
an unreachable endpoint, a missing table or bucket is one line and an exit code, never a
traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from docfleet.blob import open_blob_store
from docfleet.core import backends as registry
from docfleet.core.errors import MissingExtraError
from docfleet.state import open_state_store
from support import emulators
from support.errors import assert_one_line_error
from support.fleet import cli


@pytest.mark.parametrize(
    ("uri", "module", "extra"),
    [
        ("dynamodb://t?region=us-east-1", "boto3", "aws"),
        ("firestore://p?prefix=x-", "google.cloud.firestore", "gcp"),
        ("postgresql://u@127.0.0.1:1/db", "psycopg", "postgres"),
        ("s3://bucket/x", "boto3", "aws"),
        ("gs://bucket/x", "google.cloud.storage", "gcp"),
    ],
)
def test_a_missing_sdk_names_the_extra_to_install(
    uri: str, module: str, extra: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, module, None)  # import fails as if not installed
    parent, _, child = module.rpartition(".")
    if parent in sys.modules:  # `from google.cloud import x` would find the attribute
        monkeypatch.delattr(sys.modules[parent], child, raising=False)
    opener = open_state_store if uri.split(":")[0] in registry.schemes() else open_blob_store
    with pytest.raises(MissingExtraError, match=rf"docfleet\[{extra}\]"):
        opener(uri)


def _one_line_error(result, code: int, *needles: str) -> None:  # type: ignore[no-untyped-def]
    line = assert_one_line_error(result, *needles, code=code, alone=True)
    assert line.startswith("error: "), line


@pytest.mark.parametrize("kind", ["dynamodb", "firestore"])
def test_an_unreachable_state_store_is_one_line_after_the_retry_bound(kind: str) -> None:
    port = emulators.free_port()  # nothing listens there
    uri = (f"dynamodb://t?region=us-east-1&endpoint=http://127.0.0.1:{port}&retry_seconds=2"
           if kind == "dynamodb" else
           f"firestore://p?emulator=127.0.0.1:{port}&retry_seconds=2")
    _one_line_error(cli("status", "some-run", "--state", uri, timeout=60), 4, "over 2s")


@pytest.mark.parametrize("kind", ["s3", "gs"])
def test_an_unreachable_blob_store_is_one_line_after_the_retry_bound(kind: str) -> None:
    port = emulators.free_port()
    uri = (f"s3://bucket/x?endpoint=http://127.0.0.1:{port}&retry_seconds=2" if kind == "s3"
           else f"gs://bucket/x?emulator=http://127.0.0.1:{port}&retry_seconds=2")
    _one_line_error(cli("verify", "some-run", "--out", uri, timeout=60), 4, "over 2s")


def test_a_missing_table_or_bucket_is_a_config_error(request: pytest.FixtureRequest) -> None:
    moto = request.getfixturevalue("moto_emulator")
    gcs = request.getfixturevalue("gcs_emulator")
    _one_line_error(cli("status", "r", "--state",
                        f"dynamodb://no-such-table?region=us-east-1&endpoint={moto.url}"),
                    2, "no-such-table", "does not exist")
    _one_line_error(cli("verify", "r", "--out", f"s3://no-such-bucket/x?endpoint={moto.url}"),
                    2, "no-such-bucket", "does not exist")
    _one_line_error(cli("verify", "r", "--out", f"gs://no-such-bucket/x?emulator={gcs.url}"),
                    2, "no-such-bucket", "does not exist")


def _without_credentials(tmp_path: Path) -> dict[str, str]:
    """An environment with no cloud credentials anywhere (and no metadata servers)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("DOCFLEET_", "AWS_", "GOOGLE_", "FIRESTORE_", "STORAGE_"))}
    env.update(AWS_SHARED_CREDENTIALS_FILE=str(tmp_path / "none"),
               AWS_CONFIG_FILE=str(tmp_path / "none"), AWS_EC2_METADATA_DISABLED="true",
               CLOUDSDK_CONFIG=str(tmp_path / "gcloud"), NO_GCE_CHECK="true",
               HOME=str(tmp_path))
    return env


def test_missing_credentials_are_one_line(request: pytest.FixtureRequest, tmp_path: Path) -> None:
    moto = request.getfixturevalue("moto_emulator")
    env = _without_credentials(tmp_path)

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "docfleet", *args], env=env,
                              capture_output=True, text=True, timeout=120)

    _one_line_error(run("status", "r", "--state",
                        f"dynamodb://t?region=us-east-1&endpoint={moto.url}"),
                    2, "no AWS credentials")
    _one_line_error(run("status", "r", "--state", "firestore://some-project"),
                    2, "no Google Cloud credentials")
