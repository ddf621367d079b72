"""Task identity from the execution engine's environment (docs/design.md, "Task identity").

First match wins: Cloud Run Jobs, Kubernetes Indexed Jobs, AWS Batch array jobs, the
project's own ``DOCFLEET_TASK_INDEX`` / ``DOCFLEET_TASK_COUNT``, else a single task. The
index is only a hint for where to start looking for pending units.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass

from docfleet.core.errors import ConfigError


@dataclass(frozen=True)
class TaskIdentity:
    engine: str
    index: int
    count: int
    attempt: int
    execution: str
    pid: int
    nonce: str

    @property
    def owner(self) -> str:
        """This process's lease-owner identity: never reused by another process, so with
        a unit's claim generation it makes a unique fencing token."""
        return f"{self.execution}/{self.index}/{self.attempt}/{self.pid}.{self.nonce}"


def _int(env: Mapping[str, str], name: str, default: int | None = None) -> int:
    raw = env.get(name)
    if raw is None or raw == "":
        if default is None:
            raise ConfigError(f"{name} is not set")
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r} is not an integer") from None
    if value < 0:
        raise ConfigError(f"{name}={raw!r} must be >= 0")
    return value


def task_identity(env: Mapping[str, str] | None = None) -> TaskIdentity:
    """Read this task's identity from ``env`` (default ``os.environ``)."""
    env = os.environ if env is None else env
    pid = os.getpid()
    nonce = secrets.token_hex(3)
    own_count = _int(env, "DOCFLEET_TASK_COUNT", 1)
    execution = env.get("DOCFLEET_EXECUTION") or f"local-{nonce}"
    if "CLOUD_RUN_TASK_INDEX" in env:
        engine, index = "cloud-run", _int(env, "CLOUD_RUN_TASK_INDEX")
        count = _int(env, "CLOUD_RUN_TASK_COUNT", 1)
        attempt = _int(env, "CLOUD_RUN_TASK_ATTEMPT", 0)
        execution = env.get("CLOUD_RUN_EXECUTION") or execution
    elif "JOB_COMPLETION_INDEX" in env:
        engine, index, count = "kubernetes", _int(env, "JOB_COMPLETION_INDEX"), own_count
        attempt = 0
    elif "AWS_BATCH_JOB_ARRAY_INDEX" in env:
        engine, index, count = "aws-batch", _int(env, "AWS_BATCH_JOB_ARRAY_INDEX"), own_count
        attempt = _int(env, "AWS_BATCH_JOB_ATTEMPT", 1)
        execution = env.get("AWS_BATCH_JOB_ID", execution).split(":")[0]
    elif "DOCFLEET_TASK_INDEX" in env:
        engine, index, count = "docfleet", _int(env, "DOCFLEET_TASK_INDEX"), own_count
        attempt = _int(env, "DOCFLEET_TASK_ATTEMPT", 0)
    else:
        engine, index, count, attempt = "single", 0, own_count, 0
    count = max(count, 1)
    if index >= count:
        raise ConfigError(f"task index {index} is not below the task count {count}")
    return TaskIdentity(engine, index, count, attempt, execution, pid, nonce)
