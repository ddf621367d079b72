"""Scenario 9: a bad-input sweep over every CLI command ``docfleet --help`` lists (found at
collection time, so a new command is swept too): malformed values, unknown URIs,
malformed environment, unknown runs, wrong or unreachable emulator credentials, a run
id reused with other parameters, a corrupt root, part or shard. Each must give one clear
error line, a non-zero exit, no traceback, and leave nothing that looks complete.
``tests/kernel/test_bad_input.py`` covers ``work``'s flags one by one; this extends it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from support.errors import assert_one_line_error
from support.fleet import start_worker, worker_env
from support.needs import require

PY = [sys.executable, "-m", "docfleet"]
NUMERIC = re.compile(r"^\s+(--[a-z][a-z0-9-]*)\s+(INTEGER|FLOAT)(?: RANGE)?\b", re.M)
#: Commands whose body is safe to reach with bad values in a test (no cloud, no LLM):
#: everything else is only fed values click rejects before the command body runs.
LOCAL = {"work", "run", "status", "verify", "pause", "resume", "cancel", "export", "score"}
#: Valid values for required options, so that the one bad value is what gets refused.
FILLERS = {"--to": "parquet://./exported", "--predictions": "preds.jsonl", "--tasks": "1"}
OPTION = re.compile(r"^  (?:-[a-z], )?(--[a-z][a-z0-9-]*)", re.M)


def _base_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOCFLEET_")}
    env["DOCFLEET_PACK"] = "bench"
    return env


def docfleet(*args: str, cwd: Path, env: dict[str, str] | None = None,
             timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([*PY, *args], cwd=cwd, env={**_base_env(), **(env or {})},
                          capture_output=True, text=True, timeout=timeout)


def _commands(prefix: tuple[str, ...] = ()) -> dict[tuple[str, ...], str]:
    """Every (sub)command with its --help text."""
    text = subprocess.run([*PY, *prefix, "--help"], capture_output=True, text=True,
                          env=_base_env(), timeout=60).stdout
    found: dict[tuple[str, ...], str] = {}
    if prefix:
        found[prefix] = text
    if "Commands:" not in text:
        return found
    for line in text.split("Commands:", 1)[1].splitlines():
        match = re.match(r"^  ([a-z][a-z0-9-]*)\s", line)
        if match:
            found.update(_commands((*prefix, match.group(1))))
    return found


def _options(text: str) -> dict[str, bool]:
    """Option name -> whether it is required, from a command's --help."""
    body = text.split("Options:", 1)[-1]
    starts = [(m.start(), m.group(1)) for m in OPTION.finditer(body)]
    spans = zip(starts, [*starts[1:], (len(body), "")], strict=False)
    return {name: "[required]" in body[a:b] for (a, name), (b, _) in spans}


COMMANDS = _commands()
assert {("work",), ("run",), ("status",), ("verify",), ("pause",), ("resume",),
        ("cancel",)} <= set(COMMANDS), sorted(COMMANDS)


def _cases() -> list[tuple[tuple[str, ...], str, list[str], str]]:
    """(command, case name, extra args, text the error must contain)."""
    cases = []
    for cmd, text in sorted(COMMANDS.items()):
        if "Commands:" in text:
            continue  # a group: its subcommands are swept
        usage = text.split("\n", 1)[0]
        takes_run = "RUN_ID" in usage
        options = _options(text)
        fill = [x for o, req in options.items() if req and o in FILLERS for x in (o, FILLERS[o])]
        run_arg = ["some-run", *fill] if takes_run else fill
        for option, kind in NUMERIC.findall(text):
            cases.append((cmd, f"{option}=not-a-number", [*run_arg, option, "12abc"],
                          f"'12abc' is not a valid {kind.lower()}"))
        if cmd[0] not in LOCAL:
            continue
        cases.append((cmd, "no arguments", [], ""))
        if "--state" in options:
            cases.append((cmd, "unknown state URI", [*run_arg, "--state", "postgres://h/db"],
                          "unknown state store URI scheme 'postgres://'"))
            # export/score read a complete run from --out alone: the state is not opened
            cases.append((cmd, "state URI without a file", [*run_arg, "--state", "sqlite:///"],
                          "" if cmd[0] in ("export", "score") else "names no database file"))
        if "--out" in options:
            cases.append((cmd, "unknown output URI", [*run_arg, "--out", "ftp://h/x"],
                          "unknown output URI scheme 'ftp://'"))
        if takes_run:
            state = ["--state", "sqlite:///s.db"] if "--state" in options else []
            cases.append((cmd, "unknown run", ["ghost-run", *fill, *state], "ghost-run"))
        if "--run-id" in options:
            cases.append((cmd, "malformed run id", ["--run-id", "bad id!", "--total", "5", *fill],
                          "run_id: must be 1-100 characters"))
        if "--to" in options:
            cases.append((cmd, "unknown export URI",
                          ["some-run", "--to", "bogus://x", "--state", "sqlite:///s.db"], ""))
    return cases


