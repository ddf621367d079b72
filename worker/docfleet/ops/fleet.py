"""``docfleet run``: a local fleet of T ``docfleet work`` processes on this machine, with a
live progress bar. Each task logs JSON lines to its own file."""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from types import FrameType

from rich.console import Console

from docfleet import telemetry
from docfleet.core.models import RunSpec
from docfleet.core.settings import Settings
from docfleet.kernel.admission import check_ready, resolve_spec
from docfleet.ops.fleetview import FleetDisplay, TaskWatch, snapshot
from docfleet.state.base import CoordinationStore, check_fingerprint


def task_env(settings: Settings, spec: RunSpec, index: int, tasks: int, execution: str,
             extra: Mapping[str, str] | None = None) -> dict:
    """The environment of task ``index``: this process's, ``extra`` (task-local settings
    such as ``DOCFLEET_CATALOGUE_*``) over it, then the resolved spec, so every task
    agrees."""
    env = dict(os.environ)
    env.update(extra or {})
    env.update(
        {
            "DOCFLEET_RUN_ID": spec.run_id,
            "DOCFLEET_TOTAL": str(spec.total),
            "DOCFLEET_PACK": spec.pack,
            "DOCFLEET_UNIT_SIZE": str(spec.unit_size),
            "DOCFLEET_MAX_ATTEMPTS": str(spec.max_attempts),
            "DOCFLEET_OPTIONS": json.dumps(spec.options),
            "DOCFLEET_STATE": settings.state,
            "DOCFLEET_OUT": settings.out,
            "DOCFLEET_LEASE_SECONDS": str(settings.lease_seconds),
            "DOCFLEET_POLL_SECONDS": str(settings.poll_seconds),
            "DOCFLEET_LOG_FORMAT": "json",
            "DOCFLEET_TASK_INDEX": str(index),
            "DOCFLEET_TASK_COUNT": str(tasks),
            "DOCFLEET_EXECUTION": execution,
        }
    )
    if settings.out_moved:  # the run's outputs were copied to DOCFLEET_OUT
        env["DOCFLEET_OUT_MOVED"] = "1"
    if settings.linger_seconds is not None:
        env["DOCFLEET_LINGER_SECONDS"] = str(settings.linger_seconds)
    if settings.heartbeat_seconds is not None:
        env["DOCFLEET_HEARTBEAT_SECONDS"] = str(settings.heartbeat_seconds)
    if settings.trace is not None:
        env["DOCFLEET_TRACE"] = settings.trace
    parent = telemetry.traceparent()  # the fleet's span: every task joins its trace
    if parent:
        env["DOCFLEET_TRACE_PARENT"] = parent
    return env


def prepare_fleet(settings: Settings, store: CoordinationStore, tasks: int,
                  log: logging.Logger) -> RunSpec:
    """The spec a local fleet of ``tasks`` will work, checked once here rather than in
    every task's log: a stored run's other parameters refused
    (:class:`RunConflictError`), the pack's preflight passed (:class:`ConfigError`).
    Writes nothing."""

    spec = resolve_spec(settings, store, tasks, log)
    existing = store.get_run(spec.run_id)
    if existing is not None:
        check_fingerprint(existing, spec)
    check_ready(spec, store, settings)
    return spec


def run_fleet(
    settings: Settings, spec: RunSpec, store: CoordinationStore, tasks: int, log_dir: Path,
    console: Console, env: Mapping[str, str] | None = None,
) -> int:
    """Start ``tasks`` worker processes, show progress until they exit, and return the
    fleet's exit code: 1 if any task reported holes, else the first non-zero, else 0.
    ``env``: variables every task gets on top of this process's (see :func:`task_env`).
    SIGINT/SIGTERM are forwarded to every task (each releases its unit)."""
    log_dir.mkdir(parents=True, exist_ok=True)
    execution = f"fleet-{os.getpid()}-{int(time.time())}"
    procs: list[subprocess.Popen] = []
    for index in range(tasks):
        log_file = (log_dir / f"task-{index}.log").open("ab")
        procs.append(
            subprocess.Popen(
                [sys.executable, "-m", "docfleet", "work"],
                env=task_env(settings, spec, index, tasks, execution, env),
                stdout=log_file, stderr=subprocess.STDOUT, start_new_session=True,
            )
        )
        log_file.close()

    def forward(signum: int, frame: FrameType | None) -> None:
        for proc in procs:
            if proc.poll() is None:
                proc.send_signal(signum)

    previous = {s: signal.signal(s, forward) for s in (signal.SIGINT, signal.SIGTERM)}
    watch = TaskWatch(console, [log_dir / f"task-{i}.log" for i in range(tasks)])
    started = time.monotonic()

    def poll(display: FleetDisplay) -> None:
        codes = [p.poll() for p in procs]
        watch.check(codes)
        alive = sum(c is None for c in codes)
        display.update(snapshot(store.units(spec.run_id), spec, alive,
                                time.monotonic() - started))

    try:
        with FleetDisplay(console, spec.run_id) as display:
            while any(p.poll() is None for p in procs):
                poll(display)
                _wait_any_exit(procs, 0.5)
            watch.check([p.returncode for p in procs])
            display.final(snapshot(store.units(spec.run_id), spec, 0,
                                   time.monotonic() - started))
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    summary = watch.summary(tasks)
    if summary:
        console.print(summary, markup=False, highlight=False, soft_wrap=True)
    codes = [p.returncode for p in procs]
    if any(c == 1 for c in codes):
        return 1
    return next((c for c in codes if c != 0), 0)


def _wait_any_exit(procs: list[subprocess.Popen], seconds: float) -> None:
    """Sleep up to ``seconds``, returning early (within 50 ms) once every task has
    exited, so the fleet's last line follows its last task at once."""
    deadline = time.monotonic() + seconds
    while any(p.poll() is None for p in procs) and time.monotonic() < deadline:
        time.sleep(0.05)
