"""AWS helpers (boto3/botocore, extra ``aws``) for ``s3://`` and ``dynamodb://``: clients
with docfleet's timeouts, the region and endpoint a URI or the environment names, which
errors are worth retrying and a permanent error as one line. No SDK import at module
level."""

from __future__ import annotations

import os
from typing import Any

from docfleet.core.errors import ConfigError, DocfleetError, MissingExtraError
from docfleet.core.retry import one_line

#: Error codes no retry can fix (credentials, permissions, names).
_PERMANENT_CODES = {
    "AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch", "NoSuchBucket",
    "AllAccessDisabled", "InvalidBucketName", "AuthorizationHeaderMalformed",
    "ExpiredToken", "InvalidToken", "UnrecognizedClientException",
}
_TRANSIENT_CODES = {
    "ThrottlingException", "ProvisionedThroughputExceededException",
    "RequestLimitExceeded", "SlowDown", "ConditionalRequestConflict",
    "InternalError", "ServiceUnavailable", "RequestTimeout",
    "TransactionInProgressException", "LimitExceededException",
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
        return status >= 500 or status == 429 or code in _TRANSIENT_CODES
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


def aws_region(explicit: str | None, default: str | None = None) -> str | None:
    """The region: ``explicit`` (a URI's ``?region=``), else ``AWS_REGION``, else
    ``AWS_DEFAULT_REGION``, else ``default``."""
    return (explicit or os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")
            or default)


def aws_endpoint(explicit: str | None, service: str) -> str | None:
    """The endpoint: ``explicit`` (a URI's ``?endpoint=``), else the SDK's per-service
    variable (``AWS_ENDPOINT_URL_S3``, ``AWS_ENDPOINT_URL_DYNAMODB``: tests point it at a
    local moto), else ``None`` (the real service)."""
    return explicit or os.environ.get(f"AWS_ENDPOINT_URL_{service.upper()}") or None


def _session(what: str) -> Any:
    try:
        import boto3
    except ImportError:
        raise MissingExtraError(what, "aws") from None
    return boto3.session.Session()


def aws_client(service: str, *, region: str | None, endpoint: str | None, what: str,
               sdk_retries: bool = False) -> Any:
    """A boto3 client of ``service`` in its own session (thread-safe to build). With
    docfleet's :func:`aws_client_config` (the caller retries) unless ``sdk_retries``
    (one-off administrative calls keep the SDK's own timeouts and retries). Raises
    :class:`MissingExtraError` naming ``what`` when boto3 is not installed."""
    kwargs: dict[str, Any] = {"endpoint_url": endpoint, "region_name": region}
    if not sdk_retries:
        kwargs["config"] = aws_client_config()
    return _session(what).client(service, **kwargs)


def aws_resource(service: str, *, region: str | None, endpoint: str | None, what: str) -> Any:
    """A boto3 resource of ``service`` with :func:`aws_client_config`. Raises
    :class:`MissingExtraError` naming ``what`` when boto3 is not installed."""
    return _session(what).resource(service, region_name=region, endpoint_url=endpoint,
                                   config=aws_client_config())
