"""The generator's environment recorded in the root manifest: the fonts are matched in
process through libfontconfig, and the answer is what ``fc-match`` prints for each
family the templates ask for (the record does not change with the way it is read)."""

from __future__ import annotations

import shutil
import subprocess

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
