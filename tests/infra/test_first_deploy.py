"""The first-deploy path (deploy/README.md, "First deploy") held to account: it is one
numbered path in the order a new user needs it; its step 5, run for real on the shipped
example files, yields an environment whose first `terraform apply` names only principals
that exist by then and a state bucket the user made in step 3; the roles the path's
laptop commands need are granted; the shipped environments name no placeholder domain."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from infra_tools import REPO, TERRAFORM, load_dir, load_hcl

DEPLOY = REPO / "deploy" / "README.md"
ENV_ROOT = TERRAFORM / "env"
#: what step 1 exports, for a made-up user
USER = {"PROJECT": "acme-docs-481", "REGION": "europe-west4", "ENV": "staging",
        "OPERATOR": "ana.ortiz@acme.test"}


#: the upper-case values of the example files that step 5 replaces
PLACEHOLDERS = ("ENVIRONMENT", "PROJECT_ID", "REGION", "OPERATOR_EMAIL")


def _path() -> str:
    text = DEPLOY.read_text()
    start = text.index("## First deploy")
    return text[start:text.index("\n## ", start + 1)]


def _steps() -> list[tuple[int, str]]:
    """(number, text) of each top-level numbered step, in order."""
    parts = re.split(r"^(\d+)\. ", _path(), flags=re.M)
    return [(int(parts[i]), parts[i + 1]) for i in range(1, len(parts), 2)]


def _step(title: str) -> str:
    [text] = [body for _, body in _steps() if body.startswith(f"**{title}")]
    return text


def _bash_blocks(text: str) -> list[str]:
    return [re.sub(r"^ {3,4}", "", block, flags=re.M)
            for block in re.findall(r"```bash\n(.*?)```", text, re.S)]


@pytest.fixture
def made_environment(tmp_path: Path) -> Path:
    """Step 5's commands, run with bash in a copy of terraform/env."""
    root = tmp_path / "env"
    shutil.copytree(ENV_ROOT, root)
    [block] = _bash_blocks(_step("The environment's two files"))
    script = block.replace("cd terraform/env", f"cd {root}")
    proc = subprocess.run(["bash", "-euo", "pipefail", "-c", script], capture_output=True,
                          text=True, timeout=60, env={**os.environ, **USER})
    assert proc.returncode == 0, proc.stderr
    return root / "config"


def test_the_path_is_numbered_in_the_order_a_new_user_needs() -> None:
    numbers = [n for n, _ in _steps()]
    assert numbers == list(range(1, len(numbers) + 1)) and len(numbers) >= 8
    path = _path()
    order = ["gcloud auth application-default login", "gcloud services enable",
             "gcloud storage buckets create", "example.tfvars", "terraform init",
             "terraform apply", "scripts/build-image", "docker push",
             "gcloud run jobs update docfleet --image", "gcloud run jobs execute docfleet",
             "docfleet status", "docfleet export"]
    where = [path.find(step) for step in order]
    assert -1 not in where, [s for s, w in zip(order, where, strict=True) if w == -1]
    assert where == sorted(where), "the path's commands are out of order"
    assert "set-quota-project" in path, "Firestore with user credentials needs a quota project"
    assert re.search(r"--tasks 50.*100 vCPUs", path, re.S), "the vCPU quota note"


