"""``s3://BUCKET/prefix?endpoint=…&region=…`` blob store (boto3, extra ``aws``).

Create-if-absent is ``PutObject`` with ``IfNoneMatch='*'`` (S3 conditional writes); a
412 means another writer won. Large objects go through the multipart transfer manager.
The endpoint comes from ``?endpoint=`` or ``AWS_ENDPOINT_URL_S3`` (tests point it at a
local moto).
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

from docfleet.cloud.aws import aws_client, aws_endpoint, aws_error, aws_region, aws_transient
from docfleet.core.durations import uri_seconds
from docfleet.core.errors import BlobNotFoundError, ConfigError
from docfleet.core.retry import RetryPolicy, default_bound
from docfleet.core.uris import ParsedURI

#: Objects above this size are uploaded/downloaded with the multipart transfer manager.
MULTIPART_BYTES = 64 * 1024 * 1024

class S3BlobStore:
    """:class:`~docfleet.blob.base.BlobStore` over one S3 bucket and key prefix."""

    def __init__(
        self, bucket: str, prefix: str = "", *, endpoint: str | None = None,
        region: str | None = None, retry_seconds: float | None = None,
    ) -> None:
        self.bucket = bucket
        self.prefix = prefix.strip("/") + "/" if prefix.strip("/") else ""
        self.uri = f"s3://{bucket}/{self.prefix}".rstrip("/")
        self.endpoint = aws_endpoint(endpoint, "s3")
        self._client = aws_client("s3", region=aws_region(region, "us-east-1"),
                                  endpoint=self.endpoint, what="the s3:// output")
        self._retry = RetryPolicy(f"S3 bucket {bucket}", aws_transient,
                                  retry_seconds if retry_seconds is not None else default_bound())
        self._check_bucket()

    # -- plumbing ---------------------------------------------------------------------
    def _call(self, op: str, fn: Any, **kwargs: Any) -> Any:
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            return self._retry.call(lambda: fn(**kwargs), op)
        except (ClientError, BotoCoreError) as exc:
            raise aws_error(exc, f"{self.uri} {op}") from None

    def _check_bucket(self) -> None:
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            self._retry.call(lambda: self._client.head_bucket(Bucket=self.bucket), "open")
        except ClientError as exc:
            code = exc.response.get("Error", {}).get("Code", "")
            if code in ("404", "NoSuchBucket", "NotFound"):
                raise ConfigError(f"S3 bucket '{self.bucket}' does not exist",
                                  "create it first (see terraform/) or fix the --out URI") from None
            raise aws_error(exc, f"cannot open {self.uri}") from None
        except BotoCoreError as exc:
            raise aws_error(exc, f"cannot open {self.uri}") from None

    def _key(self, key: str) -> str:
        if key.startswith("/") or ".." in key.split("/"):
            raise ConfigError(f"invalid blob key {key!r}", "keys are relative paths")
        return self.prefix + key

    @staticmethod
    def _code(exc: BaseException) -> str:
        response = getattr(exc, "response", None) or {}
        return str(response.get("Error", {}).get("Code", ""))

    # -- protocol ---------------------------------------------------------------------
    def put(self, key: str, data: bytes) -> None:
        if len(data) > MULTIPART_BYTES:
            self._call("put", self._client.upload_fileobj, Fileobj=io.BytesIO(data),
                        Bucket=self.bucket, Key=self._key(key))
            return
        self._call("put", self._client.put_object, Bucket=self.bucket, Key=self._key(key),
                   Body=data)

    def put_if_absent(self, key: str, data: bytes) -> bool:
        from botocore.exceptions import ClientError

        try:
            self._retry.call(lambda: self._client.put_object(
                Bucket=self.bucket, Key=self._key(key), Body=data, IfNoneMatch="*"
            ), "put_if_absent")
            return True
        except ClientError as exc:
            if self._code(exc) in ("PreconditionFailed", "412"):
                return False
            raise aws_error(exc, f"{self.uri} put_if_absent") from None

    def get(self, key: str) -> bytes:
        from botocore.exceptions import ClientError

        def read() -> bytes:
            body = self._client.get_object(Bucket=self.bucket, Key=self._key(key))["Body"]
            buf = io.BytesIO()
            for chunk in body.iter_chunks(1024 * 1024):
                buf.write(chunk)
            return buf.getvalue()

        try:
            return self._retry.call(read, "get")
        except ClientError as exc:
            if self._code(exc) in ("NoSuchKey", "404", "NotFound"):
                raise BlobNotFoundError(f"{self.uri}/{key} does not exist") from None
            raise aws_error(exc, f"{self.uri} get") from None

    def exists(self, key: str) -> bool:
        from botocore.exceptions import ClientError

        try:
            self._retry.call(
                lambda: self._client.head_object(Bucket=self.bucket, Key=self._key(key)),
                "exists",
            )
            return True
        except ClientError as exc:
            if self._code(exc) in ("NoSuchKey", "404", "NotFound"):
                return False
            raise aws_error(exc, f"{self.uri} exists") from None

    def list(self, prefix: str) -> Iterator[str]:
        keys: list[str] = []

        def pages() -> list[str]:
            found: list[str] = []
            paginator = self._client.get_paginator("list_objects_v2")
            for page in paginator.paginate(Bucket=self.bucket, Prefix=self.prefix + prefix):
                found.extend(o["Key"][len(self.prefix):] for o in page.get("Contents", []))
            return found

        keys = self._call("list", pages)
        return iter(sorted(keys))

    def delete(self, key: str) -> None:
        self._call("delete", self._client.delete_object, Bucket=self.bucket,
                   Key=self._key(key))


def open_s3_store(parsed: ParsedURI) -> S3BlobStore:
    """Open ``s3://BUCKET/prefix?endpoint=…&region=…``."""
    if not parsed.netloc:
        raise ConfigError(f"output URI {parsed.raw!r} names no bucket", "use s3://BUCKET/prefix")
    return S3BlobStore(
        parsed.netloc, parsed.path, endpoint=parsed.query.get("endpoint"),
        region=parsed.query.get("region"),
        retry_seconds=uri_seconds(parsed.query, "retry_seconds", parsed.raw),
    )
