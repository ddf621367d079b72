"""Blob stores, chosen by URI scheme: ``file://`` (default), ``gs://``, ``s3://``."""

from __future__ import annotations

from docfleet.blob.base import BlobStore
from docfleet.core.errors import ConfigError
from docfleet.core.uris import BLOB_SCHEMES, parse_uri

__all__ = ["BlobStore", "open_blob_store"]


def open_blob_store(uri: str) -> BlobStore:
    """Open the blob store named by ``uri`` (``file://./out``, ``file:///abs``,
    ``gs://bucket/prefix``, ``s3://bucket/prefix``)."""
    parsed = parse_uri(uri, BLOB_SCHEMES, "output")
    if parsed.scheme == "file":
        from docfleet.blob.file import FileBlobStore  # lazy: start-up

        path = parsed.netloc + parsed.path
        if not path:
            raise ConfigError(f"output URI {uri!r} names no directory", "use file://./out")
        return FileBlobStore(path)
    if parsed.scheme == "gs":
        from docfleet.blob.gcs import open_gcs_store  # lazy: extra

        return open_gcs_store(parsed)
    from docfleet.blob.s3 import open_s3_store  # lazy: extra

    return open_s3_store(parsed)
