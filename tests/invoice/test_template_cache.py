"""The on-disk cache of compiled templates (docfleet.render.template_cache): a second
process renders from it without compiling, the HTML is the same with or without it, and
a cache that cannot be read or written never fails a render."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

#: renders one invoice's HTML in a fresh process and says whether Jinja compiled anything
RENDER = r"""
import hashlib, json, jinja2.environment as je
from docfleet.packs.invoice.options import parse_options
from docfleet.packs.invoice.pack import InvoiceSession
compiled = []
original = je.Environment._compile
def counting(self, source, filename):
    compiled.append(filename)
    return original(self, source, filename)
je.Environment._compile = counting
session = InvoiceSession(parse_options({"conditions": "clean"}), "/nonexistent", 1)
html = session.prepare("cache-test", 3)[1]
print(json.dumps({"compiled": len(compiled), "sha": hashlib.sha256(html.encode()).hexdigest()}))
"""


def _render(cache: str) -> dict[str, object]:
    env = {**os.environ, "DOCFLEET_TEMPLATE_CACHE": cache}
    proc = subprocess.run([sys.executable, "-c", RENDER], env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_second_process_renders_from_the_cache_with_the_same_html(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = _render(str(cache))
    assert first["compiled"] > 0
    assert any(cache.iterdir()), "the first process stored its compiled templates"
    second = _render(str(cache))
    assert second["compiled"] == 0, "the second process compiled templates again"
    assert second["sha"] == first["sha"]
    assert _render("off") == {"compiled": first["compiled"], "sha": first["sha"]}


def test_a_corrupt_or_unwritable_cache_only_means_a_compile(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    reference = _render(str(cache))
    for entry in cache.iterdir():  # every entry cut short: Jinja must reject them
        entry.write_bytes(entry.read_bytes()[:20])
    assert _render(str(cache)) == reference
    blocker = tmp_path / "a-file"  # the cache "directory" is a file: nothing can be stored
    blocker.write_text("not a directory")
    assert _render(str(blocker / "cache")) == reference


@pytest.mark.parametrize("value", ["off", "OFF", "none"])
def test_the_cache_can_be_turned_off(value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from docfleet.render import template_cache

    monkeypatch.setenv("DOCFLEET_TEMPLATE_CACHE", value)
    assert template_cache.cache_dir() is None and template_cache.bytecode_cache() is None
