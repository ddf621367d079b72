"""Starting one task: what ``docfleet work`` and the catalogue's one-process build share.

:func:`work` is the whole task path from settings (stores opened, spec resolved, pack
checked, worker run, store closed); :func:`run_task` is its second half, for a caller
that has opened the store and resolved the spec itself. Neither touches ``os.environ``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from docfleet import telemetry
from docfleet.blob import open_blob_store
from docfleet.blob.base import BlobStore
from docfleet.core.identity import TaskIdentity, task_identity
from docfleet.core.models import RunSpec
from docfleet.core.settings import Settings
from docfleet.kernel.admission import admit_out, check_ready, resolve_spec
from docfleet.kernel.heap import tune_collector
from docfleet.kernel.worker import Worker
from docfleet.packs import load_pack
from docfleet.state import StateStore, open_state_store
from docfleet.telemetry.logs import bind, setup_logging


def run_task(
    settings: Settings, spec: RunSpec, store: StateStore, blob: BlobStore,
    log: logging.Logger, identity: TaskIdentity | None = None,
    pack_settings: Mapping[str, Any] | None = None,
) -> int:
    """Work run ``spec`` as one task of the fleet in this process: logs bound to the task,
    SIGTERM/SIGINT handlers installed, the worker run inside the ``docfleet.task`` root
    span (tracing set up from ``settings.trace``, flushed before returning). Returns the
    task's exit code; leaves ``store`` open. ``pack_settings``: a command's flags for
    the pack's own settings (the pack loads them over the environment into
    :attr:`PackContext.pack_settings`)."""

    identity = identity or task_identity()
    bind(run_id=spec.run_id, task_index=identity.index, task_count=identity.count,
         execution=identity.execution, attempt=identity.attempt)
    worker = Worker(settings, spec, identity, store, blob, load_pack(spec.pack), log,
                    pack_settings=pack_settings)
    worker.install_signal_handlers()
    log.info("task %d/%d (%s) starting on %s → %s", identity.index, identity.count,
             identity.engine, store.uri, blob.uri, extra={"event": "task.start"})
    return telemetry.run_task(worker.run, settings.trace, identity, spec.run_id, store.uri,
                              blob.uri)


def work(settings: Settings) -> int:
    """``docfleet work``: one task from its settings and its engine's identity. Plans the
    run if first, drains it, finalizes it; a setup error (bad pack option, missing
    browser) raises :class:`ConfigError` before anything is planned. Returns the exit
    code; the store is closed."""

    log = setup_logging(settings.log_format, settings.log_level)
    identity = task_identity()
    bind(run_id=settings.run_id, task_index=identity.index, task_count=identity.count,
         execution=identity.execution, attempt=identity.attempt)
    store = open_state_store(settings.state)
    settings = admit_out(settings, store)  # a stored run's recorded output URI
    blob = open_blob_store(settings.out)
    spec = resolve_spec(settings, store, identity.count, log)
    check_ready(spec, store, settings)  # a setup error found here never plans the run
    tune_collector()  # this process is the task: what start-up made is never garbage
    code = run_task(settings, spec, store, blob, log, identity)
    store.close()
    return code
