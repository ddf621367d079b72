"""Manifests: a part per unit, written before the unit is marked DONE, and the root,
written once when every unit is DONE. Both are deterministic JSON (same input, same
bytes), so a unit worked twice leaves identical files.

Layout under ``<out>/<run_id>/``::

    documents/<name>                      rendered documents
    golden/<table>/unit-000042.parquet    one shard per unit per table
    manifest/unit-000042.json             part
    manifest.json                         root: its presence means the run is complete
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from docfleet.blob.base import BlobStore, HashesInPlace, SyncsLater
from docfleet.core import faults
from docfleet.core.errors import BlobNotFoundError, ManifestGapError

PART_SCHEMA = "docfleet.part/1"
ROOT_SCHEMA = "docfleet.manifest/1"
ROOT_KEY = "manifest.json"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def dumps(obj: Any) -> bytes:
    """Canonical JSON bytes."""
    return (json.dumps(obj, sort_keys=True, indent=1, ensure_ascii=False) + "\n").encode()


def part_key(unit_index: int) -> str:
    return f"manifest/unit-{unit_index:06d}.json"


def shard_key(table: str, unit_index: int) -> str:
    return f"golden/{table}/unit-{unit_index:06d}.parquet"


def document_key(name: str) -> str:
    return f"documents/{name}"


@dataclass
class Part:
    """The manifest part of one unit."""

    run_id: str
    unit: int
    start: int
    count: int
    documents: list[dict[str, Any]] = field(default_factory=list)
    shards: list[dict[str, Any]] = field(default_factory=list)

    def add_document(self, key: str, data: bytes) -> None:
        self.documents.append({"key": key, "sha256": sha256(data), "bytes": len(data)})

    def add_shard(self, table: str, key: str, data: bytes, rows: int) -> None:
        self.shards.append(
            {"table": table, "key": key, "sha256": sha256(data), "bytes": len(data), "rows": rows}
        )

    def to_bytes(self) -> bytes:
        return dumps(
            {
                "schema": PART_SCHEMA,
                "run_id": self.run_id,
                "unit": self.unit,
                "start": self.start,
                "count": self.count,
                "documents": sorted(self.documents, key=lambda d: d["key"]),
                "shards": sorted(self.shards, key=lambda s: s["key"]),
            }
        )


def parse_json(data: bytes, where: str) -> dict[str, Any]:
    """Parse manifest JSON; a corrupt file raises :class:`ManifestGapError` naming it."""
    try:
        obj = json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ManifestGapError(f"{where} is not valid JSON ({exc})", "regenerate it") from None
    if not isinstance(obj, dict) or "schema" not in obj:
        raise ManifestGapError(f"{where} is not a docfleet manifest", "regenerate it")
    return obj


def build_root(
    run_id: str, parameters: dict[str, Any], fingerprint: str, parts: list[tuple[int, bytes]],
    environment: dict[str, Any] | None = None,
) -> bytes:
    """The root manifest over ``parts`` (unit index, part bytes), with totals and the
    generator's ``environment`` (:mod:`docfleet.core.environment`; informative, not verified)."""
    entries = []
    tables: dict[str, int] = {}
    documents = 0
    total_bytes = 0
    for unit, data in sorted(parts):
        part = parse_json(data, f"part of unit {unit}")
        entries.append({"unit": unit, "key": part_key(unit), "sha256": sha256(data)})
        documents += len(part["documents"])
        for doc in part["documents"]:
            total_bytes += doc["bytes"]
        for shard in part["shards"]:
            tables[shard["table"]] = tables.get(shard["table"], 0) + shard["rows"]
            total_bytes += shard["bytes"]
    return dumps(
        {
            "schema": ROOT_SCHEMA,
            "run_id": run_id,
            "fingerprint": fingerprint,
            "parameters": parameters,
            "units": len(entries),
            "files": documents,
            "bytes": total_bytes,
            "rows": dict(sorted(tables.items())),
            "parts": entries,
            **({"environment": environment} if environment is not None else {}),
        }
    )


