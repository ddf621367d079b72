"""The blob-store contract, run unchanged against every blob store in tests/support/backends.py."""

from __future__ import annotations

import pytest
from racers import race, race_put_if_absent

from docfleet.blob import BlobStore, open_blob_store
from docfleet.core.errors import BlobNotFoundError


@pytest.fixture
def blob(blob_uri: str) -> BlobStore:
    return open_blob_store(blob_uri)


def test_put_get_roundtrip_and_overwrite(blob: BlobStore) -> None:
    blob.put("r/documents/000001.json", b"one")
    assert blob.get("r/documents/000001.json") == b"one"
    blob.put("r/documents/000001.json", b"two")
    assert blob.get("r/documents/000001.json") == b"two"
    assert blob.exists("r/documents/000001.json")
    assert not blob.exists("r/documents/000002.json")


def test_missing_key_raises_a_typed_error(blob: BlobStore) -> None:
    with pytest.raises(BlobNotFoundError, match="missing/key"):
        blob.get("missing/key")


def test_large_object_roundtrip(blob: BlobStore) -> None:
    data = bytes(range(256)) * 40_000  # ~10 MB
    blob.put("r/golden/big.parquet", data)
    assert blob.get("r/golden/big.parquet") == data


def test_list_by_prefix_is_sorted_and_complete(blob: BlobStore) -> None:
    keys = [f"r/manifest/unit-{i:06d}.json" for i in range(25)] + ["r/manifest.json", "s/x"]
    for key in keys:
        blob.put(key, b"{}")
    assert list(blob.list("r/manifest/")) == sorted(keys[:25])
    assert set(blob.list("r/")) == set(keys[:26])
    assert list(blob.list("nothing/")) == []


def test_put_if_absent_creates_once(blob: BlobStore) -> None:
    assert blob.put_if_absent("r/manifest.json", b"first")
    assert not blob.put_if_absent("r/manifest.json", b"second")
    assert blob.get("r/manifest.json") == b"first"


def test_put_if_absent_race_across_processes_has_one_winner(
    blob: BlobStore, blob_uri: str, pool
) -> None:
    results = race(pool, race_put_if_absent,
                   [(blob_uri, "r/manifest.json", f"writer {i}".encode()) for i in range(6)])
    assert sorted(results) == [False] * 5 + [True]
    winner = results.index(True)
    assert blob.get("r/manifest.json") == f"writer {winner}".encode()


def test_delete_is_idempotent(blob: BlobStore) -> None:
    blob.put("r/x", b"1")
    blob.delete("r/x")
    blob.delete("r/x")
    assert not blob.exists("r/x")
