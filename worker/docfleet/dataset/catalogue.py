"""Reading a built catalogue: :class:`Catalogue` is what generation runs use (no key, no
network but the blob store). It reads a finished run's files, so it sits with the dataset,
below the packs that read it (the catalogue package, which builds one, is above them). A
catalogue URI is the catalogue run's directory, ``<out>/<run_id>`` (e.g.
``file://./out/cat1`` or ``gs://bucket/cat1``)."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from docfleet.blob import open_blob_store
from docfleet.core.errors import BlobNotFoundError, ConfigError
from docfleet.dataset.manifest import ROOT_KEY, RunFiles, parse_json, sha256


@dataclass(frozen=True)
class CatalogueEntry:
    item: int
    kind: str
    line: str
    locale: str
    variant: int
    text: str
    source: str
    model: str
    reason: str
    spend_nano: int
    attempts: int = 0


def split_catalogue_uri(uri: str) -> tuple[str, str]:
    """``<blob uri>/<run_id>`` → (blob uri, run_id); :class:`ConfigError` if malformed."""
    base, sep, run_id = uri.rstrip("/").rpartition("/")
    if not sep or not run_id or "://" not in base + "/" or base.endswith(":/"):
        raise ConfigError(f"catalogue URI {uri!r} names no run",
                          "use <out>/<catalogue run id>, e.g. file://./out/cat1")
    return base, run_id


class Catalogue:
    """A completed catalogue, loaded whole (it is small: one row per item).

    :meth:`pick` is deterministic: the same (kind, locale, seed, line) gives the same text
    in every process."""

    def __init__(self, uri: str, run_id: str, digest: str, entries: list[CatalogueEntry],
                 parameters: dict[str, Any]) -> None:
        self.uri = uri
        self.run_id = run_id
        self.digest = digest
        self.entries = sorted(entries, key=lambda e: e.item)
        self.parameters = parameters
        self._index: dict[tuple[str, str, str | None], list[CatalogueEntry]] = defaultdict(list)
        for e in self.entries:
            if e.source == "llm":
                self._index[(e.kind, e.locale, e.line)].append(e)
                self._index[(e.kind, e.locale, None)].append(e)

    @classmethod
    def load(cls, uri: str) -> Catalogue:
        """Read the root manifest and every ``entries`` shard. Raises :class:`ConfigError`
        if the run is not complete or is not a catalogue."""

        base, run_id = split_catalogue_uri(uri)
        files = RunFiles(open_blob_store(base), run_id)
        try:
            root_bytes = files.get(ROOT_KEY)
        except BlobNotFoundError:
            raise ConfigError(f"catalogue {uri} has no root manifest (not built, or not "
                              "complete)", f"run docfleet catalogue build --run-id {run_id}"
                              ) from None
        root = parse_json(root_bytes, files.uri(ROOT_KEY))
        params = root.get("parameters", {})
        if params.get("kind") != "catalogue":
            raise ConfigError(f"{uri} is a {params.get('kind')!r} run, not a catalogue")
        from docfleet.dataset.shards import read_shard  # lazy: pyarrow, not for a launcher

        entries: list[CatalogueEntry] = []
        for part_entry in root["parts"]:
            part = parse_json(files.get(part_entry["key"]), files.uri(part_entry["key"]))
            for shard in part["shards"]:
                if shard["table"] != "entries":
                    continue
                for row in read_shard(files.get(shard["key"])).to_pylist():
                    entries.append(CatalogueEntry(
                        row["item"], row["kind"], row["line"], row["locale"], row["variant"],
                        row["text"], row["source"], row["model"], row["reason"],
                        row["spend_nano"], row["attempts"]))
        return cls(uri, run_id, sha256(root_bytes), entries, params)

    def pick(self, kind: str, locale: str, seed: int, line: str | None = None) -> str | None:
        """A model-written text of ``kind`` for ``locale`` (and product ``line`` if given;
        else any line), chosen by ``seed``; falls back to another locale of the same
        language; ``None`` if the catalogue has none (the caller uses procedural text)."""
        candidates = self._index.get((kind, locale, line))
        if not candidates:
            language = locale.split("-")[0]
            for (k, loc, ln), found in sorted(self._index.items(), key=lambda kv: str(kv[0])):
                if k == kind and ln == line and loc.split("-")[0] == language and found:
                    candidates = found
                    break
        if not candidates:
            return None
        mixed = int.from_bytes(hashlib.sha256(f"{seed}".encode()).digest()[:8], "big")
        return candidates[mixed % len(candidates)].text

    def summary(self) -> dict[str, Any]:
        by_source: dict[str, int] = defaultdict(int)
        by_reason: dict[str, int] = defaultdict(int)
        spend: dict[str, int] = defaultdict(int)
        for e in self.entries:
            by_source[e.source] += 1
            by_reason[e.reason] += 1
            spend[e.model] += e.spend_nano
        return {"uri": self.uri, "items": len(self.entries), "digest": self.digest,
                "by_source": dict(by_source), "by_reason": dict(by_reason),
                "spend_nano_by_model": dict(spend)}
