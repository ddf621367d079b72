"""A real worker over a real SQLite store and output directory, in this process: one
task of one, its store wrapped by the test (to count or disturb the calls it makes)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from docfleet.blob import open_blob_store
from docfleet.core.identity import task_identity
from docfleet.core.settings import load_settings
from docfleet.kernel.admission import resolve_spec
from docfleet.kernel.worker import Worker
from docfleet.packs import load_pack
from docfleet.state import open_state_store

W = TypeVar("W")


def in_process_worker(tmp_path: Path, run_id: str, total: int, wrap: Callable[[Any], W],
                      logger: str = "docfleet.test", **settings: Any) -> tuple[Worker, W]:
    """A worker on ``total`` one-document ``bench`` units in ``tmp_path`` (state.db,
    out/), lease 30 s, heartbeat 1 s, linger 1 s unless ``settings`` say otherwise; its
    store is ``wrap(real store)``, whose ``worker`` attribute is then set."""
    given = {"lease_seconds": 30, "heartbeat_seconds": 1, "linger_seconds": 1, **settings}
    loaded = load_settings(run_id=run_id, total=total, unit_size=1, pack="bench",
                           poll_seconds=0.1, state=f"sqlite:///{tmp_path / 'state.db'}",
                           out=f"file://{tmp_path / 'out'}", **given)
    log = logging.getLogger(logger)
    store = wrap(open_state_store(loaded.state))
    spec = resolve_spec(loaded, store, 1, log)
    identity = task_identity({"DOCFLEET_TASK_INDEX": "0", "DOCFLEET_TASK_COUNT": "1"})
    worker = Worker(loaded, spec, identity, store, open_blob_store(loaded.out),
                    load_pack(spec.pack), log)
    store.worker = worker  # type: ignore[attr-defined]
    return worker, store