def assert_one_clear_line(result: subprocess.CompletedProcess, needle: str,
                          where: Path) -> None:
    assert_one_line_error(result, needle, in_line=False, nothing_under=where)


@pytest.mark.parametrize(("cmd", "case", "args", "needle"),
                         [pytest.param(*c, id=f"{' '.join(c[0])}: {c[1]}") for c in _cases()])
def test_every_command_refuses_bad_input_on_one_line(
    cmd: tuple[str, ...], case: str, args: list[str], needle: str, tmp_path: Path
) -> None:
    (tmp_path / "preds.jsonl").write_text('{"document": 0, "field": "total", "value": "1"}\n')
    result = docfleet(*cmd, *args, cwd=tmp_path, timeout=60)
    assert_one_clear_line(result, needle, tmp_path)


@pytest.mark.parametrize(("name", "value", "needle"), [
    ("DOCFLEET_TOTAL", "lots", "total"),
    ("DOCFLEET_LEASE_SECONDS", "-1", "lease_seconds"),
    ("DOCFLEET_HEARTBEAT_SECONDS", "99", "heartbeat_seconds must be shorter"),
    ("DOCFLEET_OPTIONS", "{not json", "options"),
    ("DOCFLEET_LOG_FORMAT", "xml", "log_format"),
    ("DOCFLEET_TASK_INDEX", "first", "DOCFLEET_TASK_INDEX"),
    ("CLOUD_RUN_TASK_INDEX", "x", "CLOUD_RUN_TASK_INDEX"),
    ("DOCFLEET_BENCH_CRASH_INDEXES", "3,x", "DOCFLEET_BENCH_CRASH_INDEXES"),
])
def test_malformed_environment_is_one_line(name: str, value: str, needle: str,
                                           tmp_path: Path) -> None:
    env = {"DOCFLEET_RUN_ID": "r1", "DOCFLEET_TOTAL": "10", "DOCFLEET_STATE": "sqlite:///s.db",
           "DOCFLEET_OUT": "file://./out", name: value}
    if name == "CLOUD_RUN_TASK_INDEX":
        env["CLOUD_RUN_TASK_COUNT"] = "2"
    assert_one_clear_line(docfleet("work", cwd=tmp_path, env=env), needle, tmp_path)


def _finished(tmp_path: Path, run_id: str = "done1") -> tuple[str, str, Path]:
    state, out = f"sqlite:///{tmp_path}/s.db", f"file://{tmp_path}/out"
    env = worker_env(state, out, run_id, 20, unit_size=5)
    assert start_worker(env, tmp_path / "w.log").wait(60) == 0
    return state, out, tmp_path / "out" / run_id


def test_run_id_reused_with_other_parameters_by_run_is_refused(tmp_path: Path) -> None:
    state, out, _ = _finished(tmp_path)
    result = docfleet("run", "--run-id", "done1", "--total", "20", "--unit-size", "4",
                      "--state", state, "--out", out, "--tasks", "1", cwd=tmp_path)
    assert_one_clear_line(result, "unit_size: stored 5 vs given 4", tmp_path / "nothing")


def test_corrupt_shard_is_named_by_verify_and_refused_by_export(tmp_path: Path) -> None:
    state, out, run_dir = _finished(tmp_path)
    shard = run_dir / "golden" / "items" / "unit-000002.parquet"
    shard.write_bytes(shard.read_bytes()[:50])
    result = docfleet("verify", "done1", "--out", out, cwd=tmp_path)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "unit 2:" in result.stderr and "unit-000002.parquet" in result.stderr
    exported = docfleet("export", "done1", "--to", f"parquet://{tmp_path}/exp", "--state",
                        state, "--out", out, cwd=tmp_path)
    assert exported.returncode != 0 and "Traceback" not in exported.stderr, exported.stderr
    assert "unit-000002.parquet" in exported.stderr or "unit 2" in exported.stderr


def test_corrupt_part_under_a_root_is_named_by_verify(tmp_path: Path) -> None:
    _, out, run_dir = _finished(tmp_path)
    part = run_dir / "manifest" / "unit-000001.json"
    part.write_bytes(b"{\"schema\": ")
    result = docfleet("verify", "done1", "--out", out, cwd=tmp_path)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "unit 1:" in result.stderr


