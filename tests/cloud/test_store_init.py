"""``docfleet store init`` through the real CLI against the real emulators: it creates a
DynamoDB table and emulator buckets that a fleet then uses, is idempotent, reports a
table of the wrong shape and a real (non-emulator) bucket it may not create."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from support import emulators
from support.fleet import cli, start_worker, worker_env


@pytest.fixture
def moto(request: pytest.FixtureRequest) -> emulators.Emulator:
    return request.getfixturevalue("moto_emulator")


@pytest.fixture
def gcs(request: pytest.FixtureRequest) -> emulators.Emulator:
    return request.getfixturevalue("gcs_emulator")


@pytest.fixture
def firestore(request: pytest.FixtureRequest) -> emulators.Emulator:
    return request.getfixturevalue("firestore_emulator")


def _name() -> str:
    return f"docfleet-{uuid.uuid4().hex[:10]}"


def test_dynamodb_table_and_s3_bucket_are_created_then_used(
    tmp_path: Path, moto: emulators.Emulator, run_id: str
) -> None:
    table, bucket = _name(), _name()
    state = f"dynamodb://{table}?region={emulators.AWS_REGION}&endpoint={moto.url}"
    out = f"s3://{bucket}/out?endpoint={moto.url}&region={emulators.AWS_REGION}"
    before = cli("work", "--run-id", run_id, "--total", "2", "--pack", "bench",
                 "--state", state, "--out", out)
    assert before.returncode == 2 and "does not exist" in before.stderr

    first = cli("store", "init", state, out)
    assert first.returncode == 0, first.stdout + first.stderr
    assert f"ok  dynamodb://{table}?region={emulators.AWS_REGION}: created table {table} " \
           "(indexes pending, leases)" in first.stdout
    assert f"ok  s3://{bucket}: created bucket on the emulator at {moto.url}" in first.stdout

    again = cli("store", "init", state, out)
    assert again.returncode == 0, again.stdout
    assert "table exists with the expected schema" in again.stdout
    assert f"s3://{bucket}: bucket exists" in again.stdout

    ran = cli("run", "--run-id", run_id, "--total", "4", "--unit-size", "2", "--pack",
              "bench", "--tasks", "2", "--state", state, "--out", out,
              "--log-dir", str(tmp_path / "logs"), env={"DOCFLEET_POLL_SECONDS": "0.2"})
    assert ran.returncode == 0, ran.stderr
    # the run's root as a URI: path before any query, never "…?endpoint=…/run/…"
    assert f"output: s3://{bucket}/out/{run_id}/manifest.json" in ran.stderr.splitlines()


def test_a_dynamodb_table_of_another_shape_is_reported(moto: emulators.Emulator) -> None:
    import boto3

    table = _name()
    boto3.session.Session().client("dynamodb", endpoint_url=moto.url,
                                   region_name=emulators.AWS_REGION).create_table(
        TableName=table, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}])
    result = cli("store", "init",
                 f"dynamodb://{table}?region={emulators.AWS_REGION}&endpoint={moto.url}")
    assert result.returncode == 1
    assert "MISSING" in result.stdout and "key schema" in result.stdout
    assert "index 'pending' is missing" in result.stdout
    assert "Traceback" not in result.stderr


def test_gcs_bucket_on_the_emulator_and_firestore_emulator_check(
    tmp_path: Path, gcs: emulators.Emulator, firestore: emulators.Emulator, run_id: str
) -> None:
    bucket = _name()
    out = f"gs://{bucket}/out?emulator={gcs.url}"
    state = emulators.firestore_uri(firestore, f"{uuid.uuid4().hex[:8]}-")
    result = cli("store", "init", out, state, f"sqlite:///{tmp_path}/s.db",
                 f"file://{tmp_path}/o")
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert f"ok  gs://{bucket}: created bucket on the emulator at {gcs.url}" in lines
    assert any("the emulator at" in line and "needs no database" in line for line in lines)
    assert f"ok  sqlite:///{tmp_path}/s.db: database file and schema ready" in lines
    assert f"ok  file://{tmp_path}/o: directory ready" in lines
    proc = start_worker(worker_env(state, out, run_id, 2, unit_size=1), tmp_path / "w.log")
    assert proc.wait(120) == 0, (tmp_path / "w.log").read_text()


def test_bad_uris_are_one_line_and_do_not_stop_the_others(tmp_path: Path) -> None:
    result = cli("store", "init", "ftp://nowhere/x", f"sqlite:///{tmp_path}/s.db")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "MISSING ftp://nowhere/x: unknown store URI scheme 'ftp://'" in result.stdout
    assert f"ok  sqlite:///{tmp_path}/s.db" in result.stdout
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(("endpoint", "emulated"), [
    (None, False), ("https://s3.eu-west-1.amazonaws.com", False),
    ("https://bucket.s3.amazonaws.com", False), ("http://127.0.0.1:5000", True),
    ("http://minio.internal:9000", True),
])
def test_buckets_are_created_only_on_emulators(endpoint: str | None, emulated: bool) -> None:
    """The one decision the emulator tests cannot reach: a real S3 endpoint is checked,
    never written to (Terraform makes real buckets with their IAM)."""
    from docfleet.ops.storeinit import emulator_endpoint

    assert emulator_endpoint(endpoint) is emulated
