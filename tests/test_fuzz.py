"""No request, however malformed, produces a 500, and every refusal has the error shape.

Schemathesis generates requests for every operation in our own OpenAPI document (valid
and invalid bodies, odd path ids, strange query values) and sends them over real HTTP to
`corridor serve` running in a subprocess, on SQLite and, when configured, PostgreSQL.
"""

from __future__ import annotations

import json
import socket
import time
import urllib.parse

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, settings

from corridor.app import create_app
from corridor.config import Settings
from tests.conftest import BACKENDS
from tests.live_server import live_corridor

examples_per_operation_max = 20

schema = schemathesis.openapi.from_dict(
    create_app(
        Settings(database_url="sqlite+aiosqlite:///openapi-only.db"), run_workers_in_process=False
    ).openapi()
)


@pytest.fixture(scope="module", params=BACKENDS)
def live_server(request, tmp_path_factory):
    # With its workers, as served: GET /v1/health/ready answers 503 (documented, not an
    # error) while no worker's heartbeat is fresh.
    with live_corridor(request.param, tmp_path_factory.mktemp("fuzz"), workers=True) as live:
        _wait_until_ready(live.base_url)
        yield live.base_url, live.api_key, live.log


def _wait_until_ready(base_url: str) -> None:
    for _ in range(600):
        if httpx.get(f"{base_url}/v1/health/ready", timeout=10).status_code == 200:
            return
        time.sleep(0.1)
    raise AssertionError("the server never became ready")


@schema.parametrize()
@settings(
    max_examples=examples_per_operation_max,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    database=None,
)
def test_no_request_produces_a_server_error(case, live_server):
    base_url, api_key, log = live_server
    response = case.call(base_url=base_url, headers={"Authorization": f"Bearer {api_key}"})
    assert response.status_code < 500, (
        f"{case.method} {case.formatted_path} → {response.status_code}\n{response.text}\n{log.read_text()[-4000:]}"
    )
    if response.status_code >= 400 and response.status_code != 405:
        body = response.json()
        assert isinstance(body.get("code"), str) and isinstance(body.get("message"), str), body
        request_id = response.headers["x-request-id"]
        assert body["requestId"] == (request_id[0] if isinstance(request_id, list) else request_id)


def test_a_url_longer_than_the_url_parser_takes_gets_the_error_shape(live_server):
    """A request target over 64 KiB (httptools' URL parser's limit; a filter of 8,100
    characters, each a percent-encoded 3-byte character, is 73 KB) is refused with 414 in
    the error shape, not the HTTP server's plain-text 400."""
    base_url, api_key, _log = live_server
    host, port = base_url.removeprefix("http://").split(":")
    # Whitespace, which the filter's pattern allows (httpx refuses a query this long).
    target = "/v1/webhooks/messages?" + urllib.parse.urlencode({"eventTypes": "\u3000" * 8_100})
    assert len(target) > 65_535
    head = f"GET {target} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {api_key}\r\n"
    answer = _exchange(host, int(port), head.encode() + b"Connection: close\r\n\r\n")
    status_line, _, rest = answer.partition(b"\r\n")
    assert status_line.startswith(b"HTTP/1.1 414 "), answer[:400]
    headers, _, body = rest.partition(b"\r\n\r\n")
    error = json.loads(body)
    assert error["code"] == "uri_too_long"
    assert f"x-request-id: {error['requestId']}".encode() in headers.lower()


def _exchange(host: str, port: int, request: bytes) -> bytes:
    """The whole answer to one request on a connection the server closes after it."""
    with socket.create_connection((host, port), timeout=30) as connection:
        connection.sendall(request)
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    return answer


def test_an_over_long_url_sent_slowly_gets_the_error_shape(live_server):
    """A request line that arrives in pieces, longer than the HTTP parser's default buffer
    (16 KiB), still reaches the app and is refused with 414 in the error shape (it used to
    get the server's plain-text "Invalid HTTP request received.")."""
    base_url, api_key, _log = live_server
    host, port = base_url.removeprefix("http://").split(":")
    request_line = b"GET /v1/accounts/" + b"%F0%9F%98%80" * 2000 + b" HTTP/1.1\r\n"
    head = request_line + f"Host: {host}\r\nAuthorization: Bearer {api_key}\r\n\r\n".encode()
    with socket.create_connection((host, int(port)), timeout=30) as connection:
        for start in range(0, len(head), 1024):
            connection.sendall(head[start : start + 1024])
            time.sleep(0.002)
        answer = b""
        while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
            chunk = connection.recv(65536)
            if not chunk:
                break
            answer += chunk
    status_line, _, rest = answer.partition(b"\r\n")
    assert status_line.startswith(b"HTTP/1.1 414 "), answer
    body = json.loads(rest.partition(b"\r\n\r\n")[2])
    assert body["code"] == "uri_too_long" and body["requestId"].startswith("req_")
