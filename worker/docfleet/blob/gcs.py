"""``gs://BUCKET/prefix`` blob store (google-cloud-storage, extra ``gcp``).

Create-if-absent is an upload with ``if_generation_match=0``; a 412 means another writer
won. Uploads above the chunk size are resumable (streamed in chunks). Under
``STORAGE_EMULATOR_HOST`` (tests: fake-gcs-server) the client uses anonymous credentials.
"""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Iterator
from typing import Any

from docfleet.cloud.gcp import emulated_gcs, gcp_error, gcp_transient, storage_client
from docfleet.core.durations import uri_seconds
from docfleet.core.errors import BlobNotFoundError, ConfigError, MissingExtraError
from docfleet.core.retry import RetryPolicy, default_bound
from docfleet.core.uris import ParsedURI

#: Uploads above this size are resumable, in chunks of this size.
CHUNK_BYTES = 16 * 1024 * 1024
TIMEOUT = (3, 30)


class GCSBlobStore:
    """:class:`~docfleet.blob.base.BlobStore` over one GCS bucket and object prefix."""

    def __init__(
        self, bucket: str, prefix: str = "", *, project: str | None = None,
        retry_seconds: float | None = None,
    ) -> None:
        try:
            import google.cloud.storage  # noqa: F401  (the extra is installed)
        except ImportError:
            raise MissingExtraError("the gs:// output", "gcp") from None
        self.prefix = prefix.strip("/") + "/" if prefix.strip("/") else ""
        self.uri = f"gs://{bucket}/{self.prefix}".rstrip("/")
        self._retry = RetryPolicy(f"GCS bucket {bucket}", gcp_transient,
                                  retry_seconds if retry_seconds is not None else default_bound())
        try:
            client = storage_client(project, emulated=emulated_gcs(),
                                    emulator_project="docfleet-test")
        except Exception as exc:
            raise gcp_error(exc, f"cannot open {self.uri}") from None
        self._client = client
        self._bucket = client.bucket(bucket)
        self._check_bucket()

    def _call(self, op: str, fn: Any) -> Any:
        from google.api_core import exceptions as gexc
        from google.auth import exceptions as aexc

        try:
            return self._retry.call(fn, op)
        except (gexc.GoogleAPICallError, aexc.GoogleAuthError) as exc:
            raise gcp_error(exc, f"{self.uri} {op}") from None

    def _check_bucket(self) -> None:
        """Fail fast on a missing bucket or bad credentials. Lists one object rather than
        reading the bucket's metadata: object roles (least privilege) cannot do that."""
        from google.api_core import exceptions as gexc

        def probe() -> None:
            blobs = self._client.list_blobs(self._bucket, prefix=self.prefix, max_results=1,
                                            timeout=TIMEOUT, retry=None)
            list(blobs)

        try:
            self._retry.call(probe, "open")
        except gexc.NotFound:
            raise ConfigError(f"GCS bucket '{self._bucket.name}' does not exist",
                              "create it first (see terraform/) or fix the --out URI") from None
        except gexc.GoogleAPICallError as exc:
            raise gcp_error(exc, f"cannot open {self.uri}") from None

    def _key(self, key: str) -> str:
        if key.startswith("/") or ".." in key.split("/"):
            raise ConfigError(f"invalid blob key {key!r}", "keys are relative paths")
        return self.prefix + key

    def _upload(self, key: str, data: bytes, **conditions: Any) -> None:
        blob = self._bucket.blob(self._key(key),
                                 chunk_size=CHUNK_BYTES if len(data) > CHUNK_BYTES else None)
        blob.upload_from_file(io.BytesIO(data), size=len(data), rewind=True,
                              content_type="application/octet-stream", timeout=TIMEOUT,
                              retry=None, **conditions)

    # -- protocol ---------------------------------------------------------------------
    def put(self, key: str, data: bytes) -> None:
        self._call("put", lambda: self._upload(key, data))

    def put_if_absent(self, key: str, data: bytes) -> bool:
        from google.api_core import exceptions as gexc

        try:
            self._retry.call(lambda: self._upload(key, data, if_generation_match=0),
                             "put_if_absent")
            return True
        except gexc.PreconditionFailed:
            return False
        except gexc.GoogleAPICallError as exc:
            raise gcp_error(exc, f"{self.uri} put_if_absent") from None

    def get(self, key: str) -> bytes:
        from google.api_core import exceptions as gexc

        def read() -> bytes:
            buf = io.BytesIO()
            self._bucket.blob(self._key(key)).download_to_file(buf, timeout=TIMEOUT, retry=None)
            return buf.getvalue()

        try:
            return self._retry.call(read, "get")
        except gexc.NotFound:
            raise BlobNotFoundError(f"{self.uri}/{key} does not exist") from None
        except gexc.GoogleAPICallError as exc:
            raise gcp_error(exc, f"{self.uri} get") from None

    def exists(self, key: str) -> bool:
        return bool(self._call("exists", lambda: self._bucket.blob(self._key(key)).exists(
            timeout=TIMEOUT, retry=None)))

    def list(self, prefix: str) -> Iterator[str]:
        def pages() -> list[str]:
            blobs = self._client.list_blobs(self._bucket, prefix=self.prefix + prefix,
                                            timeout=TIMEOUT, retry=None)
            return [b.name[len(self.prefix):] for b in blobs]

        return iter(sorted(self._call("list", pages)))

    def delete(self, key: str) -> None:
        from google.api_core import exceptions as gexc

        def remove() -> None:
            with contextlib.suppress(gexc.NotFound):
                self._bucket.blob(self._key(key)).delete(timeout=TIMEOUT, retry=None)

        self._call("delete", remove)


def open_gcs_store(parsed: ParsedURI) -> GCSBlobStore:
    """Open ``gs://BUCKET/prefix[?project=…]``. ``?emulator=http://HOST:PORT`` (tests)
    is the same as ``STORAGE_EMULATOR_HOST``."""
    if not parsed.netloc:
        raise ConfigError(f"output URI {parsed.raw!r} names no bucket", "use gs://BUCKET/prefix")
    emulator = parsed.query.get("emulator")
    if emulator:  # tests: fake-gcs-server; the client reads it from the environment
        os.environ["STORAGE_EMULATOR_HOST"] = emulator
    return GCSBlobStore(parsed.netloc, parsed.path, project=parsed.query.get("project"),
                        retry_seconds=uri_seconds(parsed.query, "retry_seconds", parsed.raw))
