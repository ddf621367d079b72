"""The image's command without a container engine: the built wheel installed with the
generation image's extras at the lock's versions (lock/image.txt) into a fresh venv, the
Dockerfile's own build-time smoke step run against it (one real PDF through Debian's
Chromium), then ``docfleet work`` started as 2 tasks with Cloud Run's exact task
environment and the DOCFLEET_* settings Terraform sets."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from infra_tools import REPO, TERRAFORM, load_dir, load_hcl
from lockfile import IMAGE_EXTRAS

from support.needs import require

EXTRAS = ",".join(IMAGE_EXTRAS)


@pytest.fixture(scope="module")
def image_venv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A fresh venv holding the built wheel and the generation image's extras at the
    lock's versions (what the Dockerfile's build stage installs)."""
    uv = shutil.which("uv")
    require(uv is not None, "uv")
    assert uv is not None
    root = tmp_path_factory.mktemp("image")
    context = root / "context"  # what .dockerignore lets into the image build
    context.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, context / name)
    shutil.copytree(REPO / "worker", context / "worker",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info"))
    dist = root / "dist"
    build = subprocess.run([uv, "build", "--wheel", "-q", "-o", str(dist), str(context)],
                           capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stderr
    [wheel] = dist.glob("docfleet-*.whl")
    venv = root / "venv"
    subprocess.run([uv, "venv", "-q", "-p", "python3.11", str(venv)], check=True, timeout=120)
    install = subprocess.run(
        [uv, "pip", "install", "-q", "-p", str(venv / "bin" / "python"), f"{wheel}[{EXTRAS}]",
         "-c", str(REPO / "lock" / "image.txt")],
        capture_output=True, text=True, timeout=900)
    assert install.returncode == 0, install.stderr
    # the build stage's last step: every shipped template compiled into the image's cache
    warm = subprocess.run([str(venv / "bin" / "python"), "-m", "docfleet.packs.template_cache"],
                          env={**os.environ, "DOCFLEET_TEMPLATE_CACHE": str(_template_cache(venv))},
                          capture_output=True, text=True, timeout=300)
    assert warm.returncode == 0, warm.stderr
    assert int(warm.stdout.split()[0]) > 0 and any(_template_cache(venv).iterdir()), warm.stdout
    yield venv


def _template_cache(venv: Path) -> Path:
    """Stands in for the image's /opt/docfleet/template-cache."""
    return venv.parent / "template-cache"


def _dockerfile_env() -> dict[str, str]:
    """The generation stage's ENV (the DOCFLEET_* part)."""
    text = (REPO / "Dockerfile").read_text()
    stage = text.split(" AS generation")[1].split("RUN set -eux")[0]
    return dict(re.findall(r"\b(DOCFLEET_[A-Z_]+)=(\S+)", stage))


def _smoke_script() -> str:
    """The shell of the Dockerfile's smoke ``RUN`` step, line continuations joined."""
    text = (REPO / "Dockerfile").read_text()
    match = re.search(r"^RUN (set -eux;.*?)(?=^\S)", text, re.M | re.S)
    assert match, "the Dockerfile has no smoke step"
    return match.group(1).replace("\\\n", "")  # Docker joins continuation lines


def _base_env(venv: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("DOCFLEET_", "VIRTUAL_ENV", "CLOUD_RUN_", "PYTHONPATH"))}
    env["PATH"] = f"{venv / 'bin'}:/usr/sbin:/usr/bin:/sbin:/bin"
    env.update(_dockerfile_env())
    assert env.get("DOCFLEET_TEMPLATE_CACHE"), "the image reads its warmed template cache"
    env["DOCFLEET_TEMPLATE_CACHE"] = str(_template_cache(venv))
    assert env.get("DOCFLEET_DRIVER_CACHE"), "the image reads its warmed driver cache"
    env["DOCFLEET_DRIVER_CACHE"] = str(venv.parent / "driver-cache")  # the smoke step fills it
    env.pop("NODE_COMPILE_CACHE", None)
    return env


def _chromium() -> str | None:
    """The image's Chromium (headless-shell) when installed here, else Debian's chromium."""
    shell = Path("/usr/lib/chromium/chromium-headless-shell")
    return str(shell) if shell.exists() else shutil.which("chromium") or (
        "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)


@pytest.mark.fleet
@pytest.mark.timeout(1200)
def test_dockerfile_smoke_step_renders_a_pdf(image_venv: Path, tmp_path: Path) -> None:
    require(_chromium() is not None, "chromium (Debian package)")
    env = _base_env(image_venv)
    env["DOCFLEET_CHROMIUM_PATH"] = _chromium() or ""
    env["TMPDIR"] = str(tmp_path)
    proc = subprocess.run(["bash", "-c", _smoke_script()], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"


@pytest.mark.fleet
@pytest.mark.timeout(1200)
def test_two_tasks_with_the_cloud_run_environment(image_venv: Path, tmp_path: Path) -> None:
    """Each task: CLOUD_RUN_TASK_INDEX/COUNT/ATTEMPT/EXECUTION as Cloud Run sets them, and
    the job's env from Terraform (modules/gcp settings_env + the dev tfvars), with the
    state and output pointed at local stores."""
    require(_chromium() is not None, "chromium (Debian package)")
    module = load_dir(TERRAFORM / "modules" / "gcp")
    local = {k: v for block in module["locals"] for k, v in block.items()}
    job_env = dict(re.findall(r"(DOCFLEET_[A-Z_]+)\s*=\s*\"([^\"$]*)\"", local["settings_env"]))
    job_env.update(load_hcl(TERRAFORM / "env" / "config" / "dev.tfvars")["settings"])
    job_env.update(DOCFLEET_STATE=f"sqlite:///{tmp_path / 'state.db'}",
                   DOCFLEET_OUT=f"file://{tmp_path / 'out'}")
    base = _base_env(image_venv)
    base["DOCFLEET_CHROMIUM_PATH"] = _chromium() or ""
    overrides = {"DOCFLEET_RUN_ID": "cloudrun-env", "DOCFLEET_TOTAL": "6",
                 "DOCFLEET_UNIT_SIZE": "2"}  # what `gcloud run jobs execute --update-env-vars` adds
    procs = []
    for index in range(2):
        env = {**base, **job_env, **overrides, "CLOUD_RUN_TASK_INDEX": str(index),
               "CLOUD_RUN_TASK_COUNT": "2", "CLOUD_RUN_TASK_ATTEMPT": "0",
               "CLOUD_RUN_EXECUTION": "docfleet-x7k2p", "CLOUD_RUN_JOB": "docfleet"}
        log = (tmp_path / f"task-{index}.log").open("wb")
        procs.append(subprocess.Popen(["docfleet", "work"], env=env, cwd=tmp_path,
                                      stdout=log, stderr=subprocess.STDOUT))
        log.close()
    codes = []
    for proc in procs:
        try:
            codes.append(proc.wait(timeout=600))
        finally:
            if proc.poll() is None:
                proc.kill()
    logs = [json.loads(line) for i in range(2)
            for line in (tmp_path / f"task-{i}.log").read_text().splitlines()
            if line.startswith("{")]
    assert codes == [0, 0], "\n".join(str(e) for e in logs[-20:])
    starts = [e for e in logs if e.get("event") == "task.start"]
    assert sorted((e["task_index"], e["task_count"], e["execution"]) for e in starts) == [
        (0, 2, "docfleet-x7k2p"), (1, 2, "docfleet-x7k2p")]
    manifest = json.loads((tmp_path / "out" / "cloudrun-env" / "manifest.json").read_text())
    assert manifest["run_id"] == "cloudrun-env"
    pdfs = sorted((tmp_path / "out" / "cloudrun-env" / "documents").glob("*.pdf"))
    assert len(pdfs) == 6 and all(p.read_bytes()[:5] == b"%PDF-" for p in pdfs)
