"""The blob-store contract: where documents, golden shards and manifests live."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol, runtime_checkable


@runtime_checkable
class BlobStore(Protocol):
    """Keys are ``/``-separated paths relative to the store's root URI."""

    uri: str

    def put(self, key: str, data: bytes) -> None:
        """Write ``data`` atomically: a reader sees the old object or the whole new one."""
        ...

    def put_if_absent(self, key: str, data: bytes) -> bool:
        """Create ``key`` only if it does not exist; true if this call created it.
        Atomic across processes: of concurrent callers exactly one wins."""
        ...

    def get(self, key: str) -> bytes:
        """Read a whole object. Raises :class:`BlobNotFoundError`."""
        ...

    def exists(self, key: str) -> bool: ...

    def list(self, prefix: str) -> Iterator[str]:
        """Every key that starts with ``prefix``, sorted."""
        ...

    def delete(self, key: str) -> None:
        """Remove ``key`` if present (idempotent)."""
        ...


@runtime_checkable
class HashesInPlace(Protocol):
    """An optional member: a blob store that hashes an object where it lies (the local
    file store streams it), so a large file is never read whole. Without it the caller
    reads the object and hashes it (:func:`docfleet.dataset.manifest.hash_blob`)."""

    def sha256_of(self, key: str) -> tuple[str, int]:
        """The sha256 and size of object ``key``. Raises :class:`BlobNotFoundError`."""
        ...


@runtime_checkable
class HasFolders(Protocol):
    """An optional member: a blob store whose keys live in real folders (the local file
    store), which a delete leaves behind empty. Object stores have none to remove."""

    def remove_empty_folders(self, prefix: str) -> int:
        """Remove every empty folder under ``prefix`` (a key prefix ending in ``/``),
        deepest first, that folder itself included. Returns how many went."""
        ...


@runtime_checkable
class SyncsLater(Protocol):
    """An optional member: a blob store whose writes reach stable storage only when
    flushed (the local file store). ``put_unsynced`` is :meth:`BlobStore.put` (atomic,
    visible to every reader at once) without the flush; :meth:`sync` makes every write
    made so far on this machine durable. A unit's outputs are written unsynced (a process
    crash loses nothing: they are in the kernel's cache) and the finalizer syncs once
    before it writes the root manifest, so a root never outlives the files it proves.
    Stores without it (object stores) are durable on every put."""

    def put_unsynced(self, key: str, data: bytes) -> None:
        """Write ``data`` atomically, without waiting for stable storage."""
        ...

    def sync(self) -> None:
        """Make every write made so far (this process's and its peers' on this machine)
        durable."""
        ...
