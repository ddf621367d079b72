"""The AWS module applied for real: ``terraform init/validate/apply`` against a local,
single-threaded moto server, then a 3-task ``docfleet work`` fleet (AWS Batch array-job
environment) against the DynamoDB table and S3 bucket Terraform created, then
``terraform destroy``. Providers come only from the machine's filesystem mirror."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from infra_tools import REPO, find_provider_mirror, terraform, terraform_env

from docfleet.state.dynamodb.schema import DYNAMODB_TABLE
from support.needs import require

#: its apply waits ~56 s on the provider's lifecycle-configuration waiter (no CPU)
pytestmark = pytest.mark.early

ROOT = REPO / "terraform" / "examples" / "aws-local"
REGION = "us-east-1"


@pytest.fixture(scope="module")
def moto() -> Iterator[object]:
    from support.emulators import moto_available, start_moto

    require(moto_available(), "moto[server]")
    server = start_moto()
    yield server
    server.stop()


def _aws(moto: object, service: str) -> object:
    import boto3

    return boto3.session.Session(
        aws_access_key_id="testing", aws_secret_access_key="testing", region_name=REGION,
    ).client(service, endpoint_url=moto.url)  # type: ignore[attr-defined]


def _check_table(moto: object, table: str) -> None:
    desc = _aws(moto, "dynamodb").describe_table(TableName=table)["Table"]  # type: ignore[attr-defined]
    assert desc["KeySchema"] == DYNAMODB_TABLE["KeySchema"]
    assert sorted(desc["AttributeDefinitions"], key=lambda a: a["AttributeName"]) == sorted(
        DYNAMODB_TABLE["AttributeDefinitions"], key=lambda a: a["AttributeName"])
    got = {g["IndexName"]: (g["KeySchema"], g["Projection"])
           for g in desc["GlobalSecondaryIndexes"]}
    want = {g["IndexName"]: (g["KeySchema"], g["Projection"])
            for g in DYNAMODB_TABLE["GlobalSecondaryIndexes"]}
    assert got == want
    assert desc["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
    backups = _aws(moto, "dynamodb").describe_continuous_backups(  # type: ignore[attr-defined]
        TableName=table)["ContinuousBackupsDescription"]
    assert backups["PointInTimeRecoveryDescription"]["PointInTimeRecoveryStatus"] == "ENABLED"


def _check_bucket(moto: object, bucket: str) -> None:
    s3 = _aws(moto, "s3")
    block = s3.get_public_access_block(Bucket=bucket)  # type: ignore[attr-defined]
    assert all(block["PublicAccessBlockConfiguration"].values())
    enc = s3.get_bucket_encryption(Bucket=bucket)  # type: ignore[attr-defined]
    rule = enc["ServerSideEncryptionConfiguration"]["Rules"][0]
    assert rule["ApplyServerSideEncryptionByDefault"]["SSEAlgorithm"] == "AES256"


def _job_definition_env(moto: object, arn: str, endpoint: str) -> dict[str, str]:
    """The environment AWS Batch would give each child of an array job of the Terraform
    job definition, with the stores pointed at moto (an endpoint is a test-only addition)."""
    batch = _aws(moto, "batch")
    [definition] = batch.describe_job_definitions(  # type: ignore[attr-defined]
        jobDefinitions=[arn])["jobDefinitions"]
    props = definition["containerProperties"]
    assert props["command"] == ["work"] and props["jobRoleArn"].endswith("-task")
    env = {e["name"]: e["value"] for e in props["environment"]}
    env["DOCFLEET_STATE"] += f"&endpoint={endpoint}"
    env["DOCFLEET_OUT"] += f"?endpoint={endpoint}&region={REGION}"
    return env


def _fleet(job_env: dict[str, str], run_id: str, tmp: Path, tasks: int = 3) -> list[int]:
    """Start ``tasks`` workers as the children of an AWS Batch array job; wait for all.
    Per run, as in deploy/aws-batch/submit-job.json: run id, total and task count."""
    procs = []
    for index in range(tasks):
        env = {k: v for k, v in os.environ.items() if not k.startswith("DOCFLEET_")}
        env.update(job_env)
        env.update(
            AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing", NO_GCE_CHECK="true",
            AWS_BATCH_JOB_ARRAY_INDEX=str(index), AWS_BATCH_JOB_ID=f"job-{run_id}:{index}",
            AWS_BATCH_JOB_ATTEMPT="1", DOCFLEET_TASK_COUNT=str(tasks),
            DOCFLEET_RUN_ID=run_id, DOCFLEET_TOTAL="24", DOCFLEET_UNIT_SIZE="4",
            DOCFLEET_PACK="bench", DOCFLEET_POLL_SECONDS="0.2",
        )
        log = (tmp / f"task-{index}.log").open("wb")
        procs.append((subprocess.Popen([sys.executable, "-m", "docfleet", "work"], env=env,
                                       stdout=log, stderr=subprocess.STDOUT, cwd=tmp), log))
    codes = []
    for proc, log in procs:
        try:
            codes.append(proc.wait(timeout=240))
        finally:
            if proc.poll() is None:
                proc.kill()
            log.close()
    return codes


@pytest.mark.fleet
@pytest.mark.timeout(900)
def test_aws_module_applies_and_a_fleet_runs_on_it(moto: object, tmp_path: Path) -> None:
    require(shutil.which("terraform") is not None, "terraform")
    mirror = find_provider_mirror()
    require(mirror is not None, "the Terraform provider mirror (a registry.terraform.io folder)")
    assert mirror is not None
    env = terraform_env(tmp_path, mirror)
    root = tmp_path / "root"
    root.mkdir()
    module = (REPO / "terraform" / "modules" / "aws").as_posix()
    (root / "main.tf").write_text(
        (ROOT / "main.tf").read_text().replace("../../modules/aws", module))
    endpoint = moto.url  # type: ignore[attr-defined]
    name = f"df-{uuid.uuid4().hex[:8]}"
    tf_vars = ["-var", f"endpoint={endpoint}", "-var", f"name={name}"]

    terraform(["init", "-input=false"], root, env)
    terraform(["validate"], root, env)
    try:
        terraform(["apply", "-auto-approve", "-input=false", *tf_vars], root, env, timeout=600)
        outputs = {k: v["value"] for k, v in json.loads(
            terraform(["output", "-json"], root, env).stdout).items()}
        assert outputs["table_name"] == f"{name}-state"
        assert outputs["state_uri"] == f"dynamodb://{name}-state?region={REGION}"
        _check_table(moto, outputs["table_name"])
        _check_bucket(moto, outputs["bucket"])

        job_env = _job_definition_env(moto, outputs["job_definition_arn"], endpoint)
        assert job_env["DOCFLEET_LEASE_SECONDS"] == "10"  # the root's settings reach the job
        state = job_env["DOCFLEET_STATE"]
        assert state == f"{outputs['state_uri']}&endpoint={endpoint}"
        run_id = f"tf-{uuid.uuid4().hex[:8]}"
        codes = _fleet(job_env, run_id, tmp_path)
        logs = "\n".join(p.read_text()[-1500:] for p in sorted(tmp_path.glob("task-*.log")))
        assert codes == [0, 0, 0], logs
        s3 = _aws(moto, "s3")
        prefix = outputs["out_uri"].split("/", 3)[3]
        root_manifest = s3.get_object(  # type: ignore[attr-defined]
            Bucket=outputs["bucket"], Key=f"{prefix}/{run_id}/manifest.json")["Body"].read()
        assert json.loads(root_manifest)["run_id"] == run_id
        listed = s3.list_objects_v2(  # type: ignore[attr-defined]
            Bucket=outputs["bucket"], Prefix=f"{prefix}/{run_id}/manifest/unit-")
        assert listed["KeyCount"] == 6
        status = subprocess.run(
            [sys.executable, "-m", "docfleet", "status", run_id, "--state", state,
             "--out", job_env["DOCFLEET_OUT"], "--json"],
            capture_output=True, text=True, env={**os.environ, **env}, timeout=60)
        assert status.returncode == 0, status.stderr
        assert json.loads(status.stdout)["state"] == "COMPLETED"
    finally:  # also after a partial apply
        terraform(["destroy", "-auto-approve", "-input=false", *tf_vars], root, env)
    tables = _aws(moto, "dynamodb").list_tables()["TableNames"]  # type: ignore[attr-defined]
    assert f"{name}-state" not in tables
