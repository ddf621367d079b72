"""deploy/k8s: the worker's service account exists, carries no API token and no Role; the
launcher Role is least privilege (Jobs and pod logs only, no wildcard)."""

from __future__ import annotations

import yaml
from infra_tools import REPO

K8S = REPO / "deploy" / "k8s"


def _docs() -> list[dict]:
    return [d for path in sorted(K8S.glob("*.yaml"))
            for d in yaml.safe_load_all(path.read_text()) if d]


def test_the_job_runs_as_a_service_account_defined_here() -> None:
    docs = _docs()
    [job] = [d for d in docs if d["kind"] == "Job"]
    pod = job["spec"]["template"]["spec"]
    accounts = {d["metadata"]["name"]: d for d in docs if d["kind"] == "ServiceAccount"}
    assert pod["serviceAccountName"] in accounts
    account = accounts[pod["serviceAccountName"]]
    assert account["automountServiceAccountToken"] is False
    assert pod["automountServiceAccountToken"] is False
    bound = {s["name"] for d in docs if d["kind"] == "RoleBinding" for s in d["subjects"]}
    assert pod["serviceAccountName"] not in bound  # the worker never calls the API


def test_the_launcher_role_is_least_privilege() -> None:
    docs = _docs()
    roles = {d["metadata"]["name"]: d for d in docs if d["kind"] == "Role"}
    for binding in (d for d in docs if d["kind"] == "RoleBinding"):
        assert binding["roleRef"]["name"] in roles
    for role in roles.values():
        for rule in role["rules"]:
            assert "*" not in rule["verbs"] and "*" not in rule["resources"]
            assert "secrets" not in rule["resources"]
    rules = roles["docfleet-launcher"]["rules"]
    assert any("jobs" in r["resources"] and "create" in r["verbs"] for r in rules)
