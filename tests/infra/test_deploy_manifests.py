"""The Kubernetes Indexed Job and the AWS Batch submission in deploy/: their structure."""

from __future__ import annotations

import json

import yaml
from infra_tools import REPO

K8S = REPO / "deploy" / "k8s"


def _docs() -> dict[str, dict]:
    docs = {}
    for path in sorted(K8S.glob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text()):
            if doc:
                docs[doc["kind"]] = doc
    return docs


def test_indexed_job() -> None:
    docs = _docs()
    job = docs["Job"]
    assert job["apiVersion"] == "batch/v1"
    spec = job["spec"]
    assert spec["completionMode"] == "Indexed"
    assert spec["parallelism"] >= 1 and spec["completions"] >= spec["parallelism"]
    assert spec["backoffLimitPerIndex"] >= 1
    assert "backoffLimit" not in spec  # per index, not global
    rules = spec["podFailurePolicy"]["rules"]
    assert any(r["action"] == "FailIndex" and 2 in r["onExitCodes"]["values"] for r in rules)
    assert any(r["action"] == "Ignore" and r.get("onPodConditions") for r in rules)
    pod = spec["template"]["spec"]
    assert pod["restartPolicy"] == "Never"  # required by podFailurePolicy
    assert pod["terminationGracePeriodSeconds"] >= 30
    assert pod["securityContext"]["runAsNonRoot"] is True
    [container] = pod["containers"]
    assert container["args"] == ["work"]
    sources = container["envFrom"]
    assert {"configMapRef": {"name": docs["ConfigMap"]["metadata"]["name"]}} in sources
    assert any(s.get("secretRef", {}).get("name") == docs["Secret"]["metadata"]["name"]
               for s in sources)
    env = {e["name"]: e for e in container["env"]}
    # Kubernetes gives the index only: the count must match the job's completions
    assert env["DOCFLEET_TASK_COUNT"]["value"] == str(spec["completions"])
    assert "DOCFLEET_RUN_ID" in env
    shm = next(v for v in pod["volumes"] if v["name"] == "dshm")
    assert shm["emptyDir"]["medium"] == "Memory"
    assert {"name": "dshm", "mountPath": "/dev/shm"} in container["volumeMounts"]
    for rule in rules:
        if "onExitCodes" in rule:
            assert rule["onExitCodes"]["containerName"] == container["name"]


def test_configmap_and_secret() -> None:
    docs = _docs()
    settings = docs["ConfigMap"]["data"]
    assert settings["DOCFLEET_STATE"].startswith(("firestore://", "dynamodb://"))
    assert settings["DOCFLEET_OUT"].startswith(("gs://", "s3://"))
    assert all(isinstance(v, str) for v in settings.values())
    secret = docs["Secret"]
    assert secret["type"] == "Opaque"
    assert all(v == "" for v in secret["stringData"].values()), "no real keys in git"


def test_aws_batch_array_job() -> None:
    submit = json.loads((REPO / "deploy" / "aws-batch" / "submit-job.json").read_text())
    size = submit["arrayProperties"]["size"]
    assert size >= 2
    env = {e["name"]: e["value"] for e in submit["containerOverrides"]["environment"]}
    assert env["DOCFLEET_TASK_COUNT"] == str(size)
    assert {"DOCFLEET_RUN_ID", "DOCFLEET_TOTAL"} <= set(env)
