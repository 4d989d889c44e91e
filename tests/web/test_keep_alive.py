"""Kept-alive connections are never closed under a request (issue 30 item 5).

A burst of 200 concurrent reads once ended in a connection closed mid-request (httpx
`ReadError`). The cause: uvicorn closes an idle connection after its `timeout_keep_alive`
(5 s by default) while httpx keeps pooled connections 5 s too, so a request sent on a
connection idle for about 5 s can meet the server's close. `corridor serve` now keeps idle
connections `CORRIDOR_HTTP_KEEP_ALIVE_S` (120 s), longer than client pools and proxies
keep theirs, so the client is the one that closes (docs/deployment.md)."""

from __future__ import annotations

import asyncio
from urllib.parse import urlsplit

import httpx
import pytest

from tests.conftest import BACKENDS
from tests.live_server import LiveServer, live_corridor

burst_size = 200
# uvicorn's default keep-alive (and httpx's pool expiry) is 5 s: idle a little past it.
client_idle_s = 6.0


async def _two_requests_on_one_connection(live: LiveServer, idle_s: float) -> bytes:
    address = urlsplit(live.base_url)
    reader, writer = await asyncio.open_connection(address.hostname, address.port)
    request = (
        f"GET /v1/health HTTP/1.1\r\nHost: {address.netloc}\r\nConnection: keep-alive\r\n\r\n"
    ).encode()
    try:
        writer.write(request)
        await writer.drain()
        head = await reader.readuntil(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200"), head
        length = next(
            int(line.split(b":")[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        )
        await reader.readexactly(length)
        await asyncio.sleep(idle_s)
        writer.write(request)
        await writer.drain()
        return await reader.read(64)
    finally:
        writer.close()


async def _burst(client: httpx.AsyncClient) -> list[int]:
    answers = await asyncio.gather(
        *(client.get("/v1/organizations/current") for _ in range(burst_size)),
        return_exceptions=True,
    )
    errors = [repr(answer) for answer in answers if isinstance(answer, BaseException)]
    assert errors == [], errors[:5]
    return [answer.status_code for answer in answers if isinstance(answer, httpx.Response)]


async def _bursts_after_idling(live: LiveServer) -> list[list[int]]:
    limits = httpx.Limits(
        max_connections=burst_size, max_keepalive_connections=burst_size, keepalive_expiry=60
    )
    async with httpx.AsyncClient(
        base_url=live.base_url,
        headers={"Authorization": f"Bearer {live.api_key}"},
        limits=limits,
        timeout=120,
    ) as client:
        rounds = [await _burst(client)]  # opens the connections
        # Around the old keep-alive timeout: before it, at it, past it.
        for idle_s in (4.5, 5.0, client_idle_s):
            await asyncio.sleep(idle_s)
            rounds.append(await _burst(client))
        return rounds


def test_a_connection_idle_longer_than_client_pools_keep_theirs_is_still_served(tmp_path):
    with live_corridor("sqlite", tmp_path) as live:
        answer = asyncio.run(_two_requests_on_one_connection(live, client_idle_s))
    # The server had closed it: the read finds the end of the stream, no answer.
    assert answer.startswith(b"HTTP/1.1 200"), answer


@pytest.mark.parametrize("backend", BACKENDS)
def test_bursts_over_reused_connections_after_idling_lose_no_request(tmp_path, backend):
    with live_corridor(backend, tmp_path) as live:
        rounds = asyncio.run(_bursts_after_idling(live))
    assert [sorted(set(statuses)) for statuses in rounds] == [[200]] * 4
