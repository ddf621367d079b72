"""A real OTLP/HTTP trace receiver on 127.0.0.1 (a :mod:`support.fake_http` server):
accepts ``POST /v1/traces`` with an ``ExportTraceServiceRequest`` (protobuf, optionally
gzip), decodes it with opentelemetry-proto and keeps every span and the request headers.
``POST /token`` answers like an OAuth2 token endpoint (for a service-account key whose
``token_uri`` points here), so the ``gcp`` mode's authenticated export can be exercised
offline."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue

from support.fake_http import FakeHTTPServer, Reply, Request, error_reply

TOKEN = "test-access-token"


def _value(v: AnyValue) -> Any:
    kind = v.WhichOneof("value")
    if kind == "array_value":
        return [_value(x) for x in v.array_value.values]
    return getattr(v, kind) if kind else None


@dataclass
class ReceivedSpan:
    name: str
    trace_id: str
    span_id: str
    parent_id: str | None
    attributes: dict[str, Any]
    resource: dict[str, Any]
    status_code: int
    start_ns: int
    end_ns: int
    events: list[str] = field(default_factory=list)


class OTLPReceiver(FakeHTTPServer):
    """Start with ``with OTLPReceiver() as rx``; ``rx.endpoint`` is the base URL to put in
    ``OTEL_EXPORTER_OTLP_ENDPOINT``; ``rx.spans`` fills as exports arrive."""

    def __init__(self) -> None:
        super().__init__()
        self.spans: list[ReceivedSpan] = []
        self.requests = 0
        self.headers: list[dict[str, str]] = []
        self.token_requests = 0

    @property
    def endpoint(self) -> str:
        return self.url

    def handle(self, request: Request) -> Reply:
        if request.method != "POST":
            return error_reply(404, f"no route {request.method} {request.route}")
        if request.path == "/token":
            with self.lock:
                self.token_requests += 1
            return Reply(200, {"access_token": TOKEN, "expires_in": 3600,
                               "token_type": "Bearer"})
        if request.path != "/v1/traces":
            return error_reply(404, f"no route {request.path}")
        self._add(ExportTraceServiceRequest.FromString(request.body), request.headers)
        return Reply(200, ExportTraceServiceResponse().SerializeToString(),
                     content_type="application/x-protobuf")

    def _add(self, request: ExportTraceServiceRequest, headers: dict[str, str]) -> None:
        out = []
        for rs in request.resource_spans:
            resource = {a.key: _value(a.value) for a in rs.resource.attributes}
            for ss in rs.scope_spans:
                for s in ss.spans:
                    out.append(ReceivedSpan(
                        name=s.name, trace_id=s.trace_id.hex(), span_id=s.span_id.hex(),
                        parent_id=s.parent_span_id.hex() or None,
                        attributes={a.key: _value(a.value) for a in s.attributes},
                        resource=resource, status_code=s.status.code,
                        start_ns=s.start_time_unix_nano, end_ns=s.end_time_unix_nano,
                        events=[e.name for e in s.events],
                    ))
        with self.lock:
            self.requests += 1
            self.headers.append(headers)
            self.spans.extend(out)

    def named(self, name: str) -> list[ReceivedSpan]:
        with self.lock:
            return [s for s in self.spans if s.name == name]