def test_step_5_makes_an_environment_whose_first_apply_names_only_existing_principals(
    made_environment: Path,
) -> None:
    env = USER["ENV"]
    tfvars_text = (made_environment / f"{env}.tfvars").read_text()
    left = [p for p in PLACEHOLDERS if p in tfvars_text]
    assert not left, f"placeholders left: {left}"
    tfvars = load_hcl(made_environment / f"{env}.tfvars")
    assert tfvars["environment"] == env and tfvars["project_id"] == USER["PROJECT"]
    assert tfvars["region"] == USER["REGION"]
    module = load_dir(ENV_ROOT)
    declared = {name: body for block in module["variable"] for name, body in block.items()}
    assert set(tfvars) <= set(declared), set(tfvars) - set(declared)
    required = {name for name, body in declared.items() if "default" not in body}
    assert required <= set(tfvars)
    rule = declared["environment"]["validation"][0]["condition"]
    assert re.fullmatch(re.search(r'regex\("(.+?)"', rule).group(1).replace("\\\\", "\\"), env)
    assert re.fullmatch(r"[a-z][a-z0-9-]{4,28}[a-z0-9]", tfvars["project_id"])
    # Before the first apply only the operator exists: no group from a placeholder domain,
    # no service account made in a later step.
    principals = [*tfvars["deployer_members"], *tfvars["ci_members"]]
    assert principals == [f"user:{USER['OPERATOR']}"], principals
    backend_text = (made_environment / f"{env}.backend.hcl").read_text()
    assert not [p for p in PLACEHOLDERS if p in re.sub(r"#.*", "", backend_text)]
    backend = load_hcl(made_environment / f"{env}.backend.hcl")
    assert backend["prefix"] == f"docfleet/{env}"
    [bucket_step] = _bash_blocks(_step("A bucket of your own"))
    made = subprocess.run(["bash", "-c", "echo " + re.search(r'"(gs://[^"]+)"', bucket_step)
                           .group(1)], env={**os.environ, **USER}, capture_output=True,
                          text=True, timeout=10).stdout.strip()
    assert made == f"gs://{backend['bucket']}", "the backend's bucket is the one step 3 made"


def test_the_operator_gets_what_the_paths_laptop_commands_need() -> None:
    """status/resume (the run's state in Firestore), export/verify (the outputs), launch
    --wait (the job and its executions), execute with overrides: all for deployer_members,
    each narrowed to this module's database, bucket or job."""
    module = load_dir(TERRAFORM / "modules" / "gcp")
    granted = {}
    for block in module["resource"]:
        for kind, resources in block.items():
            for body in resources.values():
                if body.get("for_each") == "${toset(var.deployer_members)}":
                    granted[body["role"]] = (kind, body)
    assert set(granted) == {"roles/run.jobsExecutorWithOverrides", "roles/run.viewer",
                            "roles/datastore.user", "roles/storage.objectViewer"}
    kind, datastore = granted["roles/datastore.user"]
    assert "google_firestore_database.state.name" in datastore["condition"][0]["expression"]
    assert granted["roles/storage.objectViewer"][0] == "google_storage_bucket_iam_member"
    assert granted["roles/run.viewer"][0] == "google_cloud_run_v2_job_iam_member"


def test_the_pipeline_step_names_cloud_builds_account_on_new_projects() -> None:
    text = DEPLOY.read_text()
    section = text[text.index("## Let GitHub Actions deploy"):]
    assert "-compute@developer.gserviceaccount.com" in section
    assert "gcloud builds get-default-service-account" in section
    assert "gcloud iam service-accounts create docfleet-deploy" in section


@pytest.mark.parametrize("env", ["dev", "prod"])
def test_the_shipped_environments_name_no_placeholder_principal(env: str) -> None:
    tfvars = load_hcl(ENV_ROOT / "config" / f"{env}.tfvars")
    for member in [*tfvars["deployer_members"], *tfvars["ci_members"]]:
        assert "example.com" not in member, member
        if member.startswith("serviceAccount:"):
            # only the deploy account, which "Let GitHub Actions deploy" creates first
            assert member == (f"serviceAccount:docfleet-deploy@{tfvars['project_id']}"
                              ".iam.gserviceaccount.com"), member


def test_no_guide_initialises_against_a_bucket_the_user_does_not_own() -> None:
    for guide in (TERRAFORM / "README.md", ENV_ROOT / "README.md", DEPLOY):
        for block in _bash_blocks(guide.read_text()):
            for line in block.splitlines():
                if "terraform init" in line:
                    assert "docfleet-tfstate" not in line and "config/dev" not in line, (
                        f"{guide.name}: {line}")
