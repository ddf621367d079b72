"""A local OpenAI-compatible chat server for catalogue tests and the benchmark.

It listens on 127.0.0.1, answers ``POST /v1/chat/completions`` and behaves per model
(latency, empty answers, 429s, hangs, PII, token usage). It keeps its own books: the
most requests ever in flight, requests per model, and a bill of tokens x its own prices
in integer nano-dollars, so tests compare the fleet's accounting with the provider's."""

from __future__ import annotations

import json
import math
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

#: USD per million tokens (input, output) equal to the default prices of :class:`Behaviour`
FAKE_PRICE = ["1", "2"]

TEXTS = {
    "en": "{m} supplies for your team",
    "fr": "Qualité {m} pour vos équipes",
    "de": "{m} Qualität für Ihr Team",
}


@dataclass
class Behaviour:
    """How one model answers. Prices are nano-dollars per token."""

    latency: float = 0.0
    latencies: list[float] | None = None  # per request n: latencies[n % len], else latency
    empty: bool = False
    fail_first: int = 0  # the first N requests get HTTP 429
    hang: bool = False  # never answer (until the server stops)
    pii: bool = False
    marker: str = "Zephyr"
    completion_tokens: int | None = None  # default: the request's max_tokens (worst case)
    price_in: int = 1000
    price_out: int = 2000


@dataclass
class Books:
    in_flight: int = 0
    max_in_flight: int = 0
    requests: dict[str, int] = field(default_factory=dict)
    answered: dict[str, int] = field(default_factory=dict)
    bill_nano: dict[str, int] = field(default_factory=dict)

    @property
    def total_bill(self) -> int:
        return sum(self.bill_nano.values())


class FakeLLM:
    """``with FakeLLM() as server:`` → ``server.api_base``; ``server.behave(model, ...)``."""

    def __init__(self, default: Behaviour | None = None) -> None:
        self.default = default or Behaviour()
        self.models: dict[str, Behaviour] = {}
        self.books = Books()
        self.lock = threading.Lock()
        self.closing = threading.Event()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.httpd.daemon_threads = True
        self.httpd.request_queue_size = 512
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def behave(self, model: str, **kw: Any) -> None:
        self.models[model] = Behaviour(**kw)

    def reset_books(self) -> None:
        with self.lock:
            self.books = Books()

    def __enter__(self) -> FakeLLM:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.closing.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # headers and body go out as two writes: without TCP_NODELAY, Nagle's
            # algorithm and the client's delayed ACK add ~40 ms to every answer
            disable_nagle_algorithm = True

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _send(self, status: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                if self.path.rstrip("/") != "/_books":
                    self._send(404, {"error": {"message": "not found"}})
                    return
                with server.lock:
                    b = server.books
                    self._send(200, {"in_flight": b.in_flight, "max_in_flight":
                                     b.max_in_flight, "requests": b.requests,
                                     "answered": b.answered, "bill_nano": b.bill_nano})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                request = json.loads(self.rfile.read(length) or b"{}")
                if self.path.rstrip("/") == "/_behave":  # control: {"model": .., **Behaviour}
                    server.behave(request.pop("model"), **request)
                    server.reset_books()
                    self._send(200, {"ok": True})
                    return
                model = str(request.get("model", ""))
                b = server.models.get(model, server.default)
                with server.lock:
                    books = server.books
                    n = books.requests.get(model, 0)
                    books.requests[model] = n + 1
                    books.in_flight += 1
                    books.max_in_flight = max(books.max_in_flight, books.in_flight)
                try:
                    self._answer(request, model, b, n, books)
                except (BrokenPipeError, ConnectionResetError):
                    pass
                finally:
                    with server.lock:
                        books.in_flight -= 1

            def _answer(self, request: dict, model: str, b: Behaviour, n: int,
                        books: Books) -> None:
                if n < b.fail_first:
                    self._send(429, {"error": {"message": "rate limited", "type":
                                               "rate_limit_error", "code": "rate_limit"}})
                    return
                if b.hang:
                    server.closing.wait(120)
                    return
                delay = b.latencies[n % len(b.latencies)] if b.latencies else b.latency
                if delay:
                    time.sleep(delay)
                messages = request.get("messages", [])
                prompt = "\n".join(str(m.get("content", "")) for m in messages)
                found = re.search(r"locale: (\w\w)-", prompt)
                lang = found.group(1) if found else "en"
                if b.empty:
                    content = ""
                elif b.pii:
                    content = json.dumps({"text": "Call +1 555 123 4567 today"})
                else:
                    content = json.dumps({"text": TEXTS[lang].format(m=b.marker)},
                                         ensure_ascii=False)
                max_tokens = int(request.get("max_tokens") or 256)
                prompt_tokens = math.ceil(len(prompt.encode()) / 4) + 4 * len(messages)
                completion = b.completion_tokens if b.completion_tokens is not None \
                    else max_tokens
                completion = min(completion, max_tokens)
                cost = prompt_tokens * b.price_in + completion * b.price_out
                with server.lock:  # billed once the answer is produced, sent or not
                    books.bill_nano[model] = books.bill_nano.get(model, 0) + cost
                    books.answered[model] = books.answered.get(model, 0) + 1
                self._send(200, {
                    "id": f"chatcmpl-{n}", "object": "chat.completion",
                    "created": int(time.time()), "model": model,
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": content}}],
                    "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion,
                              "total_tokens": prompt_tokens + completion},
                })

        return Handler


def serve_forever_from_cli() -> None:  # pragma: no cover - manual use
    """``python tests/catalogue/fake_llm.py``: run a server in its own process (so its
    threads do not compete with the client's for one GIL) and print its base URL.
    ``POST /_behave`` {"model": .., fields of Behaviour} configures a model and resets
    the books; ``GET /_books`` reads them."""
    with FakeLLM() as server:
        print(server.api_base, flush=True)
        while True:
            time.sleep(3600)


if __name__ == "__main__":  # pragma: no cover
    serve_forever_from_cli()
