"""Static checks of ``terraform/``: every file parses, ``terraform fmt`` style, checkov
passes (each suppression justified inline)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from infra_tools import TERRAFORM, load_dir, load_hcl, tf_files, tool

from support.needs import require

MODULE_FILES = ("main.tf", "variables.tf", "outputs.tf", "versions.tf")
FOLDERS = ["modules/aws", "modules/gcp", "env"]
ENVIRONMENTS = ["dev", "prod"]


@pytest.mark.parametrize("path", tf_files(), ids=lambda p: str(p.relative_to(TERRAFORM)))
def test_every_tf_file_parses(path: Path) -> None:
    assert isinstance(load_hcl(path), dict)


@pytest.mark.parametrize("folder", FOLDERS)
def test_module_layout(folder: str) -> None:
    """terraform-google-modules style: main / variables / outputs / versions; every
    variable and output documented and typed."""
    root = TERRAFORM / folder
    for name in MODULE_FILES:
        assert (root / name).is_file(), f"{folder}/{name} is missing"
    module = load_dir(root)
    for block in module.get("variable", []):
        for name, body in block.items():
            assert body.get("description"), f"{folder}: variable {name} has no description"
            assert "type" in body, f"{folder}: variable {name} has no type"
    for block in module.get("output", []):
        for name, body in block.items():
            assert body.get("description"), f"{folder}: output {name} has no description"


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_environment_config(env: str) -> None:
    """One root for every environment: pinned versions, a partial remote backend with a
    config file per environment, tfvars per environment for every required variable, and
    the outputs operators use."""
    root = TERRAFORM / "env"
    versions = load_hcl(root / "versions.tf")["terraform"][0]
    google = versions["required_providers"][0]["google"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", google["version"]), "pin the provider exactly"
    assert versions["required_version"]
    backend = load_hcl(root / "backend.tf")["terraform"][0]["backend"][0]
    assert "gcs" in backend
    backend_cfg = (root / "config" / f"{env}.backend.hcl").read_text()
    assert f'prefix = "docfleet/{env}"' in backend_cfg
    module = load_dir(root)
    outputs = {name for block in module["output"] for name in block}
    assert {"job_name", "bucket", "state_uri"} <= outputs
    tfvars = load_hcl(root / "config" / f"{env}.tfvars")
    assert tfvars["environment"] == env
    required = {name for block in module["variable"] for name, body in block.items()
                if "default" not in body}
    assert required <= set(tfvars), f"{env}: tfvars lack {required - set(tfvars)}"


def test_every_environment_has_both_config_files() -> None:
    config = TERRAFORM / "env" / "config"
    tfvars = {p.name.removesuffix(".tfvars") for p in config.glob("*.tfvars")}
    backends = {p.name.removesuffix(".backend.hcl") for p in config.glob("*.backend.hcl")}
    assert tfvars == backends == set(ENVIRONMENTS)


@pytest.mark.parametrize("folder", ["modules/aws", "modules/gcp", "env", "examples/aws-local"])
def test_every_root_and_module_has_a_readme(folder: str) -> None:
    readme = TERRAFORM / folder / "README.md"
    assert readme.is_file(), f"{folder} has no README.md"
    module = load_dir(TERRAFORM / folder)
    text = readme.read_text()
    for block in module.get("variable", []):  # every input is documented in the README
        for name in block:
            assert f"`{name}`" in text, f"{folder}/README.md does not document `{name}`"


def test_terraform_fmt() -> None:
    require(shutil.which("terraform") is not None, "terraform")
    proc = subprocess.run(["terraform", "fmt", "-check", "-recursive", "-diff", "-no-color",
                           str(TERRAFORM)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"terraform fmt would change:\n{proc.stdout}{proc.stderr}"


def test_checkov() -> None:
    checkov = tool("checkov")
    require(checkov is not None, "checkov (scripts/setup-dev installs it in .venv/opt)")
    assert checkov is not None
    proc = subprocess.run(
        [checkov, "-d", str(TERRAFORM), "--framework", "terraform", "--skip-download",
         "--quiet", "--compact", "-o", "json"],
        capture_output=True, text=True, timeout=600,
    )
    try:
        reports = json.loads(proc.stdout)
    except ValueError:
        pytest.fail(f"checkov gave no report ({proc.returncode}):\n{proc.stdout[-3000:]}\n"
                    f"{proc.stderr[-3000:]}")
    reports = reports if isinstance(reports, list) else [reports]
    failed = [f"{c['check_id']} {c['resource']} ({c['file_path']}): {c['check_name']}"
              for r in reports for c in r.get("results", {}).get("failed_checks", [])]
    assert not failed, "checkov failed:\n" + "\n".join(failed)
    assert proc.returncode == 0, proc.stderr[-3000:]
    passed = sum(r.get("summary", {}).get("passed", 0) for r in reports)
    assert passed > 20


def test_every_suppression_is_justified() -> None:
    """``# checkov:skip=ID:reason`` with a real reason, never a bare skip."""
    pattern = re.compile(r"checkov:skip=([A-Z0-9_]+)(?::(.*))?")
    found = 0
    for path in tf_files():
        for line in path.read_text().splitlines():
            match = pattern.search(line)
            if match:
                found += 1
                assert match.group(2) and len(match.group(2).strip()) >= 20, \
                    f"{path.name}: {match.group(1)} is suppressed without a justification"
    assert found  # the known suppressions are still there (and so still justified)
