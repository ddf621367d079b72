"""``docfleet delete``: remove a run's outputs and its state, and only what is the run's.

Contracts:

- A run still PENDING or RUNNING is refused unless ``force``; so are outputs whose root
  manifest is not this run's (:func:`foreign_root`: a root of a run the given state store
  does not hold, or of another run under the same id): ``delete`` never removes another
  store's run. Refusals are one :class:`ConfigError` line; nothing is deleted.
- A finished run: the root manifest first (a half-deleted run never looks complete),
  then every other output, then the state (its marker last).
- A live run (``force``): the root first, then the state, so that every worker's next
  renewal, claim or state check finds the run gone and stops writing
  (:class:`docfleet.kernel.gone.RunGone`); then, one lease later
  (``settle_seconds``), when no worker can still be writing, every output, listed anew.
- Then the folders left empty are removed (a store with folders: ``HasFolders``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass

from docfleet.blob.base import BlobStore, HasFolders
from docfleet.core.errors import BlobNotFoundError, ConfigError, RunNotFoundError
from docfleet.core.models import Run, RunState
from docfleet.dataset.manifest import ROOT_KEY, RunFiles
from docfleet.state.base import CoordinationStore

#: Run states whose workers may still be writing.
LIVE_STATES = (RunState.PENDING, RunState.RUNNING)


@dataclass
class Deletion:
    """What one delete will remove: the run as stored (``None``: none), its output keys."""

    run_id: str
    run: Run | None
    files: RunFiles
    keys: list[str]

    @property
    def live(self) -> bool:
        return self.run is not None and self.run.state in LIVE_STATES

    def describe(self, store_uri: str) -> str:
        return (f"run '{self.run_id}': " + ("its state in " + store_uri if self.run
                                            else "no state")
                + f" and {len(self.keys)} output file(s) under "
                  f"{self.files.blob.uri}/{self.run_id}/")


def foreign_root(files: RunFiles, run: Run | None) -> str | None:
    """Why the root manifest under ``files`` is not ``run``'s (``None``: there is none, it
    is ``run``'s, or it is unreadable: a damaged root of the run's own key goes with it)."""
    try:
        data = files.get(ROOT_KEY)
    except BlobNotFoundError:
        return None
    try:
        root = json.loads(data)
        fingerprint = root["fingerprint"]
    except (ValueError, KeyError, TypeError):
        return None
    where = files.uri(ROOT_KEY)
    if run is None:
        return (f"the root manifest at {where} is of a run this state store does not hold "
                f"(fingerprint {fingerprint})")
    if fingerprint != run.fingerprint:
        return (f"the root manifest at {where} is another run's (fingerprint "
                f"{fingerprint}; run '{run.run_id}' here is {run.fingerprint})")
    return None


def plan_deletion(store: CoordinationStore, blob: BlobStore, run_id: str, *,
                  force: bool) -> Deletion:
    """What deleting ``run_id`` would remove. Raises :class:`RunNotFoundError` when
    there is nothing, :class:`ConfigError` for a live run without ``force`` and for
    outputs that are not this run's. Deletes nothing."""
    run = store.get_run(run_id)
    files = RunFiles(blob, run_id)
    keys = list(blob.list(f"{run_id}/"))
    if run is None and not keys:
        raise RunNotFoundError(f"run '{run_id}' is neither in {store.uri} nor under "
                               f"{blob.uri}", "check the run id, --state and --out")
    if run is not None and run.state in LIVE_STATES and not force:
        raise ConfigError(f"run '{run_id}' is {run.state.value}",
                          f"stop it first (docfleet cancel {run_id}), or pass --force")
    foreign = foreign_root(files, run)
    if foreign is not None:
        raise ConfigError(f"refusing to delete the outputs of run '{run_id}': {foreign}",
                          "pass the --state that holds that run (and its --out), or "
                          "remove the files yourself")
    return Deletion(run_id, run, files, keys)


def carry_out(deletion: Deletion, store: CoordinationStore, settle_seconds: float,
              say: Callable[[str], None]) -> tuple[bool, int]:
    """Delete as the module docstring says. Returns (the state existed, output files
    deleted); ``say`` gets a line before a live run's wait."""
    blob, run_id = deletion.files.blob, deletion.run_id
    root = deletion.files.key(ROOT_KEY)
    keys = deletion.keys
    if root in keys:
        blob.delete(root)
    existed = False
    if deletion.live:  # the workers learn first, then what they were writing goes
        existed = store.delete_run(run_id)
        say(f"run '{run_id}': state deleted; waiting {settle_seconds:g}s (a lease) for its "
            "workers to stop writing")
        time.sleep(settle_seconds)
        keys = list(blob.list(f"{run_id}/"))
    deleted = len({*deletion.keys, *keys})
    for key in keys:
        if key != root:
            blob.delete(key)
    if not deletion.live:
        existed = store.delete_run(run_id)
    if isinstance(blob, HasFolders):
        blob.remove_empty_folders(f"{run_id}/")
    return existed, deleted
