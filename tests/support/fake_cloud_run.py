"""A local fake of the Cloud Run Admin API v2 (``jobs.run``, ``jobs.get``), on 127.0.0.1
(a :mod:`support.fake_http` server).

It checks the shape of each ``RunJobRequest`` it gets, answers a long-running operation
whose metadata is the Execution (as the real API does), and can act as Cloud Run itself:
start the execution's N tasks as real ``docfleet work`` processes with Cloud Run's task
environment (``CLOUD_RUN_TASK_INDEX`` …) plus the request's env overrides."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

from support.fake_http import FakeHTTPServer, Reply, Request

RUN_PATH = re.compile(r"^/v2/projects/([^/]+)/locations/([^/]+)/jobs/([^/:]+):run$")
JOB_PATH = re.compile(r"^/v2/projects/([^/]+)/locations/([^/]+)/jobs/([^/:]+)$")


class FakeCloudRun(FakeHTTPServer):
    """``jobs`` maps job names to their base env (what Terraform set on the job).
    :attr:`requests` holds each ``jobs.run`` call (project, region, job, body), :attr:`errors`
    what :func:`check_request` refused."""

    def __init__(self, jobs: dict[str, dict[str, str]], workdir: Path,
                 start_tasks: bool = False) -> None:
        super().__init__()
        self.jobs = jobs
        self.workdir = workdir
        self.start_tasks = start_tasks
        self.requests: list[dict[str, Any]] = []
        self.errors: list[str] = []
        self.tasks: list[subprocess.Popen[bytes]] = []

    def stop(self) -> None:
        """Stop serving and kill the tasks it started."""
        super().stop()
        for proc in self.tasks:
            if proc.poll() is None:
                proc.kill()
            proc.wait()

    # -- the API ---------------------------------------------------------------------------
    def handle(self, request: Request) -> Reply:
        if request.method == "POST":
            status, body = self.run_job(request.path, request.headers.get("content-type", ""),
                                        request.body)
        elif request.method == "GET":
            status, body = self.get_job(request.path)
        else:
            status, body = 404, _error(404, "NOT_FOUND", f"no route {request.method}")
        return Reply(status, body)

    def get_job(self, path: str) -> tuple[int, dict[str, Any]]:
        """``GET /v2/projects/P/locations/R/jobs/J``: the job with its container env."""
        match = JOB_PATH.match(path.split("?", 1)[0])
        if not match or match.group(3) not in self.jobs:
            return 404, _error(404, "NOT_FOUND", f"no job at {path}")
        project, region, job = match.groups()
        env = [{"name": k, "value": v} for k, v in sorted(self.jobs[job].items())]
        return 200, {"name": f"projects/{project}/locations/{region}/jobs/{job}",
                     "template": {"template": {"containers": [
                         {"image": "docfleet", "env": env}]}}}

    def run_job(self, path: str, content_type: str, raw: bytes) -> tuple[int, dict[str, Any]]:
        match = RUN_PATH.match(path.split("?", 1)[0])
        if not match:
            return 404, _error(404, "NOT_FOUND", f"no route {path}")
        project, region, job = match.groups()
        if job not in self.jobs:
            message = (f"Resource '{job}' of kind 'JOB' in region '{region}' in project "
                       f"'{project}' does not exist.")
            return 404, _error(404, "NOT_FOUND", message)
        try:
            body = json.loads(raw or b"{}")
            problems = check_request(body, content_type)
        except ValueError as exc:
            problems = [f"body is not JSON: {exc}"]
            body = {}
        self.requests.append({"project": project, "region": region, "job": job, "body": body})
        if problems:
            self.errors.extend(problems)
            return 400, _error(400, "INVALID_ARGUMENT", "; ".join(problems))
        overrides = body.get("overrides", {})
        tasks = int(overrides.get("taskCount", 1))
        env = {e["name"]: e.get("value", "")
               for c in overrides.get("containerOverrides", []) for e in c.get("env", [])}
        execution_id = f"{job}-{uuid.uuid4().hex[:5]}"
        execution = f"projects/{project}/locations/{region}/jobs/{job}/executions/{execution_id}"
        if self.start_tasks:
            self._start(execution_id, tasks, {**self.jobs[job], **env})
        return 200, {
            "name": f"projects/{project}/locations/{region}/operations/{uuid.uuid4()}",
            "metadata": {
                "@type": "type.googleapis.com/google.cloud.run.v2.Execution",
                "name": execution, "job": job, "taskCount": tasks,
                "parallelism": tasks,
            },
            "done": False,
        }

    def _start(self, execution: str, tasks: int, env: dict[str, str]) -> None:
        base = {k: v for k, v in os.environ.items() if not k.startswith("DOCFLEET_")}
        for index in range(tasks):
            task_env = {**base, **env, "CLOUD_RUN_TASK_INDEX": str(index),
                        "CLOUD_RUN_TASK_COUNT": str(tasks), "CLOUD_RUN_TASK_ATTEMPT": "0",
                        "CLOUD_RUN_EXECUTION": execution, "CLOUD_RUN_JOB": "docfleet"}
            log = (self.workdir / f"{execution}-task-{index}.log").open("wb")
            self.tasks.append(subprocess.Popen(
                [sys.executable, "-m", "docfleet", "work"], env=task_env, cwd=self.workdir,
                stdout=log, stderr=subprocess.STDOUT))
            log.close()


def check_request(body: dict[str, Any], content_type: str) -> list[str]:
    """What the real API would refuse (or what launch must always send)."""
    problems = []
    if "json" not in content_type:
        problems.append(f"Content-Type {content_type!r} is not JSON")
    unknown = set(body) - {"name", "validateOnly", "etag", "overrides"}
    if unknown:
        problems.append(f"unknown RunJobRequest fields {sorted(unknown)}")
    overrides = body.get("overrides")
    if not isinstance(overrides, dict):
        return [*problems, "no overrides"]
    if set(overrides) - {"containerOverrides", "taskCount", "timeout"}:
        problems.append(f"unknown Overrides fields {sorted(overrides)}")
    if not isinstance(overrides.get("taskCount"), int) or overrides["taskCount"] < 1:
        problems.append(f"taskCount {overrides.get('taskCount')!r} is not a positive integer")
    containers = overrides.get("containerOverrides", [])
    if len(containers) != 1:
        problems.append("expected exactly one containerOverride")
    for container in containers:
        names = [e.get("name") for e in container.get("env", [])]
        if "DOCFLEET_RUN_ID" not in names:
            problems.append("the env overrides do not set DOCFLEET_RUN_ID")
        if len(names) != len(set(names)):
            problems.append("duplicate env names")
        for env in container.get("env", []):
            if set(env) - {"name", "value"}:
                problems.append(f"env {env} has fields other than name/value")
    return problems


def _error(code: int, status: str, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "status": status, "message": message}}
