"""The built image, run as containers (scripts/build-image; scripts/test builds it once
beside the parallel pass and runs these after it with DOCFLEET_TEST_IMAGE): a 2-task fleet
on SQLite and `verify`, SIGTERM through tini releasing the unit within Cloud Run's 10 s,
`docfleet --version` and the lock matching this checkout, the catalogue image's litellm,
and what the image must not hold (build secrets, Mesa/LLVM)."""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import time
import uuid
from pathlib import Path

import pytest
from image_tools import container, engine, image_under_test, run, shared_dir
from infra_tools import REPO
from lockfile import file_sha256
from pypdf import PdfReader
from pypdf.generic import DictionaryObject, IndirectObject

from docfleet.core.models import UnitState
from docfleet.state import open_state_store
from support.errors import assert_one_line_error
from support.fleet import cli

pytestmark = [pytest.mark.image, pytest.mark.fleet]
VERSION = __import__("tomllib").loads((REPO / "pyproject.toml").read_text())["project"]["version"]


@pytest.fixture(scope="module")
def image() -> str:
    return image_under_test()


@pytest.fixture(scope="module")
def full_image() -> str:
    return image_under_test(full=True)


def _sources_digest(root: Path) -> str:
    """sha256 over every .py and template of the package, by relative path."""
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.suffix in (".py", ".j2")
                       and "__pycache__" not in p.parts):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


_IMAGE_DIGEST = """
import hashlib, pathlib, docfleet
root = pathlib.Path(docfleet.__file__).parent
d = hashlib.sha256()
files = [p for p in root.rglob('*') if p.suffix in ('.py', '.j2') and '__pycache__' not in p.parts]
for p in sorted(files):
    d.update(str(p.relative_to(root)).encode() + b'\\0' + p.read_bytes())
print(d.hexdigest())
"""


def test_version_lock_and_sources_match_the_checkout(image: str, full_image: str) -> None:
    version = run(image, "--version", timeout=120)
    assert version.returncode == 0, version.stderr
    assert version.stdout.strip() == f"docfleet, version {VERSION}"
    lock = run(image, "/opt/docfleet/LOCK.sha256", entrypoint="cat")
    assert lock.stdout.split() == [file_sha256(REPO / "lock" / "image.txt"), "lock/image.txt"]
    full_lock = run(full_image, "/opt/docfleet/LOCK.sha256", entrypoint="cat")
    assert full_lock.stdout.split()[2:] == [file_sha256(REPO / "lock" / "image-full.txt"),
                                            "lock/image-full.txt"]
    for name, lock_file in ((image, "lock/image.txt"), (full_image, "lock/image-full.txt")):
        inspect = json.loads(container("image", "inspect", name).stdout)[0]
        labels = (inspect.get("Config") or {}).get("Labels") or inspect.get("Labels") or {}
        assert labels.get("io.docfleet.lock") == lock_file, (name, labels)
        assert labels.get("org.opencontainers.image.version") == VERSION, (name, labels)
    sources = run(image, "-c", _IMAGE_DIGEST, entrypoint="/opt/docfleet/bin/python")
    assert sources.returncode == 0, sources.stderr
    assert sources.stdout.strip() == _sources_digest(REPO / "worker" / "docfleet"), (
        "the image holds other sources than this checkout: rebuild it (scripts/build-image)")


def _fonts(pdf: Path) -> set[str]:
    """The fonts a PDF embeds: every FontDescriptor's FontName, subset prefix dropped."""
    reader = PdfReader(pdf)
    numbers = set(reader.xref_objStm)
    for table in reader.xref.values():
        numbers |= set(table)
    names = set()
    for number in numbers:
        obj = reader.get_object(IndirectObject(number, 0, reader))
        if isinstance(obj, DictionaryObject) and obj.get("/Type") == "/FontDescriptor":
            names.add(str(obj["/FontName"]).lstrip("/").split("+")[-1])
    return names


