"""``docfleet store init URI``: create what a store needs where creating it is legal, check
the rest, and say which. Creates a SQLite file, a ``file://`` directory, a DynamoDB table
(from :data:`docfleet.state.schemas.DYNAMODB_TABLE`), and buckets on emulators (an
``s3://`` URI with ``?endpoint=``, a ``gs://`` URI with ``?emulator=``). Checks, never
creates: real cloud buckets and the Firestore database and its composite indexes (those
belong to Terraform, which also grants their IAM)."""

from __future__ import annotations

import os
from dataclasses import dataclass

from docfleet.core.errors import ConfigError, DocfleetError
from docfleet.core.uris import BLOB_SCHEMES, STATE_SCHEMES, ParsedURI, parse_uri, redact


@dataclass(frozen=True)
class Finding:
    """One line of the report: ``ok`` false means the store is not usable as it is."""

    ok: bool
    what: str
    hint: str = ""

    def line(self) -> str:
        mark = "ok " if self.ok else "MISSING"
        return f"{mark} {self.what}" + (f" ({self.hint})" if self.hint else "")


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
    if scheme in STATE_SCHEMES:
        import importlib

        from docfleet.state.registry import backend

        parsed = parse_uri(uri, STATE_SCHEMES, "state store")
        hook = backend(parsed.scheme).init  # the registry names each backend's init
        if hook is None:
            return _other_state(parsed)
        module, _, function = hook.partition(":")
        return getattr(importlib.import_module(module), function)(parsed)
    parsed = parse_uri(uri, STATE_SCHEMES + BLOB_SCHEMES, "store")
    return {"file": _file, "gs": _gs, "s3": _s3}[parsed.scheme](parsed)


def _other_state(parsed: ParsedURI) -> list[Finding]:
    from docfleet.state import open_state_store

    store = open_state_store(parsed.raw)  # its own open creates or checks its schema
    store.close()
    return [Finding(True, f"{redact(parsed.raw)}: reachable")]


def _init_sqlite(parsed: ParsedURI) -> list[Finding]:
    from docfleet.state import open_state_store

    store = open_state_store(parsed.raw)  # creates the file and its schema
    uri = store.uri
    store.close()
    return [Finding(True, f"{uri}: database file and schema ready")]


def _file(parsed: ParsedURI) -> list[Finding]:
    from docfleet.blob import open_blob_store

    return [Finding(True, f"{open_blob_store(parsed.raw).uri}: directory ready")]


def _init_dynamodb(parsed: ParsedURI) -> list[Finding]:
    from docfleet.cloud.aws import aws_client, aws_endpoint, aws_error, aws_region
    from docfleet.state.schemas import DYNAMODB_TABLE

    table = parsed.netloc
    region = aws_region(parsed.query.get("region"))
    if not table or not region:
        raise ConfigError(f"state URI {parsed.raw!r} needs a table and a region",
                          "use dynamodb://TABLE?region=REGION[&endpoint=URL]")
    endpoint = aws_endpoint(parsed.query.get("endpoint"), "dynamodb")
    client = aws_client("dynamodb", region=region, endpoint=endpoint, sdk_retries=True,
                        what="dynamodb:// state stores")
    from botocore.exceptions import BotoCoreError, ClientError
    where = f"dynamodb://{table}?region={region}"
    try:
        try:
            desc = client.describe_table(TableName=table)["Table"]
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") != "ResourceNotFoundException":
                raise
            client.create_table(TableName=table, **DYNAMODB_TABLE)
            client.get_waiter("table_exists").wait(
                TableName=table, WaiterConfig={"Delay": 1, "MaxAttempts": 120})
            indexes = ", ".join(i["IndexName"] for i in DYNAMODB_TABLE["GlobalSecondaryIndexes"])
            return [Finding(True, f"{where}: created table {table} (indexes {indexes})")]
    except (ClientError, BotoCoreError) as exc:
        raise aws_error(exc, f"{where} init") from None
    return _compare_dynamodb(where, desc, DYNAMODB_TABLE)


