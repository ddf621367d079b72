"""Regression (found by the chaos outage scenario, connection-refused variant): a DynamoDB
worker crashed with a traceback when its connection to the store was reset, because the
retry predicate read ``exc.response`` and botocore's connection errors carry ``None``
there. A reset or a read timeout must be retried like any transient error."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("name", ["ConnectionClosedError", "ReadTimeoutError",
                                  "ConnectTimeoutError", "EndpointConnectionError"])
def test_connection_errors_are_transient_for_dynamodb(name: str) -> None:
    import botocore.exceptions

    from docfleet.state.dynamodb.client import dynamodb_transient
    from docfleet.state.dynamodb.store import DynamoDBStateStore

    exc = getattr(botocore.exceptions, name)(endpoint_url="http://127.0.0.1:1")
    assert dynamodb_transient(exc) is True
    assert DynamoDBStateStore._code(exc) == ""
