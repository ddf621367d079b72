"""The ``bench`` pack: a calibrated synthetic workload for measuring coordination.

Each index yields one small deterministic JSON document and one golden row. Knobs, read
from the environment of each worker (they are not run parameters):

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
from typing import Any

import pyarrow as pa

from docfleet.core.errors import ConfigError
from docfleet.core.seeding import document_rng, document_seed
from docfleet.packs.base import RenderedDocument

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


def _index_set(var: str) -> frozenset[int]:
    raw = os.environ.get(var, "").strip()
    try:
        return frozenset(int(x) for x in raw.split(",") if x.strip())
    except ValueError:
        raise ConfigError(f"{var}={raw!r} is not a list of indexes", "e.g. 3,17,40") from None


class BenchSession:
    def __init__(self) -> None:
        from docfleet.core.settings import env_seconds

        # checked like every setting: finite, in range (ms up to a minute; a rate 0-1)
        self.doc_seconds = env_seconds("DOCFLEET_BENCH_DOC_MS", 0.0, maximum=60_000,
                                       what="a number of milliseconds") / 1000
        self.fail_rate = env_seconds("DOCFLEET_BENCH_FAIL_RATE", 0.0, maximum=1.0,
                                     what="a fraction")
        self.fail_indexes = _index_set("DOCFLEET_BENCH_FAIL_INDEXES")
        self.crash_indexes = _index_set("DOCFLEET_BENCH_CRASH_INDEXES")

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


class BenchPack:
    name = "bench"

    def tables(self, options: Mapping[str, Any]) -> dict[str, pa.Schema]:
        return {"items": SCHEMA}

    def validate_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        if options:
            raise ConfigError(
                f"the bench pack takes no options (got {', '.join(sorted(options))})",
                "tune it with DOCFLEET_BENCH_DOC_MS / DOCFLEET_BENCH_FAIL_RATE instead",
            )
        return {}

    def preflight(self, options: Mapping[str, Any]) -> None:
        """Before planning: the ``DOCFLEET_BENCH_*`` knobs parse (:class:`ConfigError`)."""
        BenchSession()

    def open(self, options: Mapping[str, Any]) -> BenchSession:
        return BenchSession()