def _compare_dynamodb(where: str, desc: dict, wanted: dict) -> list[Finding]:
    def keys(schema: list[dict]) -> list[tuple[str, str]]:
        return [(k["AttributeName"], k["KeyType"]) for k in schema]

    findings = []
    if keys(desc["KeySchema"]) != keys(wanted["KeySchema"]):
        findings.append(Finding(False, f"{where}: key schema {keys(desc['KeySchema'])} "
                                       f"differs from {keys(wanted['KeySchema'])}",
                                "use another table, or recreate it with docfleet store init"))
    have = {i["IndexName"]: i for i in desc.get("GlobalSecondaryIndexes", [])}
    for index in wanted["GlobalSecondaryIndexes"]:
        name = index["IndexName"]
        if name not in have:
            findings.append(Finding(False, f"{where}: index '{name}' is missing",
                                    "apply terraform/ (or recreate the table)"))
        elif keys(have[name]["KeySchema"]) != keys(index["KeySchema"]):
            findings.append(Finding(False, f"{where}: index '{name}' has other keys",
                                    "recreate the table from docfleet.state.schemas"))
    return findings or [Finding(True, f"{where}: table exists with the expected schema")]


def _s3(parsed: ParsedURI) -> list[Finding]:
    from docfleet.cloud.aws import aws_client, aws_endpoint, aws_error, aws_region

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
        from docfleet.core.errors import MissingExtraError

        raise MissingExtraError("gs:// outputs", "gcp") from None
    from docfleet.cloud.gcp import gcp_error, storage_client

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


def _init_firestore(parsed: ParsedURI) -> list[Finding]:
    from docfleet.state.schemas import FIRESTORE_INDEXES, FIRESTORE_UNINDEXED_FIELDS

    project = parsed.netloc
    database = parsed.path.strip("/") or "(default)"
    where = f"firestore://{project}/{database}"
    emulator = parsed.query.get("emulator") or os.environ.get("FIRESTORE_EMULATOR_HOST")
    from docfleet.state import open_state_store

    if emulator:
        store = open_state_store(parsed.raw)  # a read proves the emulator answers
        store.list_runs()
        store.close()
        return [Finding(True, f"{where}: the emulator at {emulator} answers; it needs no "
                              "database or composite index")]
    try:
        from google.api_core import exceptions as gexc
        from google.cloud import firestore_admin_v1
    except ImportError:
        from docfleet.core.errors import MissingExtraError

        raise MissingExtraError("firestore:// state stores", "gcp") from None
    admin = firestore_admin_v1.FirestoreAdminClient()
    db_name = f"projects/{project}/databases/{database}"
    try:
        admin.get_database(name=db_name)
    except gexc.NotFound:
        hint = ("Terraform creates the database 'docfleet': use firestore://"
                f"{project}/docfleet" if database == "(default)" else "apply terraform/")
        return [Finding(False, f"{where}: database does not exist", hint)]
    except gexc.GoogleAPICallError as exc:
        from docfleet.cloud.gcp import gcp_error

        raise gcp_error(exc, f"{where} init") from None
    findings = [Finding(True, f"{where}: database exists")]
    have = set()
    for index in admin.list_indexes(
            parent=f"{db_name}/collectionGroups/{FIRESTORE_INDEXES[0]['collection_group']}"):
        fields = tuple((f.field_path, f.order.name) for f in index.fields
                       if f.field_path != "__name__")
        have.add((fields, index.state.name))
    for wanted in FIRESTORE_INDEXES:
        fields = tuple(wanted["fields"])
        names = ", ".join(f for f, _ in fields)
        if (fields, "READY") in have:
            findings.append(Finding(True, f"{where}: index on units({names}) ready"))
        elif any(f == fields for f, _ in have):
            findings.append(Finding(False, f"{where}: index on units({names}) still building",
                                    "wait a few minutes and check again"))
        else:
            findings.append(Finding(False, f"{where}: index on units({names}) is missing",
                                    "apply terraform/ (module gcp creates it)"))
    group = f"{db_name}/collectionGroups/{FIRESTORE_INDEXES[0]['collection_group']}"
    for name in FIRESTORE_UNINDEXED_FIELDS:
        # an exempted field has its own config with no index (not its ancestor's)
        try:
            config = admin.get_field(name=f"{group}/fields/{name}").index_config
            exempt = not config.uses_ancestor_config and not list(config.indexes)
        except gexc.NotFound:
            exempt = False
        except gexc.GoogleAPICallError as exc:
            from docfleet.cloud.gcp import gcp_error

            raise gcp_error(exc, f"{where} init") from None
        findings.append(Finding(True, f"{where}: units.{name} is not indexed") if exempt else
                        Finding(False, f"{where}: units.{name} is still indexed (a "
                                       "collection writing it is held to 500 writes/s)",
                                "apply terraform/ (module gcp exempts it)"))
    return findings


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
