"""The Kubernetes example on PostgreSQL (deploy/k8s/postgres/): an Indexed Job whose state
is ``postgresql://`` with the password from a Secret, under a ServiceAccount with no
rights."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

import yaml
from infra_tools import REPO

from docfleet.core.settings import load_settings
from docfleet.state.postgres.store import display_uri

HERE = REPO / "deploy" / "k8s" / "postgres"


def _docs() -> list[dict]:
    return [doc for path in sorted(HERE.glob("*.yaml"))
            for doc in yaml.safe_load_all(path.read_text()) if doc]


def _one(kind: str) -> dict:
    [doc] = [d for d in _docs() if d["kind"] == kind]
    return doc


def test_the_job_reads_the_password_from_the_secret_and_the_uri_has_none() -> None:
    job, secret, settings = _one("Job"), _one("Secret"), _one("ConfigMap")["data"]
    spec = job["spec"]
    assert spec["completionMode"] == "Indexed"
    pod = spec["template"]["spec"]
    [container] = pod["containers"]
    env = {e["name"]: e for e in container["env"]}
    assert env["DOCFLEET_TASK_COUNT"]["value"] == str(spec["completions"])
    ref = env["PGPASSWORD"]["valueFrom"]["secretKeyRef"]
    assert ref["name"] == secret["metadata"]["name"] and ref["key"] in secret["stringData"]
    assert all(v == "" for v in secret["stringData"].values()), "no real password in git"
    state = settings["DOCFLEET_STATE"]
    parts = urlsplit(state)
    assert parts.scheme == "postgresql" and parts.password is None and parts.username
    assert dict(parse_qsl(parts.query))["schema"]
    assert display_uri(state).startswith("postgresql://docfleet@")
    load_settings(run_id="r", state=state, out=settings["DOCFLEET_OUT"])  # a valid setting
    assert {"configMapRef": {"name": _one("ConfigMap")["metadata"]["name"]}} in \
        container["envFrom"]


def test_the_service_account_has_no_rights_and_no_token() -> None:
    kinds = {d["kind"] for d in _docs()}
    assert not kinds & {"Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"}
    account = _one("ServiceAccount")
    pod = _one("Job")["spec"]["template"]["spec"]
    assert pod["serviceAccountName"] == account["metadata"]["name"]
    assert account["automountServiceAccountToken"] is False
    assert pod["automountServiceAccountToken"] is False
    assert pod["securityContext"]["runAsNonRoot"] is True
    claim = _one("PersistentVolumeClaim")
    assert claim["spec"]["accessModes"] == ["ReadWriteMany"]
    assert any(v.get("persistentVolumeClaim", {}).get("claimName") == claim["metadata"]["name"]
               for v in pod["volumes"])
