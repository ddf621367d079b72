"""One local HTTP server for the tests' fake services (the LLM provider, the Cloud Run Admin
API, the OTLP receiver): the standard library's ``ThreadingHTTPServer`` in a daemon thread
on a free 127.0.0.1 port, JSON in and out, and a log of every request it received.

A fake subclasses :class:`FakeHTTPServer` and implements :meth:`FakeHTTPServer.handle`,
which gets a :class:`Request` and returns a :class:`Reply` (JSON unless the body is bytes),
or ``None`` to close the connection without answering. ``with Fake(...) as server:`` starts
and stops it; ``server.url`` is its base URL."""

from __future__ import annotations

import gzip
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self


@dataclass(frozen=True)
class Request:
    """One received request. ``headers`` keys are lower-case; ``body`` is the raw bytes
    (un-gzipped when the client sent ``Content-Encoding: gzip``)."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def route(self) -> str:
        """The path without its query string."""
        return self.path.split("?", 1)[0]

    def json(self) -> Any:
        """The body as JSON (an empty body is ``{}``); raises ``ValueError`` if it is not."""
        return json.loads(self.body or b"{}")


@dataclass
class Reply:
    """An answer: ``body`` is sent as JSON, or as is when it is ``bytes``."""

    status: int = 200
    body: Any = field(default_factory=dict)
    content_type: str = "application/json"
    #: extra response headers (the fake Hub's ``X-Error-Code``)
    headers: dict[str, str] = field(default_factory=dict)


def error_reply(status: int, message: str, **fields: Any) -> Reply:
    """A JSON ``{"error": {"message": ..., **fields}}`` reply."""
    return Reply(status, {"error": {"message": message, **fields}})


class FakeHTTPServer:
    """Base of the local fakes. Not started until :meth:`start` (or ``with``); every request
    is appended to :attr:`request_log` (thread-safe) when ``keep_log``. An exception in
    :meth:`handle` answers 500 with its message, so a broken fake fails the test that
    reads the reply rather than hanging it."""

    def __init__(self, *, keep_log: bool = True, queue_size: int = 128) -> None:
        self.keep_log = keep_log
        self.request_log: list[Request] = []
        self.lock = threading.Lock()
        #: set when the server stops: a handler that holds a request open waits on it
        self.closing = threading.Event()
        # the backlog is a class attribute: listen() is called in the constructor
        server_class = type("Server", (ThreadingHTTPServer,),
                            {"daemon_threads": True, "request_queue_size": queue_size})
        self._httpd = server_class(("127.0.0.1", 0), self._handler_class())
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT`` (no trailing slash)."""
        return f"http://127.0.0.1:{self.port}"

    def handle(self, request: Request) -> Reply | None:
        """Answer ``request`` (called on the server's threads, concurrently)."""
        return error_reply(404, f"no route {request.method} {request.route}")

    def start(self) -> Self:
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket (idempotent). Wakes held requests first."""
        self.closing.set()
        if self._thread.is_alive():
            self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # headers and body go out as two writes: without TCP_NODELAY, Nagle's
            # algorithm and the client's delayed ACK add ~40 ms to every answer
            disable_nagle_algorithm = True

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                    body = self._chunked()
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                request = Request(self.command, self.path,
                                  {k.lower(): v for k, v in self.headers.items()}, body)
                if server.keep_log:
                    with server.lock:
                        server.request_log.append(request)
                try:
                    reply = server.handle(request)
                except Exception as exc:  # a fake's own bug: answer it, don't hang
                    reply = error_reply(500, f"{type(exc).__name__}: {exc}")
                if reply is None:
                    self.close_connection = True
                    return
                data = reply.body if isinstance(reply.body, bytes) else \
                    json.dumps(reply.body).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", reply.content_type)
                    self.send_header("Content-Length", str(len(data)))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True  # the client gave up (a timeout)

            def _chunked(self) -> bytes:
                out = b""
                while size := int(self.rfile.readline().split(b";")[0].strip() or b"0", 16):
                    out += self.rfile.read(size)
                    self.rfile.readline()
                self.rfile.readline()  # the empty line after the last chunk
                return out

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = _serve

        return Handler