class RunFiles:
    """The blob keys of one run: everything lives under ``<run_id>/``."""

    def __init__(self, blob: BlobStore, run_id: str) -> None:
        self.blob = blob
        self.run_id = run_id
        # the optional member, looked up once (a Protocol isinstance costs ~30 µs)
        self._syncs_later = isinstance(blob, SyncsLater)

    def key(self, relative: str) -> str:
        return f"{self.run_id}/{relative}"

    def uri(self, relative: str) -> str:
        return f"{self.blob.uri.rstrip('/')}/{self.key(relative)}"

    def put(self, relative: str, data: bytes) -> None:
        """Write one of the run's files (a unit's document, shard or part): atomically,
        durable by the time :meth:`sync` returns (at once on a store without
        ``SyncsLater``)."""
        if faults.ARMED:
            faults.blob_put(self.blob, self.key(relative), data)
        if self._syncs_later:
            self.blob.put_unsynced(self.key(relative), data)  # type: ignore[attr-defined]
        else:
            self.blob.put(self.key(relative), data)

    def sync(self) -> None:
        """Make every file written so far durable (the finalizer, before the root)."""
        if self._syncs_later:
            self.blob.sync()  # type: ignore[attr-defined]

    def put_if_absent(self, relative: str, data: bytes) -> bool:
        return self.blob.put_if_absent(self.key(relative), data)

    def get(self, relative: str) -> bytes:
        return self.blob.get(self.key(relative))

    def exists(self, relative: str) -> bool:
        return self.blob.exists(self.key(relative))


def hash_blob(files: RunFiles, relative: str) -> tuple[str, int]:
    """The sha256 and size of one run file, streamed where the blob store can
    (``sha256_of``) so a large file is never held whole. Raises :class:`BlobNotFoundError`."""
    if isinstance(files.blob, HashesInPlace):
        return files.blob.sha256_of(files.key(relative))
    data = files.get(relative)
    return sha256(data), len(data)


def expected_unit_range(parameters: dict[str, Any], unit: int) -> tuple[int, int] | None:
    """``(start, count)`` of unit ``unit`` under a run's ``total``/``unit_size`` (``None``
    when the parameters do not say)."""
    total, size = parameters.get("total"), parameters.get("unit_size")
    if not isinstance(total, int) or not isinstance(size, int) or size < 1:
        return None
    start = unit * size
    return start, max(0, min(size, total - start))


def check_part(
    files: RunFiles, unit: int, expected_sha: str | None,
    parameters: dict[str, Any] | None = None,
) -> tuple[list[str], bytes | None]:
    """Check one unit's outputs as the root manifest needs them: the part exists, matches
    ``expected_sha`` (the sha256 the store recorded, or the root's entry), is a part of
    this run and unit (and of ``parameters``' range when given), and every document and
    shard it lists exists with the sha256 and size it records (each file hashed in turn,
    streamed). Read-only. Returns ``(problems, part bytes or None)``; no problems = intact."""
    where = files.uri(part_key(unit))
    try:
        data = files.get(part_key(unit))
    except BlobNotFoundError:
        return [f"unit {unit}: part {where} is missing"], None
    if expected_sha is not None and sha256(data) != expected_sha:
        return [f"unit {unit}: part {where} does not match its recorded sha256"], None
    try:
        part = parse_json(data, where)
    except ManifestGapError as exc:
        return [f"unit {unit}: {exc.message}"], None
    if part.get("run_id") != files.run_id or part.get("unit") != unit:
        return [f"unit {unit}: part {where} belongs to run {part.get('run_id')!r} unit "
                f"{part.get('unit')!r}"], None
    if parameters is not None:
        span = expected_unit_range(parameters, unit)
        if span is not None and (part.get("start"), part.get("count")) != span:
            return [f"unit {unit}: part {where} covers documents from {part.get('start')} "
                    f"({part.get('count')}), the run expects {span[0]} ({span[1]})"], None
    problems = []
    for entry in [*part.get("documents", []), *part.get("shards", [])]:
        try:
            digest, size = hash_blob(files, entry["key"])
        except BlobNotFoundError:
            problems.append(f"unit {unit}: {files.uri(entry['key'])} is missing")
            continue
        if digest != entry["sha256"] or size != entry["bytes"]:
            problems.append(f"unit {unit}: {files.uri(entry['key'])} does not match its sha256")
    return problems, (None if problems else data)


