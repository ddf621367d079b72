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

from docfleet import faults
from docfleet.blob.base import BlobStore
from docfleet.errors import BlobNotFoundError, ManifestGapError

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
    generator's ``environment`` (:mod:`docfleet.environment`; informative, not verified)."""
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

    def key(self, relative: str) -> str:
        return f"{self.run_id}/{relative}"

    def uri(self, relative: str) -> str:
        return f"{self.blob.uri.rstrip('/')}/{self.key(relative)}"

    def put(self, relative: str, data: bytes) -> None:
        if faults.ARMED:
            faults.blob_put(self.blob, self.key(relative), data)
        self.blob.put(self.key(relative), data)

    def put_if_absent(self, relative: str, data: bytes) -> bool:
        return self.blob.put_if_absent(self.key(relative), data)

    def get(self, relative: str) -> bytes:
        return self.blob.get(self.key(relative))

    def exists(self, relative: str) -> bool:
        return self.blob.exists(self.key(relative))


def verify_part(files: RunFiles, unit: int, expected_sha: str | None) -> list[str]:
    """Re-hash a part and every file it lists; return the differences (empty = ok)."""
    where = files.uri(part_key(unit))
    try:
        data = files.get(part_key(unit))
    except BlobNotFoundError:
        return [f"unit {unit}: part {where} is missing"]
    if expected_sha is not None and sha256(data) != expected_sha:
        return [f"unit {unit}: part {where} does not match its recorded sha256"]
    try:
        part = parse_json(data, where)
    except ManifestGapError as exc:
        return [f"unit {unit}: {exc.message}"]
    problems = []
    for entry in [*part["documents"], *part["shards"]]:
        try:
            blob = files.get(entry["key"])
        except BlobNotFoundError:
            problems.append(f"unit {unit}: {files.uri(entry['key'])} is missing")
            continue
        if sha256(blob) != entry["sha256"] or len(blob) != entry["bytes"]:
            problems.append(f"unit {unit}: {files.uri(entry['key'])} does not match its sha256")
    return problems


def verify_run(files: RunFiles) -> list[str]:
    """Re-hash the root manifest, every part and every file; return the differences.
    An empty list means the run is complete and intact."""
    try:
        root = parse_json(files.get(ROOT_KEY), files.uri(ROOT_KEY))
    except BlobNotFoundError:
        return [f"no root manifest at {files.uri(ROOT_KEY)}: the run is not complete"]
    except ManifestGapError as exc:
        return [exc.message]
    problems: list[str] = []
    for entry in root["parts"]:
        problems.extend(verify_part(files, entry["unit"], entry["sha256"]))
    return problems
