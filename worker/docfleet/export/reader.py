"""Reading a run for export: through its root manifest, one unit at a time, every shard
and document verified against the sha256 its part recorded before it is used.

Contracts:

- A run without a root manifest is refused (:class:`RunIncompleteError`) unless
  ``partial=True``; then only the parts of the units the state store holds as DONE are
  read, and :attr:`RunReader.note` says so.
- :meth:`RunReader.shard` and :meth:`RunReader.document` raise :class:`TamperedError`
  naming the unit and the key when the bytes differ from the part's record.
- Nothing is held across units: memory is bounded by the largest unit.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from docfleet.blob import BlobStore, open_blob_store
from docfleet.core.errors import BlobNotFoundError, DocfleetError, ManifestGapError
from docfleet.core.models import UnitState
from docfleet.dataset.manifest import ROOT_KEY, RunFiles, parse_json, part_key, sha256
from docfleet.dataset.shards import read_shard
from docfleet.state import open_state_store


class ExportError(DocfleetError):
    """An export or score that cannot proceed (bad sink, missing table, …)."""


class RunIncompleteError(ExportError):
    """The run has no root manifest and ``--partial`` was not given."""


class TamperedError(ExportError):
    """A shard, document or part whose bytes differ from its recorded sha256."""

    exit_code = 1


@dataclass(frozen=True)
class PartInfo:
    """One unit's verified part."""

    unit: int
    start: int
    count: int
    documents: dict[str, dict[str, Any]]  # key → {sha256, bytes}
    shards: dict[str, dict[str, Any]]  # table → {key, sha256, bytes, rows}


class RunReader:
    """One run's parts and shards. ``partial`` needs ``state_uri`` (the store that knows
    which units are DONE; the caller resolves it from its settings: the reader reads no
    environment). Raises :class:`ExportError` for a partial read of an incomplete run
    without one."""

    def __init__(self, out_uri: str | BlobStore, run_id: str, *, partial: bool = False,
                 state_uri: str | None = None) -> None:
        blob = open_blob_store(out_uri) if isinstance(out_uri, str) else out_uri
        self.files = RunFiles(blob, run_id)
        self.run_id = run_id
        self.partial = False
        self.note: str | None = None
        self.root: dict[str, Any] | None = None
        #: the run's parameters (pack, options, …): the root's, else the state store's
        self.parameters: dict[str, Any] = {}
        self._parts: list[tuple[int, str | None]] = []
        try:
            root_bytes = self.files.get(ROOT_KEY)
        except BlobNotFoundError:
            root_bytes = None
        if root_bytes is not None:
            self.root = parse_json(root_bytes, self.files.uri(ROOT_KEY))
            self._parts = [(p["unit"], p["sha256"]) for p in self.root["parts"]]
            self.parameters = dict(self.root.get("parameters") or {})
            if partial:
                self.note = f"run {run_id} is complete; --partial changes nothing"
        elif not partial:
            raise RunIncompleteError(
                f"run {run_id} has no root manifest at {self.files.uri(ROOT_KEY)}: "
                "it is not complete",
                "wait for it to finish, or pass --partial (with --state) to export only "
                "its DONE units",
            )
        else:
            self._parts = self._done_units(state_uri)
            self.partial = True

    def _done_units(self, state_uri: str | None) -> list[tuple[int, str | None]]:
        if not state_uri:
            raise ExportError(f"run '{self.run_id}' is not complete and no state store was "
                              "given", "--partial needs the run's state store: pass --state")
        store = open_state_store(state_uri, create=False)
        try:
            run = store.get_run(self.run_id)
            if run is None:
                raise ExportError(f"run '{self.run_id}' does not exist in {store.uri}",
                                  "--partial needs the run's state store: pass --state")
            units = store.units(self.run_id)
            self.parameters = run.spec.parameters()
        finally:
            store.close()
        done = [(u.index, u.part_sha256) for u in units if u.state == UnitState.DONE]
        self.note = (f"run {self.run_id} is not complete: exporting only its "
                     f"{len(done)} DONE unit(s) of {len(units)} (--partial)")
        return sorted(done)

    @property
    def units(self) -> list[int]:
        return [unit for unit, _ in self._parts]

    def parts(self) -> Iterator[PartInfo]:
        """Each unit's part, in unit order, checked against the sha256 the root (or the
        state store, with ``partial``) recorded."""
        for unit, expected in self._parts:
            key = part_key(unit)
            try:
                data = self.files.get(key)
            except BlobNotFoundError:
                raise ManifestGapError(f"unit {unit}: part {self.files.uri(key)} is missing",
                                       "run `docfleet resume` to regenerate it") from None
            if expected is not None and sha256(data) != expected:
                raise TamperedError(f"unit {unit}: part {self.files.uri(key)} does not match "
                                    "its recorded sha256", "the run was modified; regenerate it")
            part = parse_json(data, self.files.uri(key))
            yield PartInfo(
                unit=part["unit"], start=part["start"], count=part["count"],
                documents={d["key"]: d for d in part["documents"]},
                shards={s["table"]: s for s in part["shards"]},
            )

    def tables(self) -> list[str]:
        """The golden tables the run wrote (from the root's totals, else the first part)."""
        if self.root is not None:
            return sorted(self.root["rows"])
        for part in self.parts():
            return sorted(part.shards)
        return []

    def expected_rows(self, table: str) -> int | None:
        """Rows the root manifest promises for ``table`` (None for a partial run)."""
        return None if self.root is None else self.root["rows"].get(table, 0)

    def _verified(self, part: PartInfo, entry: dict[str, Any], what: str) -> bytes:
        key = entry["key"]
        try:
            data = self.files.get(key)
        except BlobNotFoundError:
            raise TamperedError(f"unit {part.unit}: {what} {self.files.uri(key)} is missing",
                                "the run was modified; regenerate it") from None
        if len(data) != entry["bytes"] or sha256(data) != entry["sha256"]:
            raise TamperedError(
                f"unit {part.unit}: {what} {key} does not match its recorded sha256",
                "refusing to export a modified run; regenerate the unit",
            )
        return data

    def shard(self, part: PartInfo, table: str) -> pa.Table:
        """The verified shard of ``table`` for ``part``'s unit. Raises
        :class:`TamperedError` (unit and key named) and :class:`ExportError`."""
        entry = part.shards.get(table)
        if entry is None:
            raise ExportError(f"unit {part.unit} has no shard of table '{table}'",
                              f"the run's tables are: {', '.join(sorted(part.shards))}")
        data = self._verified(part, entry, "shard")
        table_data = read_shard(data)
        if table_data.num_rows != entry["rows"]:
            raise TamperedError(f"unit {part.unit}: shard {entry['key']} holds "
                                f"{table_data.num_rows} rows, its part says {entry['rows']}")
        return table_data

    def document(self, part: PartInfo, name: str) -> bytes:
        """The verified bytes of ``documents/<name>`` of ``part``'s unit."""
        key = f"documents/{name}"
        entry = part.documents.get(key)
        if entry is None:
            raise ExportError(f"unit {part.unit}: document {key} is not in its part")
        return self._verified(part, entry, "document")

    def iter_table(self, table: str) -> Iterator[tuple[PartInfo, pa.Table]]:
        """(part, shard) for every unit, in unit order."""
        for part in self.parts():
            yield part, self.shard(part, table)
