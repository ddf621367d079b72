"""``assert_one_line_error`` is not vacuous: it passes a clean refusal and rejects a zero
exit, the wrong code, a traceback, two error lines, a needle elsewhere, a noisy stderr
and an output that looks complete."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from support.errors import assert_one_line_error


def done(code: int, stderr: str, stdout: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.CompletedProcess(["docfleet"], code, stdout, stderr)


CLICK = ("Usage: docfleet work [OPTIONS]\nTry 'docfleet work --help' for help.\n\n"
         "Error: Invalid value for '--total': 'many' is not a valid integer.\n")


def test_a_clean_refusal_passes_and_returns_its_line(tmp_path: Path) -> None:
    line = assert_one_line_error(done(2, "error: total: must be >= 1\n"), "total", code=2,
                                 alone=True, nothing_under=tmp_path)
    assert line == "error: total: must be >= 1"
    assert assert_one_line_error(done(2, CLICK), "not a valid integer", alone=True) \
        .startswith("Error:")
    report = "verify r1: 1 problem(s)\n  unit 1: 000012.json does not match\n"
    assert_one_line_error(done(1, "", report), "000012.json", code=1, in_line=False)


@pytest.mark.parametrize(("result", "kw"), [
    (done(0, "error: x\n"), {}),
    (done(4, "error: x\n"), {"code": 2}),
    (done(2, "Traceback (most recent call last):\nerror: x\n"), {}),
    (done(2, "error: x\nerror: y\n"), {}),
    (done(2, "nothing that reads as an error\n"), {}),
    (done(2, "error: x\n", "total\n"), {"needles": ("total",)}),
    (done(2, "warning: something\nerror: x\n"), {"alone": True}),
    (done(2, "Usage: docfleet\nerror: x\n"), {"alone": True}),  # click's frame, not click's
])
def test_every_broken_rule_fails(result: subprocess.CompletedProcess[str],
                                 kw: dict) -> None:
    needles = kw.pop("needles", ())
    with pytest.raises(AssertionError):
        assert_one_line_error(result, *needles, **kw)


def test_an_output_that_looks_complete_fails(tmp_path: Path) -> None:
    (tmp_path / "r1").mkdir()
    (tmp_path / "r1" / "manifest.json").write_text("{}")
    with pytest.raises(AssertionError, match="looks complete"):
        assert_one_line_error(done(2, "error: x\n"), nothing_under=tmp_path)
