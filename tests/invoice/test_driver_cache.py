"""The browser driver's compile cache (docfleet.render.driver_cache): a real task's driver
leaves its compiled code there and the next task's driver accepts it (Node's own
compile-cache log), the documents are the same bytes cold or warm, a cache that cannot
be written never fails a task, and an operator's NODE_COMPILE_CACHE or ``off`` wins."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from docfleet.core.settings import load_settings
from docfleet.render import driver_cache
from support.needs import require


def require_chromium() -> None:
    path = load_settings().chromium_path
    require(Path(path).exists(), f"Chromium at {path}")


def _task(tmp: Path, name: str, cache: str, debug: bool = False
          ) -> tuple[subprocess.CompletedProcess[str], str]:
    """One real ``docfleet work`` of one clean invoice (run id ``dc``) into ``tmp/name``:
    the process and its PDF's sha256."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("DOCFLEET_") and k != "NODE_COMPILE_CACHE"}
    env |= {"DOCFLEET_DRIVER_CACHE": cache, "DOCFLEET_LOG_FORMAT": "json"}
    if debug:
        env["NODE_DEBUG_NATIVE"] = "COMPILE_CACHE"
    out = tmp / name
    proc = subprocess.run(
        [sys.executable, "-m", "docfleet", "work", "--run-id", "dc", "--total", "1",
         "--state", f"sqlite:///{out}.db", "--out", f"file://{out}",
         "--option", "conditions=clean"],
        env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    [pdf] = (out / "dc" / "documents").glob("*.pdf")
    return proc, hashlib.sha256(pdf.read_bytes()).hexdigest()


def test_a_task_leaves_the_drivers_code_and_the_next_task_reads_it(tmp_path: Path) -> None:
    require_chromium()
    cache = tmp_path / "cache"
    _, cold = _task(tmp_path, "cold", str(cache))
    assert [p for p in cache.rglob("*") if p.is_file()], "the driver stored no compiled code"
    warm_proc, warm = _task(tmp_path, "warm", str(cache), debug=True)
    accepted = re.findall(r"V8 code cache for \S+ (\S+) was accepted", warm_proc.stderr)
    assert any(p.endswith("playwright/driver/package/cli.js") for p in accepted), \
        warm_proc.stderr[-3000:]
    assert warm == cold, "the same document printed other bytes with a warm driver cache"


def test_a_cache_that_cannot_be_written_only_means_a_compile(tmp_path: Path) -> None:
    require_chromium()
    blocker = tmp_path / "a-file"  # the cache "directory" is a file: nothing can be stored
    blocker.write_text("not a directory")
    _task(tmp_path, "blocked", str(blocker / "cache"))
    assert blocker.read_text() == "not a directory"


def test_an_operators_node_compile_cache_wins_and_off_sets_nothing(tmp_path: Path) -> None:
    own = {"NODE_COMPILE_CACHE": "/srv/node-cache", "DOCFLEET_DRIVER_CACHE": str(tmp_path)}
    assert driver_cache.use_driver_cache(own) == "/srv/node-cache"
    assert own["NODE_COMPILE_CACHE"] == "/srv/node-cache"
    for value in ("off", "OFF", "none"):
        env = {"DOCFLEET_DRIVER_CACHE": value}
        assert driver_cache.use_driver_cache(env) is None and "NODE_COMPILE_CACHE" not in env
    env = {"DOCFLEET_DRIVER_CACHE": str(tmp_path / "here")}
    assert driver_cache.use_driver_cache(env) == str(tmp_path / "here")
    assert driver_cache.use_driver_cache(env) == str(tmp_path / "here")  # idempotent
    assert not (tmp_path / "here").exists(), "setting the variable touches no file"


@pytest.mark.parametrize(("xdg", "expected"), [
    ("/var/cache/x", Path("/var/cache/x/docfleet/driver")),
    ("", Path.home() / ".cache" / "docfleet" / "driver"),
])
def test_the_default_lives_in_the_users_cache(xdg: str, expected: Path) -> None:
    env = {"XDG_CACHE_HOME": xdg} if xdg else {}
    assert driver_cache.cache_dir(env) == expected
    assert driver_cache.use_driver_cache(env) == str(expected)
