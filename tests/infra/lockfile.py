"""The dependency lock (lock/*.txt, written by scripts/lock) read back: what it was made
from (``inputs_digest``: a sha256 of pyproject's dependency tables), its pins and their
hashes. Standard library only: scripts/lock runs it with the machine's python3.

    python3 tests/infra/lockfile.py digest          the inputs digest of pyproject.toml
    python3 tests/infra/lockfile.py build-requires  [build-system] requires, one a line
    python3 tests/infra/lockfile.py version         the project's version
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LOCK = REPO / "lock"
#: the lock's views (scripts/lock): file -> the extras it holds (besides the base set)
#: the generation image: what a document task needs (no litellm, no duckdb)
IMAGE_EXTRAS = ("gcp", "aws", "render", "postgres")
#: the full (catalogue) image adds these
FULL_EXTRAS = ("llm", "export")
VIEWS: dict[str, tuple[str, ...]] = {
    "dev.txt": ("all", "test"),
    "image.txt": IMAGE_EXTRAS,
    "image-full.txt": (*IMAGE_EXTRAS, *FULL_EXTRAS),
}
_PIN = re.compile(
    r"^([A-Za-z0-9][A-Za-z0-9._-]*)(\[[^\]]*\])?==([^\s;]+)\s*(;.*?)?(?=\s+--hash|\s*$)")


def inputs(pyproject: Path = REPO / "pyproject.toml") -> dict[str, object]:
    """What the lock is resolved from: every dependency table of pyproject.toml."""
    data = tomllib.loads(pyproject.read_text())
    project = data["project"]
    return {
        "requires-python": project.get("requires-python"),
        "dependencies": project.get("dependencies", []),
        "optional-dependencies": project.get("optional-dependencies", {}),
        "build-system": data.get("build-system", {}).get("requires", []),
    }


def inputs_digest(pyproject: Path = REPO / "pyproject.toml") -> str:
    """sha256 of ``inputs`` as canonical JSON: any edit to a dependency changes it."""
    blob = json.dumps(inputs(pyproject), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()


def recorded_digest(lock_file: Path) -> str | None:
    """The inputs digest scripts/lock wrote on the file's first line."""
    first = lock_file.read_text().splitlines()[:1]
    match = re.match(r"# inputs-sha256: ([0-9a-f]{64})$", first[0]) if first else None
    return match.group(1) if match else None


@dataclass(frozen=True)
class Pin:
    """One pinned line: ``name==version ; marker`` and its ``--hash`` values."""

    name: str  # normalised (PEP 503)
    version: str
    marker: str | None
    hashes: tuple[str, ...]


def pins(lock_file: Path) -> list[Pin]:
    """Every pinned requirement of a lock file, in order (a package resolved differently
    per Python version appears once per marker)."""
    out: list[Pin] = []
    entry: list[str] = []
    for line in [*lock_file.read_text().splitlines(), ""]:
        if entry and not line.startswith((" ", "\t")):
            text = " ".join(part.strip().rstrip("\\") for part in entry)
            match = _PIN.match(text)
            if match is None:
                raise ValueError(f"{lock_file.name}: not a pinned requirement: {text[:120]}")
            marker = match.group(4)[1:].strip() if match.group(4) else None
            out.append(Pin(re.sub(r"[-_.]+", "-", match.group(1)).lower(), match.group(3),
                           marker, tuple(re.findall(r"--hash=sha256:([0-9a-f]{64})", text))))
            entry = []
        if line and not line.lstrip().startswith("#") and not line.startswith((" ", "\t")):
            entry = [line]
        elif entry and line.strip() and not line.lstrip().startswith("#"):
            entry.append(line)
    return out


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


if __name__ == "__main__":
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    if command == "digest":
        print(inputs_digest())
    elif command == "version":
        print(tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"])
    elif command == "build-requires":
        print("\n".join(inputs()["build-system"]))  # type: ignore[arg-type]
    else:
        sys.exit("usage: lockfile.py digest|build-requires|version")