@pytest.mark.timeout(1500)
def test_a_two_task_fleet_on_sqlite_completes_and_verifies(image: str, tmp_path: Path) -> None:
    """`docfleet run --tasks 2` inside one container, one invoice per locale (cover):
    both tasks start and share the run (one plans it, each unit is done once), `verify`
    passes in the container and on the host, and no document falls back to another font
    than the same run prints with on this machine, whose fonts-noto-core is whole (the
    image keeps only the families that print)."""
    data = shared_dir(tmp_path / "data")
    args = ["run", "--run-id", "fleet", "--total", "10", "--unit-size", "5", "--tasks", "2",
            "--option", "cover=locales", "--option", "conditions=clean:1"]
    fleet = run(image, *args, "--state", "sqlite:////data/state.db", "--out", "file:///data/out",
                "--log-dir", "/data/logs", mounts={data: "/data"}, timeout=900)
    assert fleet.returncode == 0, f"{fleet.stdout[-3000:]}\n{fleet.stderr[-3000:]}"
    verify = run(image, "verify", "fleet", "--out", "file:///data/out",
                 "--state", "sqlite:////data/state.db", mounts={data: "/data"})
    assert verify.returncode == 0, verify.stdout + verify.stderr
    root = json.loads((data / "out" / "fleet" / "manifest.json").read_text())
    assert root["units"] == 2 and len(root["parts"]) == 2
    # the image's Debian packages that print, recorded though full chromium is absent
    debian = root["environment"]["debian"]
    assert "chromium" not in debian and debian.get("chromium-headless-shell"), debian
    assert {"fonts-noto-cjk", "fonts-liberation2", "fonts-kristi"} <= set(debian), debian
    assert root["environment"]["chromium"].startswith("Chromium "), root["environment"]
    pdfs = sorted((data / "out" / "fleet" / "documents").glob("*.pdf"))
    assert len(pdfs) == 10 and all(p.read_bytes()[:5] == b"%PDF-" for p in pdfs)
    # Both tasks ran in the container and shared one run: one planned it, each unit was
    # done once. Which task drained which unit is the scheduler's business (on a loaded
    # machine the first task up may take both before its peer's browser starts).
    events: dict[str, list[dict]] = {}
    for log in sorted((data / "logs").glob("task-*.log")):
        events[log.name] = [json.loads(line) for line in log.read_text().splitlines()
                            if line.startswith("{")]
    assert set(events) == {"task-0.log", "task-1.log"}, sorted(events)
    for name, lines in events.items():
        assert any(e.get("event") == "task.start" for e in lines), f"{name} never started"
    every = [e for lines in events.values() for e in lines]
    assert sum(e.get("event") == "plan.won" for e in every) == 1, "one task planned the run"
    done = sorted(e["unit"] for e in every if e.get("event") == "unit.done")
    assert done == [0, 1], f"each unit done exactly once: {done}"
    # the host's docfleet reads the container's outputs as its own
    assert cli("verify", "fleet", "--out", f"file://{data / 'out'}").returncode == 0
    host = tmp_path / "host"
    here = cli(*args, "--state", f"sqlite:///{host / 'state.db'}", "--out",
               f"file://{host / 'out'}", "--log-dir", str(host / "logs"), timeout=900)
    assert here.returncode == 0, here.stderr[-3000:]
    # A font the image lacks (this machine may have more, e.g. fonts-dejavu-extra's
    # weights) may be missing from a document; any other difference is a fallback the
    # image's fonts forced.
    files = run(image, "/usr/share/fonts", "-type", "f", entrypoint="find").stdout.split()
    shipped = {Path(f).stem for f in files}
    for pdf in pdfs:
        inside, outside = _fonts(pdf), _fonts(host / "out" / "fleet" / "documents" / pdf.name)
        assert inside <= outside, f"{pdf.name}: {sorted(inside - outside)} only in the image"
        assert not (outside - inside) & shipped, f"{pdf.name}: {sorted(outside - inside)}"
    printed = {f for p in pdfs for f in _fonts(p)}
    # ja-JP in the newest content: a BIZ UD font the PDF embeds, no Noto CJK drawn as Type 3
    assert any(f.startswith("BIZUDP") for f in printed), f"ja-JP printed with BIZ UD: {printed}"
    assert not any("CJK" in f for f in printed), printed


@pytest.mark.timeout(300)
def test_sigterm_through_tini_releases_the_unit_within_10_s(image: str, tmp_path: Path) -> None:
    """What Cloud Run does to a task it stops: SIGTERM to the container's PID 1, SIGKILL
    10 s later. The worker releases its unit at once and the container exits 143."""
    data = shared_dir(tmp_path / "data")
    name = f"docfleet-sigterm-{uuid.uuid4().hex[:8]}"
    env = {"DOCFLEET_RUN_ID": "term", "DOCFLEET_TOTAL": "400", "DOCFLEET_UNIT_SIZE": "400",
           "DOCFLEET_PACK": "bench", "DOCFLEET_BENCH_DOC_MS": "100",  # a 40 s unit
           "DOCFLEET_LEASE_SECONDS": "120",
           "DOCFLEET_STATE": "sqlite:////data/state.db", "DOCFLEET_OUT": "file:///data/out"}
    started = run(image, mounts={data: "/data"}, env=env, detach=True, name=name)
    assert started.returncode == 0, started.stderr
    try:
        deadline = time.monotonic() + 120
        claimed = False
        while time.monotonic() < deadline and not claimed:
            logs = container("logs", name).stdout + container("logs", name).stderr
            claimed = '"unit.claim"' in logs
            time.sleep(0.5)
        assert claimed, f"no unit claimed: {logs[-2000:]}"
        sent = time.monotonic()
        assert container("kill", "--signal", "TERM", name).returncode == 0
        waited = container("wait", name, timeout=30)
        elapsed = time.monotonic() - sent
        code = int(waited.stdout.strip().splitlines()[-1])
        logs = container("logs", name).stdout + container("logs", name).stderr
        assert code == 143, logs[-2000:]
        assert elapsed < 10, f"exited {elapsed:.1f} s after SIGTERM"
        assert '"lease.release"' in logs
    finally:
        container("rm", "--force", name)
    unit = open_state_store(f"sqlite:///{data / 'state.db'}").units("term")[0]
    # a lease of 120 s: PENDING now only because the unit was released
    assert unit.state == UnitState.PENDING and unit.attempts == 0
    with sqlite3.connect(data / "state.db") as db:  # nothing half-done left behind
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)


