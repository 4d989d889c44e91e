"""The outermost layer: request ids, body size limit, access log, and the last-resort 500."""

from __future__ import annotations

import time
from typing import Any, Protocol

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from corridor.auth.callers import Caller, CallerKind
from corridor.kit.errors import CorridorError, render_error
from corridor.kit.ids import new_id
from corridor.kit.logging import get_logger
from corridor.kit.request_context import (
    reset_request_id,
    reset_sandbox,
    set_request_id,
    set_sandbox,
)

logger = get_logger("corridor.http")

# Path and query together: longer request targets are refused with 414 (the usual limit of
# web servers and proxies). `corridor serve` lets request heads up to
# `request_head_bytes_max` through to the app, so that this answer, not the HTTP server's
# plain-text 400, is what an over-long URL gets.
url_bytes_max = 8 * 1024
request_head_bytes_max = 256 * 1024


class RequestLogSink(Protocol):
    """Where a finished request of an API key or OAuth token goes (requestlogs/recorder.py):
    called on the request path, so it must only remember."""

    def record(
        self,
        request_id: str,
        caller: Caller,
        method: str,
        path: str,
        status: int,
        latency_ms: float,
        idempotency_key: bytes | None,
        error_body: bytes,
    ) -> None: ...


# An error body is kept up to this many bytes (the house error JSON is a few hundred).
_error_body_bytes_kept = 8 * 1024 + 1


class BodyTooLarge(HTTPException):
    def __init__(self) -> None:
        super().__init__(status_code=413, detail="Request body too large")


def _url_bytes(scope: Scope) -> int:
    raw = scope.get("raw_path") or scope["path"].encode()
    return len(raw) + len(scope.get("query_string", b""))


def _has_nul_character(scope: Scope) -> bool:
    raw = scope.get("raw_path") or scope["path"].encode()
    query = scope.get("query_string", b"")
    return (
        b"%00" in raw
        or b"\x00" in raw
        or b"%00" in query
        or b"\x00" in query
        or "\x00" in scope["path"]
    )


class RequestMiddleware:
    def __init__(
        self,
        app: ASGIApp,
        *,
        body_bytes_max: int,
        upload_path_prefix: str | None = None,
        upload_bytes_max: int = 0,
        sandbox: bool | None = None,
        request_log: RequestLogSink | None = None,
    ) -> None:
        self.app = app
        self.request_log = request_log
        self.sandbox = sandbox
        self.body_bytes_max = body_bytes_max
        # Signed document uploads (documents/endpoints.py) take files up to their own limit.
        self.upload_path_prefix = upload_path_prefix
        self.upload_bytes_max = upload_bytes_max

    def _body_limit(self, scope: Scope) -> int:
        if self.upload_path_prefix and scope["path"].startswith(self.upload_path_prefix):
            return max(self.body_bytes_max, self.upload_bytes_max)
        return self.body_bytes_max

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = new_id("req")
        token = set_request_id(request_id)
        sandbox_token = set_sandbox(self.sandbox)
        started = time.perf_counter()
        status: dict[str, Any] = {"code": None}
        error_body: list[bytes] = []

        async def send_with_request_id(message: Message) -> None:
            if message["type"] == "http.response.body":
                if status["code"] is not None and status["code"] >= 400:
                    error_body.append(message.get("body", b"")[:_error_body_bytes_kept])
            elif message["type"] == "http.response.start":
                status["code"] = message["status"]
                message.setdefault("headers", [])
                extra = [(b"x-request-id", request_id.encode())]
                window = scope.get("state", {}).get("rate_limit")
                if window is not None and message["status"] != 429:
                    extra += [
                        (name.lower().encode(), value.encode())
                        for name, value in window.headers().items()
                    ]
                message["headers"] = [*message["headers"], *extra]
            await send(message)

        try:
            if _url_bytes(scope) > url_bytes_max:
                await self._answer(
                    send_with_request_id,
                    CorridorError(
                        f"The URL (path and query) is longer than {url_bytes_max} bytes",
                        status=414,
                        code="uri_too_long",
                    ),
                )
                return
            if _has_nul_character(scope):
                await self._answer(
                    send_with_request_id,
                    CorridorError(
                        "Path and query must not contain NUL (%00) characters",
                        status=422,
                        code="validation_error",
                        errors=[{"field": "path", "message": "must not contain NUL characters"}],
                    ),
                )
                return
            body_limit = self._body_limit(scope)
            if self._declared_length(scope) > body_limit:
                await self._answer(
                    send_with_request_id,
                    CorridorError("Request body too large", status=413, code="payload_too_large"),
                )
                return
            await self.app(scope, self._limited(receive, body_limit), send_with_request_id)
        except Exception:
            logger.exception("unhandled_error", method=scope["method"], path=scope["path"])
            if status["code"] is None:
                await self._answer(
                    send_with_request_id,
                    CorridorError(
                        "Internal error; quote the request id when you report it",
                        status=500,
                        code="internal_error",
                    ),
                )
        finally:
            duration_ms = (time.perf_counter() - started) * 1000
            logger.info(
                "request",
                method=scope["method"],
                path=scope["path"],
                status=status["code"],
                duration_ms=round(duration_ms, 2),
            )
            if self.request_log is not None:
                self._log_request(scope, request_id, status["code"], duration_ms, error_body)
            reset_request_id(token)
            reset_sandbox(sandbox_token)

    def _log_request(
        self,
        scope: Scope,
        request_id: str,
        status: int | None,
        duration_ms: float,
        error_body: list[bytes],
    ) -> None:
        """Hand a request of an API key or OAuth token to the request log: the caller the
        authentication put in the scope's state (none: unauthenticated, not logged), never
        a header but the Idempotency-Key, never the query string."""
        state = scope.get("state")
        caller: Caller | None = state.get("caller") if state else None
        if caller is None or caller.kind is CallerKind.CONSOLE_USER or status is None:
            return
        idempotency_key = None
        for name, value in scope["headers"]:
            if name == b"idempotency-key":
                idempotency_key = value
                break
        assert self.request_log is not None
        self.request_log.record(
            request_id,
            caller,
            scope["method"],
            scope["path"],
            status,
            duration_ms,
            idempotency_key,
            b"".join(error_body),
        )

    @staticmethod
    def _declared_length(scope: Scope) -> int:
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    return int(value)
                except ValueError:
                    return 0
        return 0

    def _limited(self, receive: Receive, body_limit: int) -> Receive:
        received = 0

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > body_limit:
                    raise BodyTooLarge()
            return message

        return limited_receive

    @staticmethod
    async def _answer(send: Send, error: CorridorError) -> None:
        body = render_error(error)
        await send(
            {
                "type": "http.response.start",
                "status": error.status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
