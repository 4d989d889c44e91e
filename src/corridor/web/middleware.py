"""The outermost layer: request ids, body size limit, access log, and the last-resort 500."""

from __future__ import annotations

import time
from typing import Any

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

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
    ) -> None:
        self.app = app
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

        async def send_with_request_id(message: Message) -> None:
            if message["type"] == "http.response.start":
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
            logger.info(
                "request",
                method=scope["method"],
                path=scope["path"],
                status=status["code"],
                duration_ms=round((time.perf_counter() - started) * 1000, 2),
            )
            reset_request_id(token)
            reset_sandbox(sandbox_token)

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
