"""The generator's environment: what made a run's bytes (docfleet, Chromium, Playwright,
Faker, fonts, …). The root manifest records it (``environment``) so two runs can be
compared, and the dataset card prints it.

Everything is read locally (package metadata, ``chromium --version``, ``fc-match``,
``dpkg-query``); a part that is missing reads as ``null``, never an error. Cached per
process: the subprocesses run once.
"""

from __future__ import annotations

import platform
import shutil
import subprocess
from functools import cache
from importlib import metadata
from typing import Any

from docfleet.core.settings import load_settings

PACKAGES = ("docfleet", "playwright", "faker", "jinja2", "pypdfium2", "pillow", "pyarrow")
#: the font families the templates ask for (archetypes) and the script fallbacks
FONT_FAMILIES = ("Liberation Sans", "Liberation Serif", "Liberation Mono", "DejaVu Sans",
                 "DejaVu Serif", "DejaVu Sans Mono", "Noto Sans CJK JP", "Noto Sans Arabic")
DEBIAN_PACKAGES = ("chromium", "chromium-headless-shell", "fonts-liberation2",
                   "fonts-dejavu-core", "fonts-noto-cjk", "fonts-noto-core")


def _run(*args: str) -> str | None:
    if shutil.which(args[0]) is None and "/" not in args[0]:
        return None
    try:
        done = subprocess.run(args, capture_output=True, text=True, timeout=20, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def _version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def _fonts() -> dict[str, str | None]:
    """family asked for → ``family|file`` fontconfig resolves it to (what prints)."""
    return {family: _run("fc-match", "-f", "%{family[0]}|%{file}", family)
            for family in FONT_FAMILIES}


def _debian() -> dict[str, str]:
    out = _run("dpkg-query", "-W", "-f", "${Package}=${Version}\\n", *DEBIAN_PACKAGES) or ""
    found = {}
    for line in out.splitlines():
        name, _, version = line.partition("=")
        if version:
            found[name] = version
    return found


@cache
def generator_environment(chromium_path: str | None = None) -> dict[str, Any]:
    """The environment of this process (see the module docstring). ``chromium_path``
    defaults to the settings' ``chromium_path``."""
    if chromium_path is None:
        chromium_path = load_settings().chromium_path
    return {
        "python": platform.python_version(),
        "platform": f"{platform.system()} {platform.release()} {platform.machine()}",
        "packages": {name: _version(name) for name in PACKAGES},
        "chromium": _run(chromium_path, "--version"),
        "fonts": _fonts(),
        "debian": _debian(),
    }
