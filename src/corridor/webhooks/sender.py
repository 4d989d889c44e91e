"""One HTTP attempt of a delivery: check the URL again, sign, POST, keep the answer's start.

Redirects are not followed; the whole attempt (DNS included) has one timeout; the request
goes to the address the SSRF guard checked, with the URL's host in the Host header and TLS
name check, so a second DNS answer cannot redirect it. Proxies from the environment are
ignored for the same reason.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import httpx

from corridor import __version__
from corridor.kit.logging import get_logger
from corridor.webhooks import signing, urls
from corridor.webhooks.rules import AttemptResult

response_chars_max = 2048
response_bytes_read_max = 4 * response_chars_max
error_chars_max = 500
USER_AGENT = f"Corridor-Webhooks/{__version__}"
logger = get_logger(__name__)


@dataclass(frozen=True, slots=True)
class AttemptRequest:
    message_id: str
    url: str
    secrets: Sequence[str]
    body: bytes


class Sender:
    """Sends attempts over pooled connections, one client per host name (TLS name checks and
    pooled connections must never be shared between names that share an address)."""

    def __init__(
        self, *, timeout_s: float, sandbox: bool, resolver: urls.Resolver = urls.resolve
    ) -> None:
        self._timeout_s = timeout_s
        self._sandbox = sandbox
        self._resolver = resolver
        self._clients: dict[str, httpx.AsyncClient] = {}

    async def aclose(self) -> None:
        clients, self._clients = list(self._clients.values()), {}
        for client in clients:
            await client.aclose()

    async def send(self, request: AttemptRequest, *, at: datetime) -> AttemptResult:
        started = time.perf_counter()
        try:
            async with asyncio.timeout(self._timeout_s):
                return await self._send(request, at, started)
        except urls.UrlRefused as error:
            return _failure(f"URL refused: {error}", started)
        except urls.HostNotResolved as error:
            return _failure(f"DNS: {error}", started)
        except (TimeoutError, httpx.TimeoutException):
            return _failure(f"timeout: no answer within {self._timeout_s:g} s", started)
        except httpx.ConnectError as error:
            return _failure(f"could not connect: {str(error) or 'connection refused'}", started)
        except httpx.HTTPError as error:
            return _failure(f"{type(error).__name__}: {error}", started)
        except Exception as error:  # one odd endpoint must never stop the worker
            logger.warning("webhook_attempt_error", error=repr(error))
            return _failure(f"{type(error).__name__}: {error}", started)

    async def _send(self, request: AttemptRequest, at: datetime, started: float) -> AttemptResult:
        target = urls.parse(request.url, sandbox=self._sandbox)
        addresses = await urls.checked_addresses(
            target, sandbox=self._sandbox, resolver=self._resolver
        )
        headers = {
            **signing.delivery_headers(
                request.secrets, message_id=request.message_id, at=at, body=request.body
            ),
            "content-type": "application/json",
            "user-agent": USER_AGENT,
            "host": target.host_header,
        }
        extensions = (
            {"sni_hostname": target.host}
            if target.scheme == "https" and target.address is None
            else {}
        )
        client = self._client_for(target.host)
        last_error: httpx.ConnectError | None = None
        for address in addresses:
            try:
                async with client.stream(
                    "POST",
                    target.url_for(address),
                    headers=headers,
                    content=request.body,
                    extensions=extensions,
                ) as response:
                    excerpt = await _excerpt(response)
                    return AttemptResult(
                        status_code=response.status_code,
                        response_body=excerpt,
                        error=None,
                        duration_ms=_elapsed_ms(started),
                        retry_after=response.headers.get("retry-after"),
                    )
            except httpx.ConnectError as error:
                last_error = error
        assert last_error is not None
        raise last_error

    def _client_for(self, host: str) -> httpx.AsyncClient:
        client = self._clients.get(host)
        if client is None:
            client = httpx.AsyncClient(
                follow_redirects=False,
                timeout=httpx.Timeout(self._timeout_s),
                trust_env=False,
                limits=httpx.Limits(max_connections=64, max_keepalive_connections=16),
            )
            self._clients[host] = client
        return client


async def _excerpt(response: httpx.Response) -> str:
    """The start of the answer's body, as text (PostgreSQL text never holds NUL)."""
    collected = bytearray()
    async for chunk in response.aiter_bytes():
        collected.extend(chunk)
        if len(collected) >= response_bytes_read_max:
            break
    text = bytes(collected[:response_bytes_read_max]).decode("utf-8", errors="replace")
    return text.replace("\x00", "\ufffd")[:response_chars_max]


def _elapsed_ms(started: float) -> int:
    return int((time.perf_counter() - started) * 1000)


def _failure(error: str, started: float) -> AttemptResult:
    return AttemptResult(
        status_code=None,
        response_body=None,
        error=error.replace("\x00", "")[:error_chars_max],
        duration_ms=_elapsed_ms(started),
    )
