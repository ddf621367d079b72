"""Start a fleet on Cloud Run: one job execution whose N tasks each run ``docfleet work``.

The execution is started through the Cloud Run Admin API (``google-cloud-run``,
``JobsClient.run_job``) with overrides: the task count and the run's ``DOCFLEET_*``
settings. Following the run is done from the state store, the same source of truth
``docfleet status`` reads, so ``launch --wait`` exits like ``docfleet work`` would."""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from docfleet.core.errors import ConfigError, MissingExtraError
from docfleet.core.models import RunState
from docfleet.state.base import CoordinationStore

TERMINAL_STATES = frozenset({RunState.COMPLETED, RunState.FAILED, RunState.CANCELLED})


@dataclass(frozen=True)
class JobRef:
    """A Cloud Run job by project, region and name."""

    project: str
    region: str
    job: str

    @property
    def name(self) -> str:
        return f"projects/{self.project}/locations/{self.region}/jobs/{self.job}"


def _run_v2() -> Any:
    try:
        return importlib.import_module("google.cloud.run_v2")
    except ImportError:
        raise MissingExtraError("docfleet launch (the Cloud Run Admin API)", "gcp") from None


def jobs_client(endpoint: str | None = None) -> Any:
    """A Cloud Run ``JobsClient``. With ``endpoint`` the client talks REST to it; a plain
    ``http://`` endpoint (a local fake or emulator: Google's APIs are HTTPS only) gets
    anonymous credentials, like the SDKs' emulator hosts."""
    run_v2 = _run_v2()
    if not endpoint:
        return run_v2.JobsClient()
    kwargs: dict[str, Any] = {"transport": "rest", "client_options": {"api_endpoint": endpoint}}
    if endpoint.startswith("http://"):
        from google.auth.credentials import AnonymousCredentials

        kwargs["credentials"] = AnonymousCredentials()
    return run_v2.JobsClient(**kwargs)


def run_job_request(job: JobRef, tasks: int, env: Mapping[str, str],
                    task_timeout_seconds: int | None = None) -> Any:
    """The ``RunJobRequest`` for ``tasks`` tasks with ``env`` overriding the job's env."""
    run_v2 = _run_v2()
    overrides = run_v2.RunJobRequest.Overrides(
        task_count=tasks,
        container_overrides=[run_v2.RunJobRequest.Overrides.ContainerOverride(
            env=[run_v2.EnvVar(name=k, value=v) for k, v in sorted(env.items())],
        )],
    )
    if task_timeout_seconds:
        overrides.timeout = {"seconds": task_timeout_seconds}
    return run_v2.RunJobRequest(name=job.name, overrides=overrides)


def start_execution(client: Any, job: JobRef, tasks: int, env: Mapping[str, str],
                    task_timeout_seconds: int | None = None) -> str:
    """Start one execution; return its full name (``…/jobs/JOB/executions/ID``).

    The API answers with a long-running operation that completes only when the execution
    does; its metadata is the Execution, which is all ``launch`` needs."""
    from google.api_core import exceptions

    request = run_job_request(job, tasks, env, task_timeout_seconds)
    try:
        operation = client.run_job(request=request)
    except exceptions.NotFound:
        raise ConfigError(f"Cloud Run job {job.name} does not exist",
                          "check --job/--project/--region or terraform output job_name") from None
    except exceptions.PermissionDenied as exc:
        raise ConfigError(f"not allowed to run {job.name} with overrides: {exc.message}",
                          "grant roles/run.jobsExecutorWithOverrides on the job") from None
    metadata = operation.metadata
    name = getattr(metadata, "name", "") if metadata is not None else ""
    return name or operation.operation.name


def job_env(client: Any, job: JobRef) -> dict[str, str]:
    """The env the job's container is configured with (``GetJob``), e.g. the
    ``DOCFLEET_STATE`` Terraform set: what ``launch --wait`` follows when no ``--state``
    is given. Raises :class:`ConfigError` for a missing or unreadable job."""
    from google.api_core import exceptions

    try:
        found = client.get_job(name=job.name)
    except exceptions.NotFound:
        raise ConfigError(f"Cloud Run job {job.name} does not exist",
                          "check --job/--project/--region or terraform output job_name") from None
    except exceptions.GoogleAPICallError as exc:
        raise ConfigError(f"cannot read Cloud Run job {job.name}: {exc.message}",
                          "pass --state (the job's DOCFLEET_STATE) to follow the run") from None
    containers = list(found.template.template.containers)
    return {e.name: e.value for c in containers[:1] for e in c.env}


def follow_run(store: CoordinationStore, run_id: str, interval: float = 5.0,
               timeout: float | None = None,
               report: Callable[[str], None] | None = None) -> RunState | None:
    """Poll ``store`` until run ``run_id`` is COMPLETED, FAILED or CANCELLED (tasks may
    take a while to start, so a run that does not exist yet is waited for). Return the
    terminal state, or ``None`` if ``timeout`` seconds passed first."""
    deadline = None if timeout is None else time.monotonic() + timeout
    last = ""
    while True:
        run = store.get_run(run_id)
        if run is not None:
            progress = store.progress(run_id)
            line = (f"run {run_id}: {run.state.value}, "
                    + ", ".join(f"{k} {v}" for k, v in progress.as_dict().items()))
            if report is not None and line != last:
                report(line)
                last = line
            if run.state in TERMINAL_STATES:
                return run.state
        elif report is not None and not last:
            report(f"run {run_id}: waiting for the tasks to plan it")
            last = "waiting"
        if deadline is not None and time.monotonic() >= deadline:
            return None
        time.sleep(interval)
