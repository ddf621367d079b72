"""The real Chromium the render tests share: one reused headless shell per test module
(the ``chromium`` fixture in tests/conftest.py), or one of a test's own."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from docfleet.core.settings import load_settings
from docfleet.render.browser import Chromium
from support.needs import require


def chromium_browser(path: str | None = None, pages: int = 2) -> Iterator[Chromium]:
    """A started Chromium at ``path`` (default: the settings' ``chromium_path``) with
    ``pages`` reusable pages, closed when the generator ends; a missing executable fails
    under CI and skips elsewhere (:func:`support.needs.require`)."""
    path = path or load_settings().chromium_path
    require(Path(path).exists(), f"Chromium at {path}")
    browser = Chromium(path, pages=pages)
    try:
        yield browser
    finally:
        browser.close()
