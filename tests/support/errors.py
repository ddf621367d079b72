"""The one assertion for docfleet's bad-input rule: a refused command prints one clear error
line (what was wrong, what to do), no traceback, exits non-zero, and leaves nothing that
looks complete."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

#: A line that reports an error: docfleet's ``error: ...``, click's usage ``Error: ...``, or
#: the header of a ``verify`` report (``verify RUN: N problem(s)``, details follow it).
ERROR_LINE = re.compile(r"^(error|Error)\b|^verify \S+: \d+ problem")
#: The lines click prints around its one usage error.
CLICK_FRAME = ("Usage:", "Try '")


def assert_one_line_error(
    result: subprocess.CompletedProcess[str], *needles: str, code: int | None = None,
    in_line: bool = True, alone: bool = False, nothing_under: Path | None = None,
) -> str:
    """Assert that ``result`` (a finished ``docfleet`` process, text mode) refused cleanly;
    return its error line.

    - exit status ``code`` (any non-zero one when ``None``);
    - no ``Traceback`` in stdout or stderr;
    - exactly one error line (:data:`ERROR_LINE`) in stdout and stderr together;
    - every needle in that line (``in_line``), else anywhere in the output (a ``verify``
      report names the problem on the lines after its header);
    - ``alone``: the line is on stderr and stderr holds nothing else (but click's usage
      frame around an ``Error:`` line);
    - ``nothing_under``: no ``manifest.json`` under that directory (nothing looks complete).
    """
    output = result.stdout + result.stderr
    if code is None:
        assert result.returncode != 0, f"exit 0, expected an error:\n{output}"
    else:
        assert result.returncode == code, (
            f"exit {result.returncode}, expected {code}:\n{output}")
    assert "Traceback" not in output, output
    errors = [line for line in output.splitlines() if ERROR_LINE.match(line)]
    assert len(errors) == 1, f"expected one error line, got {len(errors)}:\n{output}"
    (line,) = errors
    where = line if in_line else output
    for needle in needles:
        assert needle in where, f"{needle!r} not in:\n{where}"
    if alone:
        frame = CLICK_FRAME if line.startswith("Error:") else ()
        rest = [x for x in result.stderr.splitlines()
                if x.strip() and x != line and not x.startswith(frame)]
        assert line in result.stderr.splitlines() and not rest, (
            f"stderr should hold the one error line only:\n{result.stderr}")
    if nothing_under is not None:
        complete = list(nothing_under.rglob("manifest.json"))
        assert not complete, f"something looks complete: {complete}"
    return line
