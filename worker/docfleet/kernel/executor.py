"""The unit executor of one task: work one claimed unit (render its documents, write
them, its golden shards and its part, then hand the completion to the claim queue), and
turn what can go wrong into an outcome: a document's or pack's error fails the unit (an
attempt spent), this task's own environment (a full or read-only volume, the blob store
unreachable) releases it for a healthy peer, a lost lease (or the run deleted under it)
abandons it with no shard or part written after, a stop releases it. The lease is
renewed meanwhile by :class:`docfleet.kernel.lease.LeaseKeeper`."""

from __future__ import annotations

import logging
import random
import threading
import time
import traceback
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from docfleet import telemetry
from docfleet.core import clock, faults
from docfleet.core.errors import ConfigError, DocfleetError
from docfleet.core.identity import TaskIdentity
from docfleet.core.models import Claim, RunSpec
from docfleet.core.settings import Settings
from docfleet.dataset.manifest import Part, RunFiles, document_key, part_key, sha256, shard_key
from docfleet.dataset.shards import TableRows, shard_bytes
from docfleet.kernel.claims import ClaimQueue
from docfleet.kernel.exits import EXIT_STORE
from docfleet.kernel.lease import Heartbeat, LeaseKeeper
from docfleet.packs.base import DocumentPack, PackSession, pack_context
from docfleet.state.base import StateStore

#: Consecutive environment faults (this task's output volume full, read-only, refusing
#: writes) after which the task exits EXIT_STORE so the engine restarts it elsewhere.
MAX_ENVIRONMENT_FAULTS = 3
#: Back-off after an environment fault: BASE * 2**(n-1) seconds, jittered, at most MAX.
ENVIRONMENT_BACKOFF_BASE, ENVIRONMENT_BACKOFF_MAX = 1.0, 30.0


class EnvironmentFault(DocfleetError):
    """A write to the output store failed for a reason of this task's environment (an
    ``OSError`` such as ENOSPC, EROFS or EACCES, or the blob store unreachable): the unit
    is released without burning an attempt."""

    exit_code = EXIT_STORE


@dataclass
class UnitOutcome:
    status: str  # done | lost | released | failed
    documents: int = 0
    bytes: int = 0
    renewals: int = 0  # lease renewal writes the unit took


