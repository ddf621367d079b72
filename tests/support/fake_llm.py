"""A local OpenAI-compatible chat server for catalogue tests and the benchmark.

It listens on 127.0.0.1 (a :mod:`support.fake_http` server), answers
``POST /v1/chat/completions`` and behaves per model (latency, empty answers, 429s, hangs,
PII, token usage). It keeps its own books: the most requests ever in flight, requests per
model, and a bill of tokens x its own prices in integer nano-dollars, so tests compare the
fleet's accounting with the provider's."""

from __future__ import annotations

import json
import math
import re
import time
from dataclasses import dataclass, field
from typing import Any

from support.fake_http import FakeHTTPServer, Reply, Request, error_reply

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


class FakeLLM(FakeHTTPServer):
    """``with FakeLLM() as server:`` → ``server.api_base``; ``server.behave(model, ...)``."""

    def __init__(self, default: Behaviour | None = None, *, keep_log: bool = True) -> None:
        super().__init__(keep_log=keep_log, queue_size=512)
        self.default = default or Behaviour()
        self.models: dict[str, Behaviour] = {}
        self.books = Books()

    @property
    def api_base(self) -> str:
        return f"{self.url}/v1"

    def behave(self, model: str, **kw: Any) -> None:
        self.models[model] = Behaviour(**kw)

    def reset_books(self) -> None:
        with self.lock:
            self.books = Books()

    def handle(self, request: Request) -> Reply | None:
        route = request.route.rstrip("/")
        if request.method == "GET":
            if route != "/_books":
                return error_reply(404, "not found")
            with self.lock:
                b = self.books
                return Reply(200, {"in_flight": b.in_flight, "max_in_flight": b.max_in_flight,
                                   "requests": b.requests, "answered": b.answered,
                                   "bill_nano": b.bill_nano})
        body = request.json()
        if route == "/_behave":  # control: {"model": .., **Behaviour}
            self.behave(body.pop("model"), **body)
            self.reset_books()
            return Reply(200, {"ok": True})
        model = str(body.get("model", ""))
        b = self.models.get(model, self.default)
        with self.lock:
            books = self.books
            n = books.requests.get(model, 0)
            books.requests[model] = n + 1
            books.in_flight += 1
            books.max_in_flight = max(books.max_in_flight, books.in_flight)
        try:
            return self._answer(body, model, b, n, books)
        finally:
            with self.lock:
                books.in_flight -= 1

    def _answer(self, request: dict, model: str, b: Behaviour, n: int,
                books: Books) -> Reply | None:
        if n < b.fail_first:
            return error_reply(429, "rate limited", type="rate_limit_error",
                               code="rate_limit")
        if b.hang:
            self.closing.wait(120)
            return None
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
            content = json.dumps({"text": TEXTS[lang].format(m=b.marker)}, ensure_ascii=False)
        max_tokens = int(request.get("max_tokens") or 256)
        prompt_tokens = math.ceil(len(prompt.encode()) / 4) + 4 * len(messages)
        completion = b.completion_tokens if b.completion_tokens is not None else max_tokens
        completion = min(completion, max_tokens)
        cost = prompt_tokens * b.price_in + completion * b.price_out
        with self.lock:  # billed once the answer is produced, sent or not
            books.bill_nano[model] = books.bill_nano.get(model, 0) + cost
            books.answered[model] = books.answered.get(model, 0) + 1
        return Reply(200, {
            "id": f"chatcmpl-{n}", "object": "chat.completion",
            "created": int(time.time()), "model": model,
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion,
                      "total_tokens": prompt_tokens + completion},
        })


def serve_forever_from_cli() -> None:  # pragma: no cover - manual use
    """``python -m support.fake_llm``: run a server in its own process (so its threads do
    not compete with the client's for one GIL) and print its base URL (no request log).
    ``POST /_behave`` {"model": .., fields of Behaviour} configures a model and resets
    the books; ``GET /_books`` reads them."""
    with FakeLLM(keep_log=False) as server:
        print(server.api_base, flush=True)
        while True:
            time.sleep(3600)


if __name__ == "__main__":  # pragma: no cover
    serve_forever_from_cli()
