"""``s3://BUCKET/prefix?endpoint=…&region=…`` blob store (boto3, extra ``aws``).

Create-if-absent is ``PutObject`` with ``IfNoneMatch='*'`` (S3 conditional writes); a
412 means another writer won. Large objects go through the multipart transfer manager.
The endpoint comes from ``?endpoint=`` or ``AWS_ENDPOINT_URL_S3`` (tests point it at a
local moto).
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from typing import Any

from docfleet.errors import BlobNotFoundError, ConfigError, DocfleetError, MissingExtraError
from docfleet.retry import RetryPolicy, default_bound, one_line
from docfleet.uris import ParsedURI

#: Objects above this size are uploaded/downloaded with the multipart transfer manager.
MULTIPART_BYTES = 64 * 1024 * 1024

_PERMANENT_CODES = {
    "AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch", "NoSuchBucket",
    "AllAccessDisabled", "InvalidBucketName", "AuthorizationHeaderMalformed",
    "ExpiredToken", "InvalidToken", "UnrecognizedClientException",
}


def aws_transient(exc: BaseException) -> bool:
    """Throttling, 5xx, conflicts and connection trouble are worth retrying."""
    from botocore.exceptions import (
        ClientError,
        ConnectionClosedError,
        ConnectTimeoutError,
        EndpointConnectionError,
        IncompleteReadError,
        ReadTimeoutError,
        ResponseStreamingError,
    )
    from urllib3.exceptions import HTTPError

    if isinstance(exc, ClientError):
        code = exc.response.get("Error", {}).get("Code", "")
        status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0)
        if code in _PERMANENT_CODES:
            return False
        return (
            status >= 500
            or status == 429
            or code in {
                "ThrottlingException", "ProvisionedThroughputExceededException",
                "RequestLimitExceeded", "SlowDown", "ConditionalRequestConflict",
                "InternalError", "ServiceUnavailable", "RequestTimeout",
                "TransactionInProgressException", "LimitExceededException",
            }
        )
    return isinstance(
        exc,
        (EndpointConnectionError, ConnectTimeoutError, ReadTimeoutError,
         ConnectionClosedError, ResponseStreamingError, IncompleteReadError, HTTPError,
         ConnectionError, TimeoutError),
    )


def aws_client_config() -> Any:
    """botocore config: short timeouts and no SDK-level retries (docfleet retries)."""
    from botocore.config import Config

    return Config(
        connect_timeout=3, read_timeout=10,
        retries={"total_max_attempts": 1, "mode": "standard"},
    )


def aws_error(exc: BaseException, what: str) -> DocfleetError:
    """A permanent AWS error as one readable line."""
    from botocore.exceptions import ClientError, NoCredentialsError

    if isinstance(exc, NoCredentialsError):
        return ConfigError(f"{what}: no AWS credentials found",
                           "set AWS_PROFILE or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY")
    if isinstance(exc, ClientError):
        err = exc.response.get("Error", {})
        return ConfigError(f"{what}: {err.get('Code')}: {err.get('Message', '')}".strip(),
                           "check the URI, the region and the credentials' permissions")
    return ConfigError(f"{what}: {one_line(exc)}")


class S3BlobStore:
    """:class:`~docfleet.blob.base.BlobStore` over one S3 bucket and key prefix."""

    def __init__(
        self, bucket: str, prefix: str = "", *, endpoint: str | None = None,
        region: str | None = None, retry_seconds: float | None = None,
    ) -> None:
        try:
            import boto3
        except ImportError:
            raise MissingExtraError("the s3:// output", "aws") from None
        self.bucket = bucket
        self.prefix = prefix.strip("/") + "/" if prefix.strip("/") else ""
        self.uri = f"s3://{bucket}/{self.prefix}".rstrip("/")
        self.endpoint = endpoint or os.environ.get("AWS_ENDPOINT_URL_S3") or None
        self._client = boto3.session.Session().client(
            "s3", endpoint_url=self.endpoint,
            region_name=region or os.environ.get("AWS_REGION")
            or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1",
            config=aws_client_config(),
        )
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
    from docfleet.settings import uri_seconds

    return S3BlobStore(
        parsed.netloc, parsed.path, endpoint=parsed.query.get("endpoint"),
        region=parsed.query.get("region"),
        retry_seconds=uri_seconds(parsed.query, "retry_seconds", parsed.raw),
    )
