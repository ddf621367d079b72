"""``docfleet launch``: start a Cloud Run job execution of N tasks for one run."""

from __future__ import annotations

import json
import sys

import click

from docfleet.cli.options import friendly_errors, parse_options, state_option
from docfleet.core.errors import ConfigError
from docfleet.core.settings import load_settings

EXIT_OK = 0
EXIT_HOLES = 1  # as `docfleet work`: the run has failed units (or was cancelled)
EXIT_TIMEOUT = 3


@click.command()
@click.option("--tasks", type=click.IntRange(min=1), required=True,
              help="Tasks of the execution (the fleet's size).")
@click.option("--run-id", help="Run identifier [env DOCFLEET_RUN_ID].")
@click.option("--total", type=int, help="Documents in the run [env DOCFLEET_TOTAL]; "
              "omit to resume an existing run.")
@click.option("--pack", help="Document pack [env DOCFLEET_PACK; default: the job's].")
@click.option("--unit-size", type=int, help="Documents per work unit [env DOCFLEET_UNIT_SIZE].")
@click.option("--option", "options", multiple=True, metavar="KEY=VALUE",
              help="A pack option (repeatable), sent as DOCFLEET_OPTIONS.")
@click.option("--env", "extra_env", multiple=True, metavar="NAME=VALUE",
              help="Another env override for the tasks (repeatable).")
@click.option("--job", help="Cloud Run job name [env DOCFLEET_CLOUD_RUN_JOB; default docfleet].")
@click.option("--project", help="Google Cloud project [env DOCFLEET_CLOUD_RUN_PROJECT].")
@click.option("--region", help="Cloud Run region [env DOCFLEET_CLOUD_RUN_REGION].")
@click.option("--task-timeout", type=int, help="Override the task timeout (seconds).")
@click.option("--wait", is_flag=True, help="Follow the run in the state store until it is "
              "COMPLETED, FAILED or CANCELLED; exit 0 only if COMPLETED.")
@click.option("--interval", type=float, default=5.0, show_default=True,
              help="Seconds between polls with --wait.")
@click.option("--wait-timeout", type=float, default=None,
              help="Give up waiting after this many seconds (exit 3).")
@state_option
@friendly_errors
def launch(tasks: int, run_id: str | None, total: int | None, pack: str | None,
           unit_size: int | None, options: tuple[str, ...], extra_env: tuple[str, ...],
           job: str | None, project: str | None, region: str | None,
           task_timeout: int | None, wait: bool, interval: float, wait_timeout: float | None,
           state: str | None) -> None:
    """Start a fleet on Cloud Run: one execution of the job with TASKS tasks, each running
    `docfleet work` for the run; prints the execution's name.

    Example: docfleet launch --tasks 20 --run-id inv-2024-06 --total 100000 --wait
    """
    from docfleet.ops.launch import (  # lazy: start-up
        JobRef,
        follow_run,
        jobs_client,
        start_execution,
    )

    settings = load_settings(run_id=run_id, total=total, pack=pack, unit_size=unit_size,
                             state=state, options=parse_options(options),
                             cloud_run_job=job, cloud_run_project=project,
                             cloud_run_region=region)
    if not settings.run_id:
        raise ConfigError("no run id given", "pass --run-id ID or set DOCFLEET_RUN_ID")
    if not settings.cloud_run_project or not settings.cloud_run_region:
        raise ConfigError("no Cloud Run project/region given",
                          "pass --project and --region (or DOCFLEET_CLOUD_RUN_PROJECT/_REGION)")
    env = {"DOCFLEET_RUN_ID": settings.run_id}
    if settings.total is not None:
        env["DOCFLEET_TOTAL"] = str(settings.total)
    if pack:
        env["DOCFLEET_PACK"] = settings.pack
    if settings.unit_size is not None:
        env["DOCFLEET_UNIT_SIZE"] = str(settings.unit_size)
    if options:
        env["DOCFLEET_OPTIONS"] = json.dumps(settings.options, sort_keys=True)
    for item in extra_env:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise click.BadParameter(f"{item!r} is not NAME=VALUE", param_hint="--env")
        env[name] = value

    ref = JobRef(settings.cloud_run_project, settings.cloud_run_region, settings.cloud_run_job)
    client = jobs_client(settings.cloud_run_endpoint)
    execution = start_execution(client, ref, tasks, env, task_timeout)
    click.echo(execution)
    if not wait:
        return

    import os

    from docfleet.core.models import RunState  # lazy: start-up
    from docfleet.ops.launch import job_env  # lazy: start-up
    from docfleet.state import open_state_store  # lazy: start-up

    state_uri = settings.state
    if state is None and not os.environ.get("DOCFLEET_STATE"):
        # follow the store the tasks use, not a new local file: the job's own setting
        state_uri = job_env(client, ref).get("DOCFLEET_STATE", "")
        if not state_uri:
            raise ConfigError(f"the job {ref.name} sets no DOCFLEET_STATE to follow",
                              "pass --state URI (terraform output state_uri)")
        click.echo(f"following {state_uri} (the job's DOCFLEET_STATE)", err=True)
    store = open_state_store(state_uri)
    final = follow_run(store, settings.run_id, interval=interval, timeout=wait_timeout,
                       report=lambda line: click.echo(line, err=True))
    store.close()
    if final is None:
        click.echo(f"run {settings.run_id}: still not finished after {wait_timeout:g}s; "
                   f"follow it with 'docfleet status {settings.run_id} --wait'", err=True)
        sys.exit(EXIT_TIMEOUT)
    sys.exit(EXIT_OK if final == RunState.COMPLETED else EXIT_HOLES)
