"""Golden shards: one Parquet file per unit per table, byte-deterministic."""

from __future__ import annotations

import io
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq


def shard_bytes(schema: pa.Schema, rows: list[dict[str, Any]]) -> bytes:
    """Encode ``rows`` as Parquet with ``schema``. Same rows → same bytes (no timestamps,
    fixed writer options). Raises if a row does not fit the schema."""
    table = pa.Table.from_pylist(rows, schema=schema)
    sink = io.BytesIO()
    pq.write_table(
        table, sink, compression="zstd", use_dictionary=True, write_statistics=True,
        store_schema=True,
    )
    return sink.getvalue()


def read_shard(data: bytes) -> pa.Table:
    return pq.read_table(io.BytesIO(data))