def test_a_corrupt_root_is_not_complete_and_resume_regenerates_it(tmp_path: Path) -> None:
    """Regression: a truncated root manifest made ``status``/``work`` report COMPLETED
    while ``verify`` failed, and ``resume`` could not repair it (it only looked for gaps
    when there was no root). Now resume removes the unparsable root and a worker writes
    it again."""
    state, out, run_dir = _finished(tmp_path)
    root = run_dir / "manifest.json"
    good = root.read_bytes()
    root.write_bytes(good[:100])
    verify = docfleet("verify", "done1", "--out", out, cwd=tmp_path)
    assert verify.returncode == 1 and "is not valid JSON" in verify.stderr
    resumed = docfleet("resume", "done1", "--state", state, "--out", out, cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert "removed the root manifest" in resumed.stdout
    assert not root.exists()
    env = worker_env(state, out, "done1")
    assert start_worker(env, tmp_path / "again.log").wait(60) == 0
    assert root.read_bytes() == good, "the root is deterministic: the same bytes again"
    assert docfleet("verify", "done1", "--out", out, cwd=tmp_path).returncode == 0


# -- emulators: wrong credentials, unreachable endpoints, missing tables ----------------------
def test_wrong_credentials_for_the_dynamodb_emulator_is_one_line(tmp_path: Path) -> None:
    from support import emulators

    require(emulators.moto_available(), "moto[server] (DynamoDB/S3 emulator)")
    port = emulators.free_port()
    # moto with authentication on: the test keys are not a known identity
    moto = emulators.Emulator("moto-auth", [sys.executable, str(emulators.HERE / "moto_server.py"),
                                            str(port)], port,
                              f"http://127.0.0.1:{port}/moto-api/",
                              env={"INITIAL_NO_AUTH_ACTION_COUNT": "0"}).start()
    try:
        state = f"dynamodb://docfleet?region=us-east-1&endpoint={moto.url}"
        result = docfleet("work", "--run-id", "r1", "--total", "10", "--state", state,
                          "--out", "file://./out", cwd=tmp_path,
                          env={"AWS_ACCESS_KEY_ID": "AKIAWRONG", "AWS_SECRET_ACCESS_KEY": "x",
                               "DOCFLEET_STORE_RETRY_SECONDS": "3"})
        assert_one_clear_line(result, "InvalidClientTokenId", tmp_path)
        status = docfleet("status", "r1", "--state", state, cwd=tmp_path,
                          env={"AWS_ACCESS_KEY_ID": "AKIAWRONG", "AWS_SECRET_ACCESS_KEY": "x",
                               "DOCFLEET_STORE_RETRY_SECONDS": "3"})
        assert_one_clear_line(status, "InvalidClientTokenId", tmp_path)
    finally:
        moto.stop()


def test_a_missing_dynamodb_table_is_one_line(tmp_path: Path, request) -> None:

    moto = request.getfixturevalue("moto_emulator")
    state = f"dynamodb://no-such-table?region=us-east-1&endpoint={moto.url}"
    result = docfleet("status", "r1", "--state", state, cwd=tmp_path)
    assert_one_clear_line(result, "does not exist", tmp_path)


@pytest.mark.parametrize("uri", [
    "firestore://docfleet-test?prefix=t-&emulator=127.0.0.1:{port}",
    "dynamodb://docfleet?region=us-east-1&endpoint=http://127.0.0.1:{port}",
])
def test_an_unreachable_store_is_one_line_and_exit_4(uri: str, tmp_path: Path) -> None:
    from support import emulators

    state = uri.format(port=emulators.free_port())  # nothing listens there
    for args in (["work", "--run-id", "r1", "--total", "10", "--out", "file://./out"],
                 ["status", "r1"]):
        result = docfleet(*args, "--state", state, cwd=tmp_path,
                          env={"DOCFLEET_STORE_RETRY_SECONDS": "2"})
        assert result.returncode == 4, result.stdout + result.stderr
        assert_one_clear_line(result, "", tmp_path)


def test_a_task_config_error_inside_a_unit_burns_no_attempt(tmp_path: Path) -> None:
    """Regression: a setting the pack reads when it starts working (here a malformed
    bench knob) failed every unit max_attempts times and marked the run FAILED, as if the
    documents were bad. Now the task hands its unit back and exits 2 on one line."""
    from docfleet.state import open_state_store

    env = {"DOCFLEET_RUN_ID": "r1", "DOCFLEET_TOTAL": "10", "DOCFLEET_UNIT_SIZE": "5",
           "DOCFLEET_STATE": "sqlite:///s.db", "DOCFLEET_OUT": "file://./out",
           "DOCFLEET_BENCH_CRASH_INDEXES": "3,x"}
    result = docfleet("work", cwd=tmp_path, env=env)
    assert result.returncode == 2
    assert_one_clear_line(result, "DOCFLEET_BENCH_CRASH_INDEXES='3,x'", tmp_path)
    store = open_state_store(f"sqlite:///{tmp_path}/s.db")
    # the pack's settings load before planning: the knob is found, nothing planned or burnt
    assert store.get_run("r1") is None and store.units("r1") == []
