"""The dependency lock (lock/*.txt) is the one source of versions: made from today's
pyproject.toml, hashed, one resolution across its views, satisfying every requirement, and
what the dev venv (so CI), scripts/setup-dev and the Dockerfile install."""

from __future__ import annotations

import re
import sys
from importlib import metadata

import pytest
from infra_tools import REPO
from lockfile import LOCK, VIEWS, Pin, inputs, inputs_digest, pins, recorded_digest
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from support.needs import require

REFRESH = "the lock is stale: run scripts/lock (and commit lock/) after changing dependencies"


def _applies(pin: Pin, env: dict[str, str]) -> bool:
    return pin.marker is None or Requirement(f"x ; {pin.marker}").marker.evaluate(env)  # type: ignore[union-attr]


def _requirements(extras: tuple[str, ...]) -> list[Requirement]:
    """The base dependencies plus those of ``extras``, self-references (docfleet[...])
    expanded."""
    optional: dict[str, list[str]] = inputs()["optional-dependencies"]  # type: ignore[assignment]
    out = [Requirement(r) for r in inputs()["dependencies"]]  # type: ignore[attr-defined]
    todo, seen = list(extras), set()
    while todo:
        extra = todo.pop()
        if extra in seen:
            continue
        seen.add(extra)
        for text in optional[extra]:
            req = Requirement(text)
            if canonicalize_name(req.name) == "docfleet":
                todo.extend(req.extras)
            else:
                out.append(req)
    return out


@pytest.mark.parametrize("view", sorted(VIEWS))
def test_lock_is_made_from_todays_pyproject(view: str) -> None:
    """Any edit to a dependency table (a new package, a changed bound) changes the digest;
    CI fails here until the lock is refreshed."""
    assert recorded_digest(LOCK / view) == inputs_digest(), f"{view}: {REFRESH}"


@pytest.mark.parametrize("view", sorted(VIEWS))
def test_every_pin_is_exact_and_hashed(view: str) -> None:
    entries = pins(LOCK / view)
    assert len(entries) > 20
    assert all(pin.hashes for pin in entries), [p.name for p in entries if not p.hashes]
    text = (LOCK / view).read_text()
    assert "-e " not in text and "file://" not in text and "--index-url" not in text


@pytest.mark.parametrize("view", sorted(VIEWS))
def test_each_view_satisfies_its_requirements(view: str) -> None:
    """For Python 3.11 on Linux (the image's platform) every requirement of the view's
    extras, and the build backend, is pinned at a version its specifier allows."""
    env = {**default_environment(), "python_version": "3.11", "python_full_version": "3.11.2",
           "sys_platform": "linux", "platform_system": "Linux"}
    pinned = {p.name: p.version for p in pins(LOCK / view) if _applies(p, env)}
    required = _requirements(VIEWS[view])
    required += [Requirement(r) for r in inputs()["build-system"]]  # type: ignore[attr-defined]
    wrong = []
    for req in required:
        if req.marker is not None and not req.marker.evaluate(env):
            continue
        name = canonicalize_name(req.name)
        if name not in pinned or not req.specifier.contains(pinned[name], prereleases=True):
            wrong.append(f"{req} (locked: {pinned.get(name)})")
    assert not wrong, f"{view}: {wrong}: {REFRESH}"


def test_one_resolution_across_the_views() -> None:
    """The image views are resolved under lock/dev.txt: a package has one version
    everywhere, and the full image is the generation image plus the llm extra."""
    dev = {(p.name, p.marker): p for p in pins(LOCK / "dev.txt")}
    image = {(p.name, p.marker): p for p in pins(LOCK / "image.txt")}
    full = {(p.name, p.marker): p for p in pins(LOCK / "image-full.txt")}
    for view, entries in (("image.txt", image), ("image-full.txt", full)):
        for key, pin in entries.items():
            versions = {p.version for (n, _), p in dev.items() if n == key[0]}
            assert pin.version in versions, f"{view}: {key[0]}=={pin.version}, dev has {versions}"
            same = dev.get(key)
            if same is not None:
                assert set(pin.hashes) <= set(same.hashes), f"{view}: {key[0]} hashes differ"
    assert set(image) <= set(full)
    assert "litellm" in {n for n, _ in full} and "litellm" not in {n for n, _ in image}


def test_the_dev_venv_is_the_lock() -> None:
    """scripts/setup-dev installs lock/dev.txt (CI runs in that venv): every pin that
    applies here is the installed version."""
    require(sys.prefix.startswith(str(REPO / ".venv")),
            "this checkout's .venv (scripts/setup-dev; scripts/test runs the suite in it)")
    env = default_environment()
    # the build backend is locked for the image's no-isolation build; uv builds the
    # editable install in an isolated environment of its own
    backend = {canonicalize_name(Requirement(r).name) for r in inputs()["build-system"]}  # type: ignore[attr-defined]
    off = []
    for pin in pins(LOCK / "dev.txt"):
        if not _applies(pin, env) or pin.name in backend:
            continue
        try:
            installed = metadata.version(pin.name)
        except metadata.PackageNotFoundError:
            off.append(f"{pin.name}=={pin.version} (not installed)")
            continue
        if canonicalize_name(installed) != canonicalize_name(pin.version):
            off.append(f"{pin.name}=={pin.version} (installed {installed})")
    assert not off, off


def test_setup_dev_ci_and_the_dockerfile_install_the_lock() -> None:
    setup = (REPO / "scripts" / "setup-dev").read_text()
    installs = re.findall(r"^\s*uv pip install .*-e '\.\[[^\]]+\]'.*$", setup, re.M)
    assert installs and all("-c lock/dev.txt" in line for line in installs), installs
    dockerfile = (REPO / "Dockerfile").read_text()
    assert "--require-hashes --no-deps -r lock/image.txt" in dockerfile
    assert re.search(r"--require-hashes --no-deps \\\s+-r /run/lock/image-full\.txt", dockerfile)
    assert "--no-deps --no-build-isolation --no-index ." in dockerfile
    ignore = (REPO / ".dockerignore").read_text().split()
    assert "!lock/image.txt" in ignore and "!lock/image-full.txt" in ignore
    assert "bash scripts/setup-dev" in (REPO / "scripts" / "test").read_text()
    assert "scripts/lock" in (REPO / "README.md").read_text(), "the refresh command is documented"