def test_the_catalogue_image_has_litellm_and_the_generation_image_does_not(
    image: str, full_image: str, tmp_path: Path
) -> None:
    probe = "import importlib.util as u; print(u.find_spec('litellm') is not None)"
    assert run(image, "-c", probe, entrypoint="/opt/docfleet/bin/python").stdout.strip() == "False"
    data = shared_dir(tmp_path / "data")
    refused = run(image, "catalogue", "build", "--run-id", "cat", "--model", "openai/m",
                  "--price", "openai/m=1,1", "--budget-usd", "1", "--state",
                  "sqlite:////data/state.db", "--out", "file:///data/out", mounts={data: "/data"})
    assert_one_line_error(refused, "needs litellm", "-full", code=2, nothing_under=data)
    assert not (data / "state.db").exists(), "nothing planned"
    offline = run(full_image, "-c", "from docfleet.catalogue.llm import litellm_module; "
                  "print(litellm_module().__name__)", entrypoint="/opt/docfleet/bin/python",
                  timeout=300)
    assert offline.returncode == 0 and offline.stdout.strip().endswith("litellm"), offline.stderr


def test_a_task_driver_reads_the_compiled_code_the_build_left(image: str) -> None:
    """The smoke step's driver left its compiled modules in the image's driver cache, and
    a task's driver (``NODE_COMPILE_CACHE`` set by the entry point) accepts them: Node's
    own compile-cache log, not a timing."""
    probe = ("from docfleet.render.driver_cache import use_driver_cache\n"
             "print(use_driver_cache())\n"
             "from playwright.sync_api import sync_playwright\n"
             "with sync_playwright():\n    pass\n")
    check = run(image, "-c", probe, entrypoint="/opt/docfleet/bin/python",
                env={"NODE_DEBUG_NATIVE": "COMPILE_CACHE"}, timeout=120)
    assert check.returncode == 0, check.stderr[-2000:]
    assert check.stdout.strip() == "/opt/docfleet/driver-cache"
    accepted = re.findall(r"V8 code cache for \S+ (\S+) was accepted", check.stderr)
    assert any(path.endswith("playwright/driver/package/cli.js") for path in accepted), \
        check.stderr[-2000:]
    assert "rejected" not in check.stderr, check.stderr[-2000:]


def test_the_image_holds_no_build_secret_and_no_mesa(image: str, full_image: str) -> None:
    """pip's index and CA settings came in as build secrets: no pip config, no mounted
    CA, no PIP_* variable is left; Mesa and LLVM are not in the image."""
    for name in (image, full_image):
        check = run(name, "-c", (
            "test ! -e /etc/pip.conf && test ! -e /etc/xdg/pip && test ! -e /root/.config/pip"
            " && test -z \"$(ls -A /run/secrets 2>/dev/null)\""
            " && ! env | grep -q '^PIP_\\(INDEX\\|EXTRA\\|CERT\\|TRUSTED\\)'"
            " && ! ls /usr/lib/x86_64-linux-gnu/libLLVM* /usr/lib/*/dri/*_dri.so 2>/dev/null"
            " && echo clean"), entrypoint="/bin/sh")
        assert check.stdout.strip() == "clean", f"{name}: {check.stdout}{check.stderr}"
    history = container("history", "--no-trunc", "--format", "{{.CreatedBy}}", image).stdout
    host_ca = Path("/etc/ssl/certs/ca-certificates.crt")
    if host_ca.exists():
        assert host_ca.read_text()[:200] not in history


def test_generation_image_size_is_within_1_2_gb(image: str) -> None:
    inspect = json.loads(container("image", "inspect", image).stdout)[0]
    size = int(inspect["Size"])
    assert size <= 1_200_000_000, f"{image}: {size / 1e6:.0f} MB (goal <= 1200 MB)"
    assert engine() in ("docker", "podman")