def verify_part(files: RunFiles, unit: int, expected_sha: str | None) -> list[str]:
    """Re-hash a part and every file it lists; return the differences (empty = ok)."""
    return check_part(files, unit, expected_sha)[0]


def read_root(files: RunFiles) -> tuple[dict[str, Any] | None, list[str]]:
    """The parsed root manifest, or ``(None, [why])`` when it is missing or corrupt."""
    try:
        return parse_json(files.get(ROOT_KEY), files.uri(ROOT_KEY)), []
    except BlobNotFoundError:
        return None, [f"no root manifest at {files.uri(ROOT_KEY)}: the run is not complete"]
    except ManifestGapError as exc:
        return None, [exc.message]


def root_shape_problems(root: dict[str, Any], run_id: str) -> list[str]:
    """Check a root is whole on its own: of ``run_id``, its parts cover units 0 … N-1 of
    its parameters exactly once (N = ceil(total / unit_size))."""
    where = f"root manifest of run {run_id}"
    if root.get("schema") != ROOT_SCHEMA or not isinstance(root.get("parts"), list):
        return [f"{where} is not a docfleet root manifest"]
    if root.get("run_id") != run_id:
        return [f"{where} belongs to run {root.get('run_id')!r}"]
    params = root.get("parameters") or {}
    total, size = params.get("total"), params.get("unit_size")
    units = sorted(e["unit"] for e in root["parts"] if isinstance(e, dict)
                   and isinstance(e.get("unit"), int))
    if isinstance(total, int) and isinstance(size, int) and size > 0:
        expected = -(-total // size)
        if units != list(range(expected)) or root.get("units") != expected:
            return [f"{where} lists {len(units)} part(s) for {expected} unit(s) "
                    f"(total {total}, unit size {size})"]
    return []


def root_binding_problems(root: dict[str, Any], fingerprint: str, parameters: dict[str, Any],
                          part_shas: dict[int, str | None]) -> list[str]:
    """Check that ``root`` is the root of this run: its fingerprint, total, unit size and
    unit count, and every part's sha256 equal to what the state store recorded
    (``part_shas``: unit index → sha256). Empty = bound."""
    problems = root_shape_problems(root, str(parameters.get("run_id")))
    if problems:
        return problems
    rp = root.get("parameters") or {}
    if root.get("fingerprint") != fingerprint:
        diffs = [f"{k} {rp.get(k)!r} vs {parameters.get(k)!r}" for k in ("total", "unit_size",
                 "pack", "options", "max_attempts") if rp.get(k) != parameters.get(k)]
        return [f"the root manifest's fingerprint {root.get('fingerprint')} is not the run's "
                f"{fingerprint}" + (f" ({', '.join(diffs)})" if diffs else "")]
    entries = {e["unit"]: e.get("sha256") for e in root["parts"]}
    if set(entries) != set(part_shas):
        return [f"the root manifest lists {len(entries)} part(s), the run has "
                f"{len(part_shas)} unit(s)"]
    bad = [u for u in sorted(part_shas) if part_shas[u] != entries[u]]
    if bad:
        return [f"the root manifest's part sha256 of {len(bad)} unit(s) (first {bad[0]}) "
                "differs from what the state store recorded"]
    return []


def verify_run(files: RunFiles, binding: tuple[str, dict[str, Any], dict[int, str | None]]
               | None = None) -> list[str]:
    """Re-hash the root manifest, every part and every file; return the differences.
    ``binding`` (fingerprint, parameters, unit → part sha256 from the state store) also
    checks the root belongs to that run. An empty list means the run is complete and
    intact: the same checks finalize makes before it writes a root."""
    root, problems = read_root(files)
    if root is None:
        return problems
    problems = root_shape_problems(root, files.run_id)
    if not problems and binding is not None:
        problems = root_binding_problems(root, *binding)
    if problems:
        return problems
    params = root.get("parameters") or {}
    for entry in root["parts"]:
        problems.extend(check_part(files, entry["unit"], entry["sha256"], params)[0])
    return problems
