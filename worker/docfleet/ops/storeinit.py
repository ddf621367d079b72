"""``docfleet store init URI``: create what a store needs where creating it is legal, check
the rest, and say which. A state store's init is its backend's own hook
(``state/<backend>/init.py``, named by :mod:`docfleet.core.backends`): a SQLite file, a
DynamoDB table, a PostgreSQL schema are created; the Firestore database and its indexes
are checked, never created (they belong to Terraform, which also grants their IAM). The
blob stores' are here: a ``file://`` directory, and buckets on emulators (an ``s3://``
URI with ``?endpoint=``, a ``gs://`` URI with ``?emulator=``); real cloud buckets are
checked, never created."""

from __future__ import annotations

import os

from docfleet.blob import open_blob_store
from docfleet.cloud.aws import aws_client, aws_endpoint, aws_error, aws_region
from docfleet.cloud.gcp import gcp_error, storage_client
from docfleet.core.backends import backend
from docfleet.core.errors import DocfleetError, MissingExtraError
from docfleet.core.findings import Finding
from docfleet.core.uris import BLOB_SCHEMES, STATE_SCHEMES, ParsedURI, parse_uri, redact

__all__ = ["Finding", "emulator_endpoint", "init_store", "report"]


def emulator_endpoint(endpoint: str | None) -> bool:
    """Whether an S3 ``endpoint`` is an emulator (or another local S3), where creating a
    bucket is store init's job: any explicit endpoint that is not Amazon's."""
    if not endpoint:
        return False
    from urllib.parse import urlsplit

    host = (urlsplit(endpoint).hostname or "").lower()
    return bool(host) and not (host == "amazonaws.com" or host.endswith(".amazonaws.com"))


def init_store(uri: str) -> list[Finding]:
    """Initialise or check the store named by ``uri`` (state or output URI). Idempotent.
    Raises :class:`ConfigError` for a URI that names no known store."""
    scheme = uri.split("://", 1)[0].lower() if "://" in uri else ""
    if scheme in STATE_SCHEMES:  # each backend's own hook, named by the registry
        parsed = parse_uri(uri, STATE_SCHEMES, "state store")
        return list(backend(parsed.scheme).hook("init")(parsed))
    parsed = parse_uri(uri, STATE_SCHEMES + BLOB_SCHEMES, "store")
    return {"file": _file, "gs": _gs, "s3": _s3}[parsed.scheme](parsed)


def _file(parsed: ParsedURI) -> list[Finding]:
    return [Finding(True, f"{open_blob_store(parsed.raw).uri}: directory ready")]


def _s3(parsed: ParsedURI) -> list[Finding]:
    bucket = parsed.netloc
    endpoint = aws_endpoint(parsed.query.get("endpoint"), "s3")
    region = aws_region(parsed.query.get("region"), "us-east-1")
    client = aws_client("s3", region=region, endpoint=endpoint, sdk_retries=True,
                        what="s3:// outputs")
    from botocore.exceptions import BotoCoreError, ClientError
    where = f"s3://{bucket}"
    try:
        try:
            client.head_bucket(Bucket=bucket)
            return [Finding(True, f"{where}: bucket exists")]
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") not in ("404", "NoSuchBucket"):
                raise
        if not emulator_endpoint(endpoint):
            return [Finding(False, f"{where}: bucket does not exist",
                            "real buckets are made by terraform/ (with their IAM); "
                            "store init creates buckets only on an emulator (?endpoint=)")]
        kwargs = {} if region == "us-east-1" else {
            "CreateBucketConfiguration": {"LocationConstraint": region}}
        client.create_bucket(Bucket=bucket, **kwargs)
    except (ClientError, BotoCoreError) as exc:
        raise aws_error(exc, f"{where} init") from None
    return [Finding(True, f"{where}: created bucket on the emulator at {endpoint}")]


def _gs(parsed: ParsedURI) -> list[Finding]:
    bucket = parsed.netloc
    where = f"gs://{bucket}"
    emulator = parsed.query.get("emulator") or os.environ.get("STORAGE_EMULATOR_HOST")
    try:
        import google.cloud.storage  # noqa: F401  (the extra is installed)
        from google.api_core import exceptions as gexc
    except ImportError:
        raise MissingExtraError("gs:// outputs", "gcp") from None

    if emulator:
        os.environ["STORAGE_EMULATOR_HOST"] = emulator
    client = storage_client(parsed.query.get("project"), emulated=bool(emulator),
                            emulator_project="docfleet-local")
    try:
        if client.lookup_bucket(bucket) is not None:
            return [Finding(True, f"{where}: bucket exists")]
        if not emulator:
            return [Finding(False, f"{where}: bucket does not exist",
                            "real buckets are made by terraform/ (with their IAM); store "
                            "init creates buckets only on an emulator (?emulator=)")]
        client.create_bucket(bucket)
    except gexc.GoogleAPICallError as exc:
        raise gcp_error(exc, f"{where} init") from None
    return [Finding(True, f"{where}: created bucket on the emulator at {emulator}")]


def report(uris: list[str]) -> tuple[list[str], bool]:
    """Every finding of every URI as report lines, and whether all are ok. An error that
    stops one URI's check is reported as a MISSING line and does not stop the others."""
    lines: list[str] = []
    ok = True
    for uri in uris:
        try:
            findings = init_store(uri)
        except DocfleetError as exc:
            findings = [Finding(False, f"{redact(uri)}: {exc.message}", exc.hint or "")]
        for finding in findings:
            lines.append(finding.line())
            ok = ok and finding.ok
    return lines, ok
