"""Helpers for tests that run real ``docfleet`` processes: start workers with the
environment an engine would give them, read their JSON log events, send real signals."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any


def worker_env(
    state: str, out: str, run_id: str, total: int | None = None, *, index: int = 0,
    count: int = 1, **settings: Any,
) -> dict[str, str]:
    """The environment of one ``docfleet work`` task. ``settings`` become DOCFLEET_*
    (``unit_size=5`` and ``UNIT_SIZE=5`` both → ``DOCFLEET_UNIT_SIZE=5``)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOCFLEET_")}
    env.update(
        DOCFLEET_STATE=state, DOCFLEET_OUT=out, DOCFLEET_RUN_ID=run_id,
        DOCFLEET_TASK_INDEX=str(index), DOCFLEET_TASK_COUNT=str(count),
        DOCFLEET_LOG_FORMAT="json", DOCFLEET_PACK=settings.pop("pack", "bench"),
        DOCFLEET_POLL_SECONDS=str(settings.pop("poll_seconds", 0.2)),
    )
    if total is not None:
        env["DOCFLEET_TOTAL"] = str(total)
    for key, value in settings.items():
        name = key if key.startswith("DOCFLEET_") else f"DOCFLEET_{key.upper()}"
        env[name] = str(value)
    return env


def start_worker(env: dict[str, str], log: Path) -> subprocess.Popen:
    """Start ``python -m docfleet work`` with its stdout and stderr in ``log``."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("ab") as fh:
        return subprocess.Popen([sys.executable, "-m", "docfleet", "work"], env=env,
                                stdout=fh, stderr=subprocess.STDOUT)


def start_fleet(env: dict[str, str], count: int, logs: Path, **overrides: str) -> list:
    procs = []
    for i in range(count):
        task_env = {**env, "DOCFLEET_TASK_INDEX": str(i), "DOCFLEET_TASK_COUNT": str(count),
                    **overrides}
        procs.append(start_worker(task_env, logs / f"task-{i}.log"))
    return procs


def wait_all(procs: Iterable[subprocess.Popen], timeout: float = 120) -> list[int]:
    deadline = time.monotonic() + timeout
    codes = []
    for proc in procs:
        remaining = max(0.1, deadline - time.monotonic())
        try:
            codes.append(proc.wait(remaining))
        except subprocess.TimeoutExpired:
            proc.kill()
            raise AssertionError(f"worker {proc.pid} did not exit within {timeout}s") from None
    return codes


def events(*logs: Path) -> list[dict[str, Any]]:
    """Every JSON log line of the given files (non-JSON lines are kept as ``raw``)."""
    out = []
    for log in logs:
        if not log.exists():
            continue
        for line in log.read_text().splitlines():
            try:
                out.append(json.loads(line))
            except ValueError:
                out.append({"raw": line})
    return out


def all_events(logs: Path) -> list[dict[str, Any]]:
    return events(*sorted(logs.glob("*.log")))


def named(evts: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    return [e for e in evts if e.get("event") == name]


def wait_for_event(log: Path, name: str, timeout: float = 30) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = named(events(log), name)
        if found:
            return found[0]
        time.sleep(0.05)
    raise AssertionError(f"no {name} event in {log} within {timeout}s:\n{log.read_text()}")


def cli(*args: str, env: dict[str, str] | None = None, timeout: float = 120,
        cwd: Path | None = None):
    """Run the ``docfleet`` CLI in a subprocess (in ``cwd`` if given); returns the
    CompletedProcess."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("DOCFLEET_")}
    return subprocess.run([sys.executable, "-m", "docfleet", *args], env={**base, **(env or {})},
                          capture_output=True, text=True, timeout=timeout, cwd=cwd)
