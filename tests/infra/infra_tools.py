"""Shared helpers of the infrastructure tests: where the repository's deployment files are,
how to find Terraform's offline provider mirror, and the static tools' executables."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections import deque
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import hcl2

REPO = Path(__file__).resolve().parents[2]
TERRAFORM = REPO / "terraform"
TOOLS = REPO / ".venv" / "opt"  # scripts/setup-dev installs checkov and actionlint here
SKIP_DIRS = {"proc", "sys", "dev", "run", "tmp", "work", "var", "boot", "snap", "lost+found"}


def find_provider_mirror(root: Path = Path("/"), max_depth: int = 4) -> Path | None:
    """The parent of the first folder named ``registry.terraform.io`` near ``root`` (a
    breadth-first search, ``max_depth`` levels down): a Terraform filesystem mirror."""
    implied = [Path.home() / ".terraform.d" / "plugins",
               Path.home() / ".local" / "share" / "terraform" / "plugins",
               Path("/usr/local/share/terraform/plugins"), Path("/usr/share/terraform/plugins")]
    for folder in implied:  # Terraform's own implied mirror locations first
        if (folder / "registry.terraform.io").is_dir():
            return folder
    queue: deque[tuple[Path, int]] = deque([(root, 0)])
    while queue:
        folder, depth = queue.popleft()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            if not entry.is_dir(follow_symlinks=False):
                continue
            if entry.name == "registry.terraform.io":
                return folder
            if depth + 1 < max_depth and not (depth == 0 and entry.name in SKIP_DIRS):
                queue.append((Path(entry.path), depth + 1))
    return None


def terraform_env(work: Path, mirror: Path) -> dict[str, str]:
    """An environment in which ``terraform`` installs providers only from ``mirror``."""
    config = work / "terraform.tfrc"
    config.write_text(
        "provider_installation {\n"
        f'  filesystem_mirror {{\n    path    = "{mirror}"\n'
        '    include = ["registry.terraform.io/*/*"]\n  }\n'
        '  direct {\n    exclude = ["registry.terraform.io/*/*"]\n  }\n}\n'
    )
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("TF_", "AWS_", "DOCFLEET_", "GOOGLE_"))}
    env.update(TF_CLI_CONFIG_FILE=str(config), TF_IN_AUTOMATION="1", TF_INPUT="0",
               CHECKPOINT_DISABLE="1", AWS_ACCESS_KEY_ID="testing",
               AWS_SECRET_ACCESS_KEY="testing", AWS_EC2_METADATA_DISABLED="true")
    return env


def terraform(args: list[str], cwd: Path, env: dict[str, str],
              timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """Run ``terraform ARGS`` in ``cwd``; raise with its output if it fails."""
    proc = subprocess.run(["terraform", *args, "-no-color"], cwd=cwd, env=env, text=True,
                          capture_output=True, timeout=timeout)
    if proc.returncode != 0:
        raise AssertionError(f"terraform {' '.join(args)} failed ({proc.returncode}):\n"
                             f"{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
    return proc


def tf_files() -> list[Path]:
    """Every ``.tf`` file of the repository's Terraform (modules and environments)."""
    return sorted(TERRAFORM.rglob("*.tf"))


def clean(value: Any) -> Any:
    """python-hcl2's output without its quoting of string literals and keys, and without
    its ``__is_block__`` / ``__comments__`` markers: plain JSON-like data."""
    if isinstance(value, dict):
        return {clean(k): clean(v) for k, v in value.items()
                if k not in ("__is_block__", "__comments__")}
    if isinstance(value, list):
        return [clean(v) for v in value]
    if isinstance(value, str) and len(value) >= 2 and value[0] == value[-1] == '"':
        return value[1:-1]
    return value


def load_hcl(path: Path) -> dict:
    """One ``.tf`` file parsed by python-hcl2, cleaned (see :func:`clean`)."""
    with path.open() as fh:
        return clean(hcl2.load(fh))


def load_dir(folder: Path) -> dict[str, list]:
    """All top-level blocks of a module folder, concatenated per block type."""
    merged: dict[str, list] = {}
    for path in sorted(folder.glob("*.tf")):
        for key, blocks in load_hcl(path).items():
            merged.setdefault(key, []).extend(blocks)
    return merged


def resources(module: dict[str, list], rtype: str) -> Iterator[tuple[str, dict]]:
    """``(name, body)`` of each resource of type ``rtype`` in a loaded module."""
    for block in module.get("resource", []):
        for kind, named in block.items():
            if kind == rtype:
                yield from named.items()


def tool(name: str) -> str | None:
    """An executable from PATH, the project venv, or the tools folder setup-dev fills."""
    for candidate in (REPO / ".venv" / "bin" / name, TOOLS / "checkov" / "bin" / name,
                      TOOLS / "node" / "node_modules" / ".bin" / name):
        if candidate.exists():
            return str(candidate)
    return shutil.which(name)
