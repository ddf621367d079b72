"""The ``bench`` pack: a calibrated synthetic workload for measuring coordination.

Each index yields one small deterministic JSON document and one golden row. Knobs: the
pack's task-local settings (not run parameters), read from the task's environment once
by :meth:`BenchPack.load_settings` and given to the session in its context:

- ``DOCFLEET_BENCH_DOC_MS``: sleep this many milliseconds per document;
- ``DOCFLEET_BENCH_FAIL_RATE``: fraction of indexes (chosen by seed) that raise;
- ``DOCFLEET_BENCH_FAIL_INDEXES``: comma-separated indexes that raise;
- ``DOCFLEET_BENCH_CRASH_INDEXES``: indexes that kill the process (``os._exit(137)``),
  a poison document.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from docfleet.core.durations import parse_seconds
from docfleet.core.errors import ConfigError
from docfleet.core.seeding import document_rng, document_seed
from docfleet.packs.base import GoldenTables, Pack, PackContext, RenderedDocument

SCHEMA = pa.schema(
    [
        pa.field("document", pa.int64(), nullable=False),
        pa.field("value", pa.int64(), nullable=False),
        pa.field("label", pa.string(), nullable=False),
    ]
)

_WORDS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel")


class BenchDocumentError(RuntimeError):
    """A failure injected by ``DOCFLEET_BENCH_FAIL_*``."""


@dataclass(frozen=True)
class BenchSettings:
    """The knobs of the module docstring, checked like every setting (finite, in range:
    milliseconds up to a minute, a rate 0-1, indexes as integers)."""

    doc_seconds: float = 0.0
    fail_rate: float = 0.0
    fail_indexes: frozenset[int] = frozenset()
    crash_indexes: frozenset[int] = frozenset()

    @classmethod
    def load(cls, environ: Mapping[str, str]) -> BenchSettings:
        """From ``environ``; :class:`ConfigError` naming the variable of a bad value."""

        def number(var: str, maximum: float, what: str) -> float:
            raw = environ.get(var, "").strip()
            if not raw:
                return 0.0
            return parse_seconds(raw, var, maximum=maximum, what=what,
                                 hint=f"set {var} to a finite number in that range, or "
                                      "unset it (default 0)")

        def indexes(var: str) -> frozenset[int]:
            raw = environ.get(var, "").strip()
            try:
                return frozenset(int(x) for x in raw.split(",") if x.strip())
            except ValueError:
                raise ConfigError(f"{var}={raw!r} is not a list of indexes",
                                  "e.g. 3,17,40") from None

        return cls(number("DOCFLEET_BENCH_DOC_MS", 60_000, "a number of milliseconds") / 1000,
                   number("DOCFLEET_BENCH_FAIL_RATE", 1.0, "a fraction"),
                   indexes("DOCFLEET_BENCH_FAIL_INDEXES"),
                   indexes("DOCFLEET_BENCH_CRASH_INDEXES"))


class BenchSession:
    def __init__(self, knobs: BenchSettings) -> None:
        self.doc_seconds = knobs.doc_seconds
        self.fail_rate = knobs.fail_rate
        self.fail_indexes = knobs.fail_indexes
        self.crash_indexes = knobs.crash_indexes

    def render(self, run_id: str, indexes: Sequence[int], total: int | None = None
               ) -> Iterator[RenderedDocument]:
        for index in indexes:
            if index in self.crash_indexes:
                os._exit(137)
            if index in self.fail_indexes or (
                self.fail_rate and (document_seed(run_id, index) % 10_000) < self.fail_rate * 10_000
            ):
                raise BenchDocumentError(f"injected failure at document {index}")
            if self.doc_seconds:
                time.sleep(self.doc_seconds)
            rng = document_rng(run_id, index)
            value = rng.randrange(1_000_000)
            label = "-".join(rng.choice(_WORDS) for _ in range(3))
            body = {"run_id": run_id, "document": index, "value": value, "label": label}
            data = json.dumps(body, sort_keys=True).encode() + b"\n"
            yield RenderedDocument(
                index=index,
                files={f"{index:06d}.json": data},
                rows={"items": [{"document": index, "value": value, "label": label}]},
            )

    def close(self) -> None:
        pass


class BenchPack(Pack):
    name = "bench"

    def tables(self, options: Mapping[str, Any]) -> GoldenTables:
        return GoldenTables({"items": SCHEMA}, document="items")

    def validate_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        if options:
            raise ConfigError(
                f"the bench pack takes no options (got {', '.join(sorted(options))})",
                "tune it with DOCFLEET_BENCH_DOC_MS / DOCFLEET_BENCH_FAIL_RATE instead",
            )
        return {}

    def load_settings(self, environ: Mapping[str, str], overrides: Mapping[str, Any]
                      ) -> BenchSettings:
        """The ``DOCFLEET_BENCH_*`` knobs (:class:`ConfigError` for a bad one, before a run
        is planned)."""
        return BenchSettings.load(environ)

    def open(self, options: Mapping[str, Any], context: PackContext) -> BenchSession:
        return BenchSession(context.pack_settings)
