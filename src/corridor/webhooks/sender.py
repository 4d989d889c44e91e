"""One HTTP attempt of a delivery: check the URL again, sign, POST, keep the answer's start.

Redirects are not followed; the whole attempt (DNS included) has one timeout; the request
goes to the address the SSRF guard checked, with the URL's host in the Host header and TLS
name check, so a second DNS answer cannot redirect it. Proxies from the environment are
never used for the same reason. The HTTP itself is connections.py's.
"""

from __future__ import annotations

import asyncio
import ssl
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import urlsplit

from corridor import __version__
from corridor.kit import tracing, urls
from corridor.kit.logging import get_logger
from corridor.webhooks import signing
from corridor.webhooks.connections import (
    ConnectFailed,
    ConnectionLost,
    ConnectionPool,
    Origin,
    ProtocolError,
)
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
    """Sends attempts over kept-alive connections, pooled per host name and checked address
    (TLS name checks and pooled connections are never shared between names that share an
    address)."""

    def __init__(
        self,
        *,
        timeout_s: float,
        sandbox: bool,
        resolver: urls.Resolver = urls.resolve,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        self._timeout_s = timeout_s
        self._sandbox = sandbox
        self._resolver = resolver
        self._connections = ConnectionPool(tls=tls)

    async def aclose(self) -> None:
        await self._connections.aclose()

    async def send(self, request: AttemptRequest, *, at: datetime) -> AttemptResult:
        """One attempt; a span of kind CLIENT while traces are on (the host, never the
        URL's path or query, which may carry a receiver's token)."""
        attributes = _span_attributes(request) if tracing.enabled() else None
        with tracing.span("POST", client=True, attributes=attributes) as span:
            result = await self._attempt(request, at)
            tracing.set_attributes(span, **{"http.response.status_code": result.status_code})
            if result.status_code is None or result.status_code >= 400:
                tracing.mark_failed(span, result.error or f"HTTP {result.status_code}")
            return result

    async def _attempt(self, request: AttemptRequest, at: datetime) -> AttemptResult:
        started = time.perf_counter()
        try:
            async with asyncio.timeout(self._timeout_s):
                return await self._send(request, at, started)
        except urls.UrlRefused as error:
            return _failure(f"URL refused: {error}", started)
        except urls.HostNotResolved as error:
            return _failure(f"DNS: {error}", started)
        except TimeoutError:
            return _failure(f"timeout: no answer within {self._timeout_s:g} s", started)
        except ConnectFailed as error:
            return _failure(f"could not connect: {error}", started)
        except ProtocolError as error:
            return _failure(f"invalid HTTP answer: {error}", started)
        except (ConnectionLost, OSError) as error:
            return _failure(f"connection lost: {str(error) or type(error).__name__}", started)
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
        }
        last_error: ConnectFailed | None = None
        for address in addresses:
            origin = Origin(target.scheme, target.host, str(address), target.port)
            try:
                answer = await self._connections.post(
                    origin,
                    host_header=target.host_header,
                    path=target.path_and_query,
                    headers=headers,
                    body=request.body,
                    excerpt_bytes_max=response_bytes_read_max,
                )
            except ConnectFailed as error:
                last_error = error
                continue
            return AttemptResult(
                status_code=answer.status_code,
                response_body=_excerpt(answer.excerpt),
                error=None,
                duration_ms=_elapsed_ms(started),
                retry_after=answer.retry_after,
            )
        assert last_error is not None
        raise last_error


def _span_attributes(request: AttemptRequest) -> dict[str, str | int]:
    parts = urlsplit(request.url)
    attributes: dict[str, str | int] = {
        "http.request.method": "POST",
        "url.scheme": parts.scheme,
        "server.address": parts.hostname or "",
        "corridor.webhook.message_id": request.message_id,
    }
    try:
        if parts.port is not None:
            attributes["server.port"] = parts.port
    except ValueError:
        pass
    return attributes


def _excerpt(body: bytes) -> str:
    """The start of the answer's body, as text (PostgreSQL text never holds NUL)."""
    text = body[:response_bytes_read_max].decode("utf-8", errors="replace")
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
