"""The deployment files held against the code: every DOCFLEET_* variable they set is a
real setting, the Firestore indexes equal FIRESTORE_INDEXES (and its index exemptions
FIRESTORE_UNINDEXED_FIELDS), the DynamoDB table equals
DYNAMODB_TABLE, no primitive roles, no ``*`` resources in AWS policies."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from infra_tools import REPO, TERRAFORM, load_dir, load_hcl, resources, tf_files

from docfleet.core.settings import Settings
from docfleet.state.dynamodb.schema import DYNAMODB_TABLE
from docfleet.state.firestore.schema import (
    FIRESTORE_INDEXES,
    FIRESTORE_UNINDEXED_FIELDS,
    FIRESTORE_UNITS_COLLECTION,
)

GCP = TERRAFORM / "modules" / "gcp"
AWS = TERRAFORM / "modules" / "aws"
NAME = re.compile(r"\bDOCFLEET_[A-Z0-9_]+\b")


def _identity_vars() -> set[str]:
    """The DOCFLEET_* names the task-identity code reads (not settings)."""
    source = (REPO / "worker" / "docfleet" / "core" / "identity.py").read_text()
    return set(re.findall(r'"(DOCFLEET_[A-Z_]+)"', source))


def _deployment_files() -> list[Path]:
    files = [*tf_files(), *TERRAFORM.rglob("*.tfvars")]
    for pattern in ("deploy/**/*", "Dockerfile", "cloudbuild.yaml", ".github/workflows/*.yml"):
        files.extend(p for p in REPO.glob(pattern) if p.is_file())
    return sorted(set(files))


def _setting_names() -> set[str]:
    return {f"DOCFLEET_{name.upper()}" for name in Settings.model_fields}


def test_every_docfleet_variable_is_a_real_setting() -> None:
    known = _setting_names() | _identity_vars()
    bad = {}
    for path in _deployment_files():
        if path.suffix == ".md":  # prose may name variables of other components
            continue
        unknown = set(NAME.findall(path.read_text(errors="replace"))) - known
        if unknown:
            bad[str(path.relative_to(REPO))] = sorted(unknown)
    assert not bad, f"DOCFLEET_* names that are not settings: {bad}"


def _job_env(module: dict) -> dict[str, str]:
    local = {k: v for block in module["locals"] for k, v in block.items()}
    env = local["settings_env"]
    match = re.fullmatch(r"\$\{merge\(\{(.*)\}, var\.settings\)\}", env, re.S)
    assert match, f"settings_env is not merge({{…}}, var.settings): {env!r}"
    return dict(re.findall(r"(DOCFLEET_[A-Z_]+)\s*=\s*\"?([^\n,\"]*)", match.group(1)))


@pytest.mark.parametrize("module_dir", [GCP, AWS], ids=["gcp", "aws"])
def test_job_env_names_are_settings(module_dir: Path) -> None:
    env = _job_env(load_dir(module_dir))
    assert {"DOCFLEET_STATE", "DOCFLEET_OUT"} <= set(env)
    assert set(env) <= _setting_names()


@pytest.mark.parametrize("env", ["dev", "prod"])
def test_tfvars_settings_are_settings(env: str) -> None:
    tfvars = load_hcl(TERRAFORM / "env" / "config" / f"{env}.tfvars")
    settings = tfvars.get("settings", {})
    assert set(settings) <= _setting_names()
    Settings(**{k.removeprefix("DOCFLEET_").lower(): v for k, v in settings.items()})


def test_cloud_run_job_sets_settings_and_secrets() -> None:
    module = load_dir(GCP)
    job = dict(resources(module, "google_cloud_run_v2_job"))["docfleet"]
    container = job["template"][0]["template"][0]["containers"][0]
    dynamics = [d["env"] for d in container["dynamic"]]
    sources = {d["for_each"] for d in dynamics}
    assert sources == {"${local.settings_env}", "${google_secret_manager_secret.llm}"}
    secret = next(d for d in dynamics if "secret" in d["for_each"])
    assert secret["content"][0]["value_source"][0]["secret_key_ref"]
    inner = job["template"][0]
    assert {"task_count", "parallelism"} <= set(inner)
    assert {"timeout", "max_retries", "service_account"} <= set(inner["template"][0])
    assert set(container["resources"][0]["limits"]) == {"cpu", "memory"}
    volumes = {v["name"]: v for v in inner["template"][0]["volumes"]}
    assert volumes["dshm"]["empty_dir"][0]["medium"] == "MEMORY"
    assert container["volume_mounts"][0] == {"name": "dshm", "mount_path": "/dev/shm"}


def test_firestore_indexes_equal_the_code() -> None:
    local = {k: v for block in load_dir(GCP)["locals"] for k, v in block.items()}
    got = sorted(
        (ix["collection"], ix["query_scope"], [tuple(f) for f in ix["fields"]])
        for ix in local["firestore_indexes"].values()
    )
    want = sorted(
        (ix["collection_group"], ix["query_scope"], [tuple(f) for f in ix["fields"]])
        for ix in FIRESTORE_INDEXES
    )
    assert got == want
    index = dict(resources(load_dir(GCP), "google_firestore_index"))["units"]
    assert index["for_each"] == "${local.firestore_indexes}"
    assert index["database"] == "${google_firestore_database.state.name}"


def test_firestore_index_exemptions_equal_the_code() -> None:
    """Every field in FIRESTORE_UNINDEXED_FIELDS is exempted (an empty ``index_config``:
    no single-field index), and no query of the store filters or orders by one of them
    (else the query would need the index the exemption removes)."""
    local = {k: v for block in load_dir(GCP)["locals"] for k, v in block.items()}
    assert sorted(local["firestore_unindexed_fields"]) == sorted(FIRESTORE_UNINDEXED_FIELDS)
    field = dict(resources(load_dir(GCP), "google_firestore_field"))["unindexed"]
    assert field["for_each"] == "${toset(local.firestore_unindexed_fields)}"
    assert field["collection"] == FIRESTORE_UNITS_COLLECTION
    assert field["field"] == "${each.value}"
    assert field["index_config"] in ([{}], {}), field["index_config"]  # no index at all
    assert field["database"] == "${google_firestore_database.state.name}"
    indexed = {f for ix in FIRESTORE_INDEXES for f, _ in ix["fields"]}
    assert not indexed & set(FIRESTORE_UNINDEXED_FIELDS)
    source = "".join(p.read_text() for p in (REPO / "worker/docfleet/state/firestore").glob("*.py"))
    queried = set(re.findall(r'_where\([^,]+,\s*"(\w+)"', source)) | set(
        re.findall(r'order_by\("(\w+)"', source))
    assert queried and not queried & set(FIRESTORE_UNINDEXED_FIELDS), queried


def test_dynamodb_table_equals_the_code() -> None:
    table = dict(resources(load_dir(AWS), "aws_dynamodb_table"))["state"]
    key_schema = [{"AttributeName": table["hash_key"], "KeyType": "HASH"}]
    if "range_key" in table:
        key_schema.append({"AttributeName": table["range_key"], "KeyType": "RANGE"})
    assert key_schema == DYNAMODB_TABLE["KeySchema"]
    attributes = sorted((a["name"], a["type"]) for a in table["attribute"])
    assert attributes == sorted(
        (a["AttributeName"], a["AttributeType"]) for a in DYNAMODB_TABLE["AttributeDefinitions"])

    def gsi(name: str, hash_key: str, range_key: str | None, projection: dict) -> tuple:
        return (name, hash_key, range_key, projection["ProjectionType"],
                tuple(sorted(projection.get("NonKeyAttributes", []))))

    got = sorted(gsi(g["name"], g["hash_key"], g.get("range_key"),
                     {"ProjectionType": g["projection_type"],
                      "NonKeyAttributes": g.get("non_key_attributes", [])})
                 for g in table.get("global_secondary_index", []))
    want = []
    for g in DYNAMODB_TABLE["GlobalSecondaryIndexes"]:
        keys = {k["KeyType"]: k["AttributeName"] for k in g["KeySchema"]}
        want.append(gsi(g["IndexName"], keys["HASH"], keys.get("RANGE"), g["Projection"]))
    assert got == sorted(want)
    assert table["billing_mode"] == DYNAMODB_TABLE["BillingMode"]
    assert table["point_in_time_recovery"][0]["enabled"] is True


def test_no_primitive_roles() -> None:
    for path in tf_files():
        text = path.read_text()
        found = re.findall(r"roles/(owner|editor|viewer)\b", text)
        assert not found, f"{path.relative_to(REPO)} grants a primitive role: {found}"


def test_no_wildcard_resources_in_aws_policies() -> None:
    module = load_dir(AWS)
    documents = [body for block in module.get("data", [])
                 for kind, named in block.items() if kind == "aws_iam_policy_document"
                 for body in named.values()]
    assert documents
    for doc in documents:
        for statement in doc.get("statement", []):
            for resource in statement.get("resources", []):
                assert resource != "*" and not re.fullmatch(r"arn:[^:]*:[^:]*:[^:]*:[^:]*:\*",
                                                            resource), resource
            for action in statement.get("actions", []):
                assert action != "*" and not action.endswith(":*"), action
    for path in AWS.glob("*.tf"):
        assert not re.search(r"\"Resource\"\s*:\s*\"\*\"", path.read_text())
    # the task policy names the table, its two indexes and the bucket: nothing else
    task = next(d for d in documents if any(s.get("sid") == "StateTable"
                                            for s in d.get("statement", [])))
    names = {g["IndexName"] for g in DYNAMODB_TABLE["GlobalSecondaryIndexes"]}
    table_resources = next(s["resources"] for s in task["statement"] if s["sid"] == "StateTable")
    assert {r.rsplit("/", 1)[-1] for r in table_resources if "/index/" in r} == names


def test_worker_service_account_roles_are_least_privilege() -> None:
    module = load_dir(GCP)
    project_roles = set()
    for _, body in resources(module, "google_project_iam_member"):
        if "for_each" in body:
            project_roles |= set(re.findall(r"roles/[\w.]+", body["for_each"]))
        else:
            project_roles.add(body["role"])
    assert project_roles == {"roles/datastore.user", "roles/cloudtrace.agent",
                             "roles/telemetry.tracesWriter", "roles/logging.logWriter"}
    bucket = dict(resources(module, "google_storage_bucket_iam_member"))["worker_objects"]
    assert bucket["role"] == "roles/storage.objectAdmin"
    assert bucket["bucket"] == "${google_storage_bucket.out.name}"
    secrets = dict(resources(module, "google_secret_manager_secret_iam_member"))["worker_llm"]
    assert secrets["for_each"] == "${google_secret_manager_secret.llm}"
    executors = dict(resources(module, "google_cloud_run_v2_job_iam_member"))["executors"]
    assert executors["role"] == "roles/run.jobsExecutorWithOverrides"
    bucket_body = dict(resources(module, "google_storage_bucket"))["out"]
    assert bucket_body["uniform_bucket_level_access"] is True
    assert bucket_body["public_access_prevention"] == "enforced"
