"""The webhook worker's HTTP/1.1 client against real sockets: answers framed every way RFC
9112 allows, kept and abandoned connections, malformed answers, and TLS with name checks."""

from __future__ import annotations

import asyncio
import datetime as dt
import ssl
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from corridor.webhooks.connections import (
    ConnectFailed,
    ConnectionPool,
    Origin,
    ProtocolError,
    drain_bytes_max,
)
from corridor.webhooks.sender import AttemptRequest, Sender
from corridor.webhooks.signing import new_secret
from tests.certificates import write_certificate


@dataclass
class RawServer:
    """Answers each request with the next scripted bytes; a script entry of None closes the
    connection without answering. Notes every request head and every connection."""

    script: list[bytes | None]
    close_after_each: bool = False
    heads: list[str] = field(default_factory=list)
    connections: int = 0
    port: int = 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(
                    int(line.split(b":", 1)[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length:")
                )
                await reader.readexactly(length)
                self.heads.append(head.decode("latin-1"))
                answer = self.script.pop(0) if self.script else OK
                if answer is None:
                    break
                writer.write(answer)
                await writer.drain()
                if self.close_after_each:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


OK = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok"


@pytest.fixture
async def serve() -> AsyncIterator[object]:
    servers: list[asyncio.Server] = []

    async def start(raw: RawServer, tls: ssl.SSLContext | None = None) -> RawServer:
        server = await asyncio.start_server(raw.handle, "127.0.0.1", 0, ssl=tls)
        servers.append(server)
        raw.port = server.sockets[0].getsockname()[1]
        return raw

    yield start
    for server in servers:
        server.close()


async def _post(pool: ConnectionPool, raw: RawServer, path: str = "/hook", **origin_fields):
    origin = Origin(
        **{"scheme": "http", "host": "127.0.0.1", "address": "127.0.0.1", "port": raw.port}
        | origin_fields
    )
    return await pool.post(
        origin,
        host_header=f"{origin.host}:{raw.port}",
        path=path,
        headers={"webhook-id": "msg_1"},
        body=b"{}",
        excerpt_bytes_max=16,
    )


async def test_a_kept_connection_carries_the_next_request(serve):
    raw = await serve(RawServer(script=[OK, OK, OK]))
    pool = ConnectionPool()
    try:
        for _ in range(3):
            answer = await _post(pool, raw)
            assert (answer.status_code, answer.excerpt) == (200, b"ok")
    finally:
        await pool.aclose()
    assert raw.connections == 1
    assert raw.heads[0].startswith("POST /hook HTTP/1.1\r\nhost: 127.0.0.1:")
    assert "content-length: 2" in raw.heads[0] and "webhook-id: msg_1" in raw.heads[0]


async def test_a_chunked_answer_is_read_to_its_end_and_the_connection_kept(serve):
    chunked = (
        b"HTTP/1.1 503 Busy\r\ntransfer-encoding: chunked\r\nretry-after: 30\r\n\r\n"
        b"5;ext=1\r\nhello\r\n15\r\n, a longer second one\r\n0\r\ntrailer: x\r\n\r\n"
    )
    raw = await serve(RawServer(script=[chunked, OK]))
    pool = ConnectionPool()
    try:
        answer = await _post(pool, raw)
        again = await _post(pool, raw)
    finally:
        await pool.aclose()
    assert (answer.status_code, answer.retry_after) == (503, "30")
    assert answer.excerpt == b"hello, a longer seco"[:16]
    assert again.status_code == 200
    assert raw.connections == 1


async def test_a_body_ending_with_the_connection_is_read_and_not_reused(serve):
    answer_until_close = b"HTTP/1.0 500 Oops\r\n\r\nno length here"
    raw = await serve(RawServer(script=[answer_until_close, OK], close_after_each=True))
    pool = ConnectionPool()
    try:
        answer = await _post(pool, raw)
        again = await _post(pool, raw)
    finally:
        await pool.aclose()
    assert (answer.status_code, answer.excerpt) == (500, b"no length here")
    assert again.status_code == 200
    assert raw.connections == 2


async def test_a_long_answer_is_cut_to_its_excerpt_and_its_connection_closed(serve):
    size = 16 + drain_bytes_max + 1
    long = b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n" % size + b"x" * size
    raw = await serve(RawServer(script=[long, OK]))
    pool = ConnectionPool()
    try:
        answer = await _post(pool, raw)
        await _post(pool, raw)
    finally:
        await pool.aclose()
    assert answer.excerpt == b"x" * 16
    assert raw.connections == 2


async def test_interim_answers_are_skipped_and_204_has_no_body(serve):
    interim = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n"
    raw = await serve(RawServer(script=[interim, OK]))
    pool = ConnectionPool()
    try:
        answer = await _post(pool, raw)
        again = await _post(pool, raw)
    finally:
        await pool.aclose()
    assert (answer.status_code, answer.excerpt) == (204, b"")
    assert again.excerpt == b"ok"
    assert raw.connections == 1


async def test_a_kept_connection_the_receiver_dropped_is_replaced_once(serve):
    # The second request finds its kept connection closed without an answer.
    raw = await serve(RawServer(script=[OK, None, OK]))
    pool = ConnectionPool()
    try:
        await _post(pool, raw)
        answer = await _post(pool, raw)
    finally:
        await pool.aclose()
    assert answer.status_code == 200
    assert raw.connections == 2


@pytest.mark.parametrize(
    "answer",
    [
        b"ICY 200 OK\r\n\r\n",
        b"HTTP/1.1 2x0 OK\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n",
        b"HTTP/1.1 200 OK\r\ncontent-length: 2, 3\r\n\r\nok",
        b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n",
    ],
)
async def test_a_malformed_answer_fails_the_attempt_with_a_reason(serve, answer):
    raw = await serve(RawServer(script=[answer]))
    sender = Sender(timeout_s=5, sandbox=True)
    try:
        request = AttemptRequest("msg_1", f"http://127.0.0.1:{raw.port}/h", [new_secret()], b"{}")
        result = await sender.send(request, at=dt.datetime.now(dt.UTC))
    finally:
        await sender.aclose()
    assert result.status_code is None
    assert result.error.startswith("invalid HTTP answer"), result.error


async def test_a_receiver_closing_mid_answer_fails_the_attempt(serve):
    raw = await serve(
        RawServer(
            script=[b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nok"], close_after_each=True
        )
    )
    sender = Sender(timeout_s=5, sandbox=True)
    try:
        request = AttemptRequest("msg_1", f"http://127.0.0.1:{raw.port}/h", [new_secret()], b"{}")
        result = await sender.send(request, at=dt.datetime.now(dt.UTC))
    finally:
        await sender.aclose()
    assert result.status_code is None
    assert result.error.startswith("connection lost"), result.error


async def test_a_path_with_non_ascii_characters_is_sent_percent_encoded(serve):
    raw = await serve(RawServer(script=[OK]))
    pool = ConnectionPool()
    try:
        await _post(pool, raw, path="/hooks/café?q=ü")
    finally:
        await pool.aclose()
    assert raw.heads[0].startswith("POST /hooks/caf%C3%A9?q=%C3%BC HTTP/1.1\r\n")


# --- TLS ----------------------------------------------------------------------------------


def _certificate(tmp_path: Path) -> tuple[ssl.SSLContext, ssl.SSLContext]:
    """A self-signed certificate for `localhost` and 127.0.0.1: the server's context and a
    client context that trusts it."""
    certificate_file, key_file = write_certificate(tmp_path)
    server = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server.load_cert_chain(certificate_file, key_file)
    client = ssl.create_default_context(cafile=str(certificate_file))
    return server, client


async def test_https_checks_the_certificate_against_the_url_host(serve, tmp_path):
    server_tls, client_tls = _certificate(tmp_path)
    raw = await serve(RawServer(script=[OK, OK]), tls=server_tls)
    pool = ConnectionPool(tls=client_tls)
    try:
        answer = await _post(pool, raw, scheme="https", host="localhost")
        with pytest.raises(ConnectFailed, match="certificate"):
            await _post(pool, raw, scheme="https", host="hooks.example.com")
    finally:
        await pool.aclose()
    assert answer.excerpt == b"ok"


async def test_https_to_an_untrusted_certificate_fails_to_connect(serve, tmp_path):
    server_tls, _ = _certificate(tmp_path)
    raw = await serve(RawServer(script=[OK]), tls=server_tls)
    sender = Sender(timeout_s=5, sandbox=True)
    try:
        request = AttemptRequest("msg_1", f"https://127.0.0.1:{raw.port}/", [new_secret()], b"{}")
        result = await sender.send(request, at=dt.datetime.now(dt.UTC))
    finally:
        await sender.aclose()
    assert result.status_code is None
    assert result.error.startswith("could not connect") and "certificate" in result.error


def test_a_protocol_error_is_not_a_connection_failure():
    assert not issubclass(ProtocolError, OSError)
