"""Every numeric setting is checked for range and finiteness, through the real CLI: one
line naming the value, a flag or variable that exists, and what to do; nothing planned."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from docfleet.core.settings import FLAGS, Settings
from support.fleet import cli

EXISTING_FLAGS = set(FLAGS.values()) | {"--tasks", "--log-dir", "--dry-run"}


def _base(tmp_path: Path) -> list[str]:
    return ["--run-id", "v1", "--total", "10", "--pack", "bench",
            "--state", f"sqlite:///{tmp_path}/s.db", "--out", f"file://{tmp_path}/out"]


def _assert_one_clear_line(result, *needles: str) -> None:
    assert result.returncode == 2, (result.stdout, result.stderr)
    text = result.stderr.strip()
    assert "Traceback" not in result.stderr + result.stdout
    assert len(text.splitlines()) == 1, text
    for needle in needles:
        assert needle in text, text
    for flag in re.findall(r"--[a-z][a-z-]+", text):  # never a flag that does not exist
        assert flag in EXISTING_FLAGS, (flag, text)
    assert "EnvSettingsSource" not in text and "DOCFLEET_SETTINGS" not in text


@pytest.mark.parametrize(("env", "needles"), [
    ({"DOCFLEET_LEASE_SECONDS": "inf"}, ["lease_seconds: must be a finite number",
                                         "DOCFLEET_LEASE_SECONDS"]),
    ({"DOCFLEET_LEASE_SECONDS": "nan"}, ["must be a finite number"]),
    ({"DOCFLEET_LEASE_SECONDS": "-1"}, ["lease_seconds", "greater than 0"]),
    ({"DOCFLEET_POLL_SECONDS": "0"}, ["poll_seconds", "DOCFLEET_POLL_SECONDS"]),
    ({"DOCFLEET_POLL_SECONDS": "-inf"}, ["poll_seconds", "DOCFLEET_POLL_SECONDS"]),
    ({"DOCFLEET_LINGER_SECONDS": "-2"}, ["linger_seconds", "DOCFLEET_LINGER_SECONDS"]),
    ({"DOCFLEET_LINGER_SECONDS": "inf"}, ["linger_seconds", "finite"]),
    ({"DOCFLEET_HEARTBEAT_SECONDS": "nan"}, ["heartbeat_seconds", "finite"]),
    ({"DOCFLEET_STORE_RETRY_SECONDS": "-3"}, ["store_retry_seconds",
                                              "DOCFLEET_STORE_RETRY_SECONDS"]),
    ({"DOCFLEET_STORE_RETRY_SECONDS": "inf"}, ["store_retry_seconds", "finite"]),
    ({"DOCFLEET_RENDER_PAGES": "0"}, ["render_pages", "DOCFLEET_RENDER_PAGES"]),
    ({"DOCFLEET_MAX_ATTEMPTS": "0"}, ["max_attempts", "DOCFLEET_MAX_ATTEMPTS"]),
    ({"DOCFLEET_HEARTBEAT_SECONDS": "40"}, ["DOCFLEET_HEARTBEAT_SECONDS=40",
                                            "not shorter than the lease",
                                            "DOCFLEET_LEASE_SECONDS"]),
    ({"DOCFLEET_OPTIONS": "{bad"}, ["DOCFLEET_OPTIONS (the pack options) is not valid JSON",
                                    "--option"]),
    ({"DOCFLEET_LOG_FORMAT": "xml"}, ["log_format", "DOCFLEET_LOG_FORMAT"]),
    ({"DOCFLEET_BENCH_DOC_MS": "inf"}, ["DOCFLEET_BENCH_DOC_MS='inf' is not a number of "
                                        "milliseconds"]),
    ({"DOCFLEET_BENCH_FAIL_RATE": "2"}, ["DOCFLEET_BENCH_FAIL_RATE='2' is not a fraction"]),
])
@pytest.mark.parametrize("command", ["work", "run"])
def test_a_bad_variable_is_one_clear_line_and_plans_nothing(
    tmp_path: Path, command: str, env: dict[str, str], needles: list[str]
) -> None:
    result = cli(command, *_base(tmp_path), env=env)
    _assert_one_clear_line(result, *needles)
    if (tmp_path / "s.db").exists():  # a pack's own knob is checked once the store is open
        status = cli("status", "v1", "--state", f"sqlite:///{tmp_path}/s.db")
        assert "does not exist" in status.stderr  # …and still before planning
    assert not [p for p in (tmp_path / "out").rglob("*") if p.is_file()]


@pytest.mark.parametrize(("args", "needles"), [
    (["--unit-size", "5000"], ["unit_size", "less than or equal to 1000", "--unit-size"]),
    (["--unit-size", "0"], ["unit_size", "--unit-size"]),
    (["--lease-seconds", "inf"], ["lease_seconds", "finite", "--lease-seconds"]),
    (["--lease-seconds", "nan"], ["lease_seconds", "finite"]),
    (["--max-attempts", "-1"], ["max_attempts", "--max-attempts"]),
    (["--total", "0"], ["total", "--total"]),
])
def test_a_bad_flag_names_the_flag(tmp_path: Path, args: list[str], needles: list[str]) -> None:
    result = cli("run", *_base(tmp_path), *args)
    _assert_one_clear_line(result, *needles)


def test_a_bad_retry_parameter_in_a_uri_is_one_clear_line(tmp_path: Path) -> None:
    result = cli("work", "--run-id", "v1", "--total", "4", "--pack", "bench",
                 "--state", f"sqlite:///{tmp_path}/s.db",
                 "--out", "s3://bucket/x?endpoint=http://127.0.0.1:1&retry_seconds=soon")
    _assert_one_clear_line(result, "?retry_seconds='soon'", "fix ?retry_seconds=")


def test_every_numeric_setting_is_bounded_and_finite() -> None:
    """A new numeric setting must say its range: no float without allow_inf_nan=False, no
    number without a lower bound."""
    for name, field in Settings.model_fields.items():
        kinds = str(field.annotation)
        if "float" not in kinds and "int" not in kinds:
            continue
        meta = {type(m).__name__: m for m in field.metadata}
        assert {"Ge", "Gt"} & set(meta), f"{name} has no lower bound"
        assert {"Le", "Lt"} & set(meta), f"{name} has no upper bound"
        if "float" in kinds:
            assert any(getattr(m, "allow_inf_nan", None) is False for m in field.metadata), name


@pytest.mark.parametrize(("var", "value"), [
    ("DOCFLEET_CATALOGUE_CALL_TIMEOUT", "inf"), ("DOCFLEET_CATALOGUE_BACKOFF_BASE", "-1"),
    ("DOCFLEET_CATALOGUE_RESERVATION_TTL", "nan"), ("DOCFLEET_CATALOGUE_CONCURRENCY", "0"),
])
def test_a_bad_catalogue_variable_is_refused_before_planning(
    tmp_path: Path, var: str, value: str
) -> None:
    result = cli("catalogue", "build", "--run-id", "c1", "--model", "openai/gpt-4o-mini",
                 "--state", f"sqlite:///{tmp_path}/s.db", "--out", f"file://{tmp_path}/out",
                 env={var: value})
    _assert_one_clear_line(result, var)
    status = cli("status", "c1", "--state", f"sqlite:///{tmp_path}/s.db")
    assert "does not exist" in status.stderr  # nothing was planned
