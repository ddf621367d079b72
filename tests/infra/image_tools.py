"""The built worker image under test: which image (``DOCFLEET_TEST_IMAGE``, which
scripts/test sets after building it once beside the parallel pass, or one built here by
scripts/build-image), and how to run a container of it (docker where a daemon answers, else
podman, daemonless, with the runc runtime and explicit ulimits)."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from functools import cache
from pathlib import Path

from infra_tools import REPO

from support.needs import require

BUILD_IMAGE = REPO / "scripts" / "build-image"
#: the tag scripts/test builds (and this module builds when run on its own)
DEFAULT_TAG = "localhost/docfleet:test"
#: what `podman run` needs on this kind of machine (no crun; the sandbox's hard limits)
PODMAN_RUN = ["--runtime", "runc", "--ulimit", "nofile=10000:10000",
              "--ulimit", "nproc=10000:10000"]


@cache
def capability() -> tuple[int, str]:
    """``scripts/build-image --check``: 0 (containers run here), 3 (this machine truly
    cannot: the reason) or 4 (an engine is missing: setup-dev installs it)."""
    proc = subprocess.run(["bash", str(BUILD_IMAGE), "--check"], capture_output=True,
                          text=True, timeout=120)
    return proc.returncode, (proc.stdout + proc.stderr).strip()


def engine() -> str:
    """The engine that runs containers: docker with a daemon, else podman."""
    docker = shutil.which("docker")
    if docker and subprocess.run([docker, "info"], capture_output=True, timeout=60).returncode == 0:
        return "docker"
    return "podman"


def require_containers() -> None:
    """Fail under CI=true where containers cannot run here, with the reason (this machine
    truly cannot, or an engine is missing: setup-dev installs it); skip elsewhere."""
    code, why = capability()
    require(code == 0, f"a machine that runs containers ({why})" if code == 3
            else f"a container engine ({why})")


def image_exists(name: str) -> bool:
    return subprocess.run([engine(), "image", "inspect", name], capture_output=True,
                          timeout=60).returncode == 0


def image_under_test(full: bool = False) -> str:
    """The generation image (``full``: the catalogue image, NAME-full) to test: the one
    scripts/test built, else one built now (once per machine at a time: a file lock)."""
    require_containers()
    name = os.environ.get("DOCFLEET_TEST_IMAGE", "")
    if not name:
        name = DEFAULT_TAG
        lock = Path(os.environ.get("TMPDIR", "/tmp")) / "docfleet-test-image.lock"
        with lock.open("w") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            if not (image_exists(name) and image_exists(f"{name}-full")) or os.environ.get(
                    "DOCFLEET_TEST_IMAGE_REBUILD"):
                proc = subprocess.run(["bash", str(BUILD_IMAGE), "--full", "--tag", name],
                                      capture_output=True, text=True, timeout=3000)
                assert proc.returncode == 0, proc.stderr[-4000:]
    name = f"{name}-full" if full else name
    assert image_exists(name), f"{name} is not built (scripts/build-image --full --tag ...)"
    return name


def run(image: str, *args: str, mounts: dict[Path, str] | None = None,
        env: dict[str, str] | None = None, network: str = "none", entrypoint: str | None = None,
        timeout: float = 600, detach: bool = False, name: str | None = None,
        ) -> subprocess.CompletedProcess[str]:
    """``ENGINE run --rm IMAGE ARGS`` (ENTRYPOINT docfleet unless ``entrypoint``)."""
    cmd = [engine(), "run", *([] if detach else ["--rm"])]
    if engine() == "podman":
        cmd += PODMAN_RUN
    cmd += ["--network", network]
    if detach:
        cmd += ["--detach"]
    if name:
        cmd += ["--name", name]
    for host, inside in (mounts or {}).items():
        cmd += ["--volume", f"{host}:{inside}"]
    for key, value in (env or {}).items():
        cmd += ["--env", f"{key}={value}"]
    if entrypoint is not None:
        cmd += ["--entrypoint", entrypoint]
    cmd += [image, *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def container(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``ENGINE ARGS`` (kill, wait, logs, inspect, rm of a detached container)."""
    return subprocess.run([engine(), *args], capture_output=True, text=True, timeout=timeout)


def shared_dir(path: Path) -> Path:
    """A host folder the image's non-root user (10001) may write to."""
    path.mkdir(parents=True, exist_ok=True)
    path.chmod(0o777)
    return path
