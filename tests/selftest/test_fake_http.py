"""The one fake HTTP server the local fakes build on: JSON in and out over a real socket on
127.0.0.1, a request log, a broken handler answered with a 500 rather than a hang, and a
held request released when the server stops."""

from __future__ import annotations

import gzip
import http.client
import json
import threading
import urllib.error
import urllib.request

import pytest

from support.fake_http import FakeHTTPServer, Reply, Request, error_reply


class Echo(FakeHTTPServer):
    def handle(self, request: Request) -> Reply | None:
        if request.route == "/echo":
            return Reply(201, {"method": request.method, "path": request.path,
                               "body": request.json()})
        if request.route == "/raw":
            return Reply(200, b"\x00raw", content_type="application/octet-stream")
        if request.route == "/boom":
            raise KeyError("nope")
        if request.route == "/hold":
            self.closing.wait(30)
            return None
        return error_reply(404, f"no route {request.route}", code=404)


def _post(url: str, body: bytes, headers: dict[str, str] | None = None
          ) -> tuple[int, bytes, str]:
    req = urllib.request.Request(url, data=body, method="POST", headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, resp.read(), resp.headers["Content-Type"]
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read(), exc.headers["Content-Type"]


def test_json_in_and_out_with_a_request_log() -> None:
    with Echo() as server:
        assert server.url.startswith("http://127.0.0.1:") and server.port > 0
        status, body, kind = _post(f"{server.url}/echo?x=1", b'{"a": [1, 2]}',
                                   {"Content-Type": "application/json", "X-Probe": "yes"})
        assert (status, kind) == (201, "application/json")
        assert json.loads(body) == {"method": "POST", "path": "/echo?x=1", "body": {"a": [1, 2]}}
        gz_status, gz_body, _ = _post(f"{server.url}/echo", gzip.compress(b'{"z": 1}'),
                                      {"Content-Encoding": "gzip"})
        assert gz_status == 201 and json.loads(gz_body)["body"] == {"z": 1}
        raw = urllib.request.urlopen(f"{server.url}/raw", timeout=10)
        assert raw.read() == b"\x00raw" and raw.headers["Content-Type"] == \
            "application/octet-stream"
        missing = _post(f"{server.url}/nowhere", b"")
        assert missing[0] == 404 and json.loads(missing[1])["error"] == {
            "message": "no route /nowhere", "code": 404}
    log = server.request_log
    assert [(r.method, r.route) for r in log] == [
        ("POST", "/echo"), ("POST", "/echo"), ("GET", "/raw"), ("POST", "/nowhere")]
    assert log[0].headers["x-probe"] == "yes" and log[0].body == b'{"a": [1, 2]}'
    assert log[1].body == b'{"z": 1}'  # un-gzipped


def test_a_broken_handler_answers_500_and_bad_json_is_a_value_error() -> None:
    with Echo() as server:
        status, body, _ = _post(f"{server.url}/boom", b"{}")
        assert status == 500 and "KeyError" in json.loads(body)["error"]["message"]
        status, body, _ = _post(f"{server.url}/echo", b"not json")
        assert status == 500 and "JSONDecodeError" in json.loads(body)["error"]["message"]
    with pytest.raises(ValueError):
        Request("POST", "/", {}, b"{oops").json()


def test_a_held_request_is_released_without_an_answer_when_the_server_stops() -> None:
    server = Echo(keep_log=False).start()
    outcome: list[BaseException] = []

    def call() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=20)
        try:
            conn.request("POST", "/hold", body=b"{}")
            conn.getresponse()
        except (http.client.HTTPException, OSError) as exc:
            outcome.append(exc)
        finally:
            conn.close()

    caller = threading.Thread(target=call)
    caller.start()
    caller.join(0.5)
    assert caller.is_alive(), "the request is held"
    server.stop()
    caller.join(10)
    assert not caller.is_alive() and len(outcome) == 1, outcome  # closed, no answer
    assert server.request_log == []  # keep_log=False