class UnitExecutor:
    """Works the units of run ``spec`` for one task (:meth:`work`); the pack's session is
    opened at the first unit and kept for the task (:meth:`close`)."""

    def __init__(self, settings: Settings, spec: RunSpec, identity: TaskIdentity,
                 store: StateStore, files: RunFiles, pack: DocumentPack,
                 log: logging.Logger, stop: threading.Event, claims: ClaimQueue,
                 pack_settings: Mapping[str, Any] | None = None) -> None:
        self.settings = settings
        self.spec = spec
        self.identity = identity
        self.store = store
        self.files = files
        self.pack = pack
        self.log = log
        self.stop = stop
        self.claims = claims
        self.pack_settings = dict(pack_settings or {})
        self.tables = pack.tables(spec.options)
        self._session: PackSession | None = None
        self._environment_faults = 0
        self._heartbeat = Heartbeat()  # one renewal thread for the task's units

    def close(self) -> None:
        """Close the pack session and end the heartbeat thread; idempotent."""
        self._heartbeat.close()
        if self._session is not None:
            self._session.close()
            self._session = None

    def work(self, claim: Claim) -> UnitOutcome:
        self.log.info("claimed unit %d (documents %d-%d, attempt %d)", claim.unit_index,
                      claim.start, claim.start + claim.count - 1, claim.attempts,
                      extra={"event": "unit.claim", "unit": claim.unit_index,
                             "token": claim.token})
        with telemetry.span("docfleet.unit", {
            "docfleet.unit.index": claim.unit_index, "docfleet.unit.attempt": claim.attempts,
            "docfleet.unit.start": claim.start, "docfleet.unit.count": claim.count,
        }) as unit_span, LeaseKeeper(self.store, claim, self.settings.lease_seconds,
                                     self.settings.heartbeat, self.log,
                                     self._heartbeat) as keeper:
            try:
                outcome = self._produce(claim, keeper)
            except EnvironmentFault as exc:
                keeper.ending.set()
                outcome = self._environment_fault(claim, exc)
            except DocfleetError as exc:
                if exc.exit_code == EXIT_STORE:
                    raise
                keeper.ending.set()
                if isinstance(exc, ConfigError):  # this task's setup, not the unit's fault:
                    self.store.release_unit(claim, clock.now())  # no attempt burnt
                    raise
                outcome = self._fail(claim, f"{type(exc).__name__}: {exc}")
            except Exception as exc:  # a pack's bug or a bad document: the unit fails
                self.log.debug("%s", traceback.format_exc())
                keeper.ending.set()
                outcome = self._fail(claim, f"{type(exc).__name__}: {exc}")
            unit_span.set_attributes({"docfleet.unit.outcome": outcome.status,
                                      "docfleet.unit.documents": outcome.documents,
                                      "docfleet.unit.bytes": outcome.bytes})
        outcome.renewals = keeper.renewals  # the keeper has stopped: its final count
        return outcome

    def _environment_fault(self, claim: Claim, exc: EnvironmentFault) -> UnitOutcome:
        """Release the unit (no attempt burnt: a healthy peer can do it), back off with
        jitter, and give up (raise, exit EXIT_STORE) after MAX_ENVIRONMENT_FAULTS in a row."""
        self._environment_faults += 1
        released = self.store.release_unit(claim, clock.now())
        self.log.error("unit %d released: this task cannot write its outputs (%s); fault %d "
                       "of %d in a row", claim.unit_index, exc.message,
                       self._environment_faults, MAX_ENVIRONMENT_FAULTS,
                       extra={"event": "unit.environment", "unit": claim.unit_index,
                              "released": released})
        telemetry.fail(exc.message)
        if self._environment_faults >= MAX_ENVIRONMENT_FAULTS:
            raise EnvironmentFault(
                f"task gave up after {self._environment_faults} consecutive output write "
                f"failures (last: {exc.message})",
                "fix this task's output volume or credentials; its units were released "
                "to healthy peers",
            )
        delay = min(ENVIRONMENT_BACKOFF_MAX,
                    ENVIRONMENT_BACKOFF_BASE * 2 ** (self._environment_faults - 1))
        self.stop.wait(delay * random.uniform(0.5, 1.0))
        return UnitOutcome("released")

    def _put(self, key: str, data: bytes) -> None:
        """One output write; a failure of this task's environment is an EnvironmentFault."""
        try:
            self.files.put(key, data)
        except OSError as exc:
            where = self.files.uri(key)
            raise EnvironmentFault(f"writing {where} failed: {exc.strerror or exc}") from None
        except DocfleetError as exc:
            if exc.exit_code != EXIT_STORE:
                raise
            raise EnvironmentFault(exc.message, exc.hint) from None

    def _fail(self, claim: Claim, error: str) -> UnitOutcome:
        self.store.fail_unit(claim, error, self.spec.max_attempts, clock.now())
        telemetry.fail(error)
        self.log.error("unit %d failed (attempt %d of %d): %s", claim.unit_index,
                       claim.attempts, self.spec.max_attempts, error,
                       extra={"event": "unit.fail", "unit": claim.unit_index})
        return UnitOutcome("failed")

    def _session_for_work(self) -> PackSession:
        if self._session is None:
            # the pack's settings loaded once for the task; the store only if it uses one
            context = pack_context(self.pack, self.spec.run_id, self.settings,
                                   overrides=self.pack_settings, store=self.store,
                                   owner=self.identity.owner, log=self.log, stop=self.stop)
            self._session = self.pack.open(self.spec.options, context)
        return self._session

    def _abandon(self, claim: Claim) -> UnitOutcome:
        self.log.warning("abandoning unit %d: its lease was lost", claim.unit_index,
                         extra={"event": "unit.abandon", "unit": claim.unit_index})
        return UnitOutcome("lost")

    def _produce(self, claim: Claim, keeper: LeaseKeeper) -> UnitOutcome:
        began = time.monotonic()
        part = Part(claim.run_id, claim.unit_index, claim.start, claim.count)
        rows = {table: TableRows() for table in self.tables}
        written = 0
        documents = self._session_for_work().render(claim.run_id, claim.indexes,
                                                    self.spec.total)
        try:
            for doc in documents:
                for name, data in sorted(doc.files.items()):
                    key = document_key(name)
                    self._put(key, data)
                    part.add_document(key, data)
                    written += len(data)
                for table, table_rows in doc.rows.items():
                    if table not in rows:
                        raise ValueError(f"pack {self.pack.name} wrote undeclared table {table}")
                    rows[table].extend(table_rows)
                if keeper.lost.is_set() or self.stop.is_set():
                    break
        finally:
            close = getattr(documents, "close", None)
            if close is not None:
                close()
        if keeper.lost.is_set():
            return self._abandon(claim)
        if self.stop.is_set():
            keeper.ending.set()
            self.claims.release(claim)
            return UnitOutcome("released")
        for table, schema in self.tables.items():
            if keeper.lost.is_set():  # a lost lease (or a deleted run): write no more
                return self._abandon(claim)
            data = shard_bytes(schema, rows[table])
            key = shard_key(table, claim.unit_index)
            self._put(key, data)
            part.add_shard(table, key, data, len(rows[table]))
            written += len(data)
        if keeper.lost.is_set():
            return self._abandon(claim)
        part_data = part.to_bytes()
        part_sha = sha256(part_data)
        with telemetry.span("docfleet.manifest.part", {
            "docfleet.manifest.key": part_key(claim.unit_index),
            "docfleet.manifest.sha256": part_sha, "docfleet.manifest.size": len(part_data),
            "docfleet.unit.index": claim.unit_index,
        }):
            self._put(part_key(claim.unit_index), part_data)
        if faults.ARMED:
            faults.hit("unit.part")
        keeper.ending.set()
        self._environment_faults = 0
        self.claims.observe(time.monotonic() - began)
        completed = self.claims.complete(claim, part_sha, written)
        if completed is not None:
            self.claims.log_completion(claim, completed, written)
        return UnitOutcome("done" if completed is not False else "lost", claim.count, written)
