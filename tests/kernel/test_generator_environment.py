"""The generator's environment recorded in the root manifest: the fonts are matched in
process through libfontconfig, and the answer is what ``fc-match`` prints for each
family the templates ask for (the record does not change with the way it is read)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from docfleet.core import environment
from support.needs import require


def test_in_process_font_matches_are_what_fc_match_prints() -> None:
    require(shutil.which("fc-match") is not None, "fontconfig's fc-match")
    matched = environment._fontconfig_matches(environment.FONT_FAMILIES)
    require(matched is not None, "libfontconfig")
    printed = {family: subprocess.run(["fc-match", "-f", environment.FONT_FORMAT, family],
                                      capture_output=True, text=True, check=True
                                      ).stdout.strip()
               for family in environment.FONT_FAMILIES}
    assert matched == printed
    assert all(value and "|/" in value for value in printed.values())
    assert environment._fonts() == printed


def test_fontconfig_loads_by_soname_without_a_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """The library is loaded by its soname first: ``find_library`` (which runs
    ``ldconfig -p``, a process in every finalizer) only when that soname is missing."""
    import ctypes
    import ctypes.util

    require(shutil.which("fc-match") is not None, "fontconfig's fc-match")

    def no_search(name: str) -> str:
        raise AssertionError(f"searched for {name}")

    with monkeypatch.context() as m:
        m.setattr(ctypes.util, "find_library", no_search)
        lib = environment._load_library(environment.FONTCONFIG_SONAME, "fontconfig")
    assert lib is not None and hasattr(lib, "FcFontMatch")
    searched = []

    def search(name: str) -> str | None:
        searched.append(name)
        return environment.FONTCONFIG_SONAME

    monkeypatch.setattr(ctypes.util, "find_library", search)
    assert environment._load_library("libdoesnotexist.so.9", "fontconfig") is not None
    assert searched == ["fontconfig"]
    monkeypatch.setattr(ctypes.util, "find_library", lambda name: None)
    assert environment._load_library("libdoesnotexist.so.9", "nothing") is None


def test_a_package_dpkg_does_not_know_leaves_the_others_recorded() -> None:
    """``dpkg-query`` exits 1 when one package is unknown (the image has no full
    ``chromium``) and still prints the others: the record keeps them."""
    require(shutil.which("dpkg-query") is not None, "Debian's dpkg-query")
    known = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "dpkg"],
                           capture_output=True, text=True, check=True).stdout.strip()
    assert known
    assert environment._debian(("dpkg",)) == {"dpkg": known}
    assert environment._debian(("docfleet-no-such-package", "dpkg")) == {"dpkg": known}
    assert environment._debian(("docfleet-no-such-package",)) == {}
    record = environment._debian()
    assert record and set(record) <= set(environment.DEBIAN_PACKAGES)
    assert environment._run("sh", "-c", "echo partial; exit 1") is None
    assert environment._run("sh", "-c", "echo partial; exit 1", codes=(0, 1)) == "partial"


def test_a_package_removed_with_its_configuration_kept_is_not_recorded(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """dpkg still knows a package removed without purge (status ``rc``) and prints its
    version; the record names only installed ones (the parsing alone, on dpkg-query's
    format: no such package is on this machine)."""
    printed = "ii =fonts-a=1.0-1\nrc =fonts-b=2.0-1\nii =fonts-c=\n"
    monkeypatch.setattr(environment, "_run", lambda *args, codes=(0,): printed.strip())
    assert environment._debian(("fonts-a", "fonts-b", "fonts-c")) == {"fonts-a": "1.0-1"}
