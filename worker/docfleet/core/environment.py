"""The generator's environment: what made a run's bytes (docfleet, Chromium, Playwright,
Faker, fonts, …). The root manifest records it (``environment``) so two runs can be
compared, and the dataset card prints it.

Everything is read locally (package metadata, ``chromium --version``, fontconfig's
match as ``fc-match`` prints it, ``dpkg-query``); a part that is missing reads as
``null``, never an error. Cached per process: the subprocesses run once. The fonts are
matched in this process through libfontconfig (one configuration load, ~9 ms of CPU,
where eight ``fc-match`` processes took ~65 ms of the finalizer's fixed cost), with the
same answer; without the library, by ``fc-match``.
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
                 "DejaVu Serif", "DejaVu Sans Mono", "Noto Sans CJK JP", "Noto Sans Arabic",
                 "BIZ UDPGothic", "BIZ UDPMincho")
#: the Debian packages that print: Chromium (full or the headless shell: an image has one)
#: and every font package a template or the form pack's handwriting names
DEBIAN_PACKAGES = ("chromium", "chromium-headless-shell", "fonts-liberation2",
                   "fonts-dejavu-core", "fonts-noto-cjk", "fonts-noto-core",
                   "fonts-morisawa-bizud-gothic", "fonts-morisawa-bizud-mincho",
                   "fonts-breip", "fonts-dancingscript", "fonts-kacst", "fonts-kristi",
                   "fonts-seto")


def _run(*args: str, codes: tuple[int, ...] = (0,)) -> str | None:
    """What ``args`` prints, stripped; None when it cannot run or exits other than
    ``codes``."""
    if shutil.which(args[0]) is None and "/" not in args[0]:
        return None
    try:
        done = subprocess.run(args, capture_output=True, text=True, timeout=20, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode in codes else None


def _version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


#: what ``fc-match -f`` prints of a match: the family it resolved to and its file
FONT_FORMAT = "%{family[0]}|%{file}"


def _fonts() -> dict[str, str | None]:
    """family asked for → ``family|file`` fontconfig resolves it to (what prints)."""
    matched = _fontconfig_matches(FONT_FAMILIES)
    if matched is not None:
        return matched
    return {family: _run("fc-match", "-f", FONT_FORMAT, family) for family in FONT_FAMILIES}


def _fontconfig_matches(families: tuple[str, ...]) -> dict[str, str | None] | None:
    """What ``fc-match -f FONT_FORMAT family`` prints for each family, matched through
    libfontconfig in this process (parse, substitute, default-substitute, match, format:
    fc-match's own steps); ``None`` when the library cannot be loaded."""
    import ctypes  # lazy: only the finalizer reads the environment

    lib = _load_library(FONTCONFIG_SONAME, "fontconfig")
    if lib is None:
        return None
    ptr, text = ctypes.c_void_p, ctypes.c_char_p
    for fn, restype, argtypes in (
            ("FcInitLoadConfigAndFonts", ptr, []), ("FcNameParse", ptr, [text]),
            ("FcConfigSubstitute", ctypes.c_int, [ptr, ptr, ctypes.c_int]),
            ("FcDefaultSubstitute", None, [ptr]),
            ("FcFontMatch", ptr, [ptr, ptr, ctypes.POINTER(ctypes.c_int)]),
            ("FcPatternFormat", ptr, [ptr, text]), ("FcStrFree", None, [ptr]),
            ("FcPatternDestroy", None, [ptr]), ("FcConfigDestroy", None, [ptr])):
        getattr(lib, fn).restype, getattr(lib, fn).argtypes = restype, argtypes
    config = lib.FcInitLoadConfigAndFonts()
    if not config:
        return None
    found: dict[str, str | None] = {}
    try:
        for family in families:
            found[family] = None
            pattern = lib.FcNameParse(family.encode())
            if not pattern:
                continue
            lib.FcConfigSubstitute(config, pattern, 0)  # FcMatchPattern
            lib.FcDefaultSubstitute(pattern)
            match = lib.FcFontMatch(config, pattern, ctypes.byref(ctypes.c_int()))
            lib.FcPatternDestroy(pattern)
            if not match:
                continue
            formatted = lib.FcPatternFormat(match, FONT_FORMAT.encode())
            lib.FcPatternDestroy(match)
            if formatted:
                found[family] = ctypes.string_at(formatted).decode().strip()
                lib.FcStrFree(formatted)
    finally:
        lib.FcConfigDestroy(config)
    return found


#: the library's soname on Debian and most Linux: loaded by name before any search
FONTCONFIG_SONAME = "libfontconfig.so.1"


def _load_library(soname: str, name: str) -> Any:
    """The shared library ``soname`` (the dynamic loader's own search), else the one
    ``ctypes.util.find_library(name)`` finds (which runs ``ldconfig -p``, a process: the
    last resort, not the first), else ``None``."""
    import ctypes  # lazy: only the finalizer reads the environment

    try:
        return ctypes.CDLL(soname)
    except OSError:
        pass
    import ctypes.util  # lazy: only when the soname is not there

    found = ctypes.util.find_library(name)
    try:
        return ctypes.CDLL(found) if found else None
    except OSError:
        return None


def _debian(packages: tuple[str, ...] = DEBIAN_PACKAGES) -> dict[str, str]:
    """package → version of each of ``packages`` that is installed. One dpkg does not
    know is left out (``dpkg-query`` then exits 1 and still prints the others), and so
    is one removed with its configuration kept (known, not installed)."""
    out = _run("dpkg-query", "-W", "-f", "${db:Status-Abbrev}=${Package}=${Version}\\n",
               *packages, codes=(0, 1)) or ""
    found = {}
    for line in out.splitlines():
        status, _, rest = line.partition("=")
        name, _, version = rest.partition("=")
        if status.strip() == "ii" and version:
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
