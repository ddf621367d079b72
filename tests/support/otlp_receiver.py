"""A real OTLP/HTTP trace receiver on 127.0.0.1: accepts ``POST /v1/traces`` with an
``ExportTraceServiceRequest`` (protobuf, optionally gzip), decodes it with
opentelemetry-proto and keeps every span and the request headers. ``POST /token`` answers
like an OAuth2 token endpoint (for a service-account key whose ``token_uri`` points here),
so the ``gcp`` mode's authenticated export can be exercised offline."""

from __future__ import annotations

import gzip
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue

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


class OTLPReceiver:
    """Start with ``with OTLPReceiver() as rx``; ``rx.endpoint`` is the base URL to put in
    ``OTEL_EXPORTER_OTLP_ENDPOINT``; ``rx.spans`` fills as exports arrive."""

    def __init__(self) -> None:
        self.spans: list[ReceivedSpan] = []
        self.requests = 0
        self.headers: list[dict[str, str]] = []
        self.token_requests = 0
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                if self.path == "/token":
                    receiver.token_requests += 1
                    reply = json.dumps({"access_token": TOKEN, "expires_in": 3600,
                                        "token_type": "Bearer"}).encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(reply)))
                    self.end_headers()
                    self.wfile.write(reply)
                    return
                if self.path != "/v1/traces":
                    self.send_error(404)
                    return
                request = ExportTraceServiceRequest.FromString(body)
                receiver._add(request, {k.lower(): v for k, v in self.headers.items()})
                reply = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

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
        with self._lock:
            self.requests += 1
            self.headers.append(headers)
            self.spans.extend(out)

    def named(self, name: str) -> list[ReceivedSpan]:
        with self._lock:
            return [s for s in self.spans if s.name == name]

    def __enter__(self) -> OTLPReceiver:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
