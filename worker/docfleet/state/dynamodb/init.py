"""``docfleet store init dynamodb://…``: create the table from
:data:`~docfleet.state.dynamodb.schema.DYNAMODB_TABLE` where it does not exist, else check
its keys and indexes."""

from __future__ import annotations

from docfleet.cloud.aws import aws_client, aws_endpoint, aws_error, aws_region
from docfleet.core.errors import ConfigError
from docfleet.core.findings import Finding
from docfleet.core.uris import ParsedURI
from docfleet.state.dynamodb.schema import DYNAMODB_TABLE


def init_store(parsed: ParsedURI) -> list[Finding]:
    """Create the table (with its indexes) if it does not exist, else check its key
    schema and indexes against :data:`DYNAMODB_TABLE`."""
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
                                    "recreate the table from docfleet.state.dynamodb.schema"))
    return findings or [Finding(True, f"{where}: table exists with the expected schema")]
