"""MCP over Streamable HTTP at /mcp, mounted in the API's app with the API's credentials.

Every HTTP request to /mcp is authenticated like a REST call (`Authorization: Bearer`,
or `X-API-Key` in sandbox; `X-Corridor-On-Behalf-Of` binds to a customer): no valid
credential, 401 in the API's error shape before any MCP message is read. Cookies are
not accepted here, so a browser page cannot drive tools with a console user's cookie.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from mcp.server.context import ServerRequestContext
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.requests import Request
from starlette.types import Receive, Scope, Send

from corridor.auth import service as auth
from corridor.auth.callers import Caller
from corridor.kit.errors import CorridorError, Unauthorized, ValidationFailed, render_error
from corridor.kit.ids import looks_like_id
from corridor.mcp.server import build_server
from corridor.tools.registry import ToolEnvironment

ON_BEHALF_OF_HEADER = "x-corridor-on-behalf-of"
SESSION_HEADER = "mcp-session-id"
_CALLER_KEY = "corridor_caller"
mcp_request_bytes_max = 1024 * 1024


def _credential(request: Request, *, sandbox: bool) -> str:
    authorization = request.headers.get("authorization")
    if authorization is not None:
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise Unauthorized("Authorization header must be 'Bearer <API key or session token>'")
        return token.strip()
    api_key = request.headers.get("x-api-key")
    if api_key is not None and sandbox:
        return api_key
    raise Unauthorized()


async def authenticate(request: Request, environment: ToolEnvironment) -> Caller:
    settings = environment.settings
    credential = _credential(request, sandbox=settings.is_sandbox)
    async with environment.database.session(write=False) as session:
        caller = await auth.authenticate(
            session,
            credential=credential,
            key_environment=settings.key_environment,
            now=environment.clock.now(),
        )
        on_behalf_of = request.headers.get(ON_BEHALF_OF_HEADER)
        if on_behalf_of is not None:
            if not looks_like_id(on_behalf_of, "cus"):
                raise ValidationFailed("X-Corridor-On-Behalf-Of", "must be a customer id (cus_…)")
            caller = await auth.bind_to_customer(session, caller=caller, customer_id=on_behalf_of)
    return caller


async def _caller_of_message(context: ServerRequestContext[Any, Any]) -> Caller:
    request = context.request
    caller = request.scope.get(_CALLER_KEY) if isinstance(request, Request) else None
    if not isinstance(caller, Caller):
        raise RuntimeError("an MCP message reached a handler without an authenticated caller")
    return caller


def _session_of_message(context: ServerRequestContext[Any, Any]) -> str | None:
    request = context.request
    return request.headers.get(SESSION_HEADER) if isinstance(request, Request) else None


class MCPEndpoint:
    """The ASGI app mounted at /mcp: authenticate, then hand over to the MCP SDK."""

    def __init__(self, environment: ToolEnvironment) -> None:
        self.environment = environment
        self.manager = StreamableHTTPSessionManager(
            app=build_server(
                environment, caller_of=_caller_of_message, session_of=_session_of_message
            ),
            max_request_body_size=mcp_request_bytes_max,
            # A tool call answers with one JSON body rather than an SSE stream: no server
            # notification needs a stream, and a plain answer costs a client less.
            json_response=True,
        )

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        async with self.manager.run():
            yield

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        request = Request(scope)
        try:
            caller = await authenticate(request, self.environment)
        except CorridorError as error:
            await _send_error(send, error)
            return
        scope[_CALLER_KEY] = caller
        await self.manager.handle_request(scope, receive, send)


async def _send_error(send: Send, error: CorridorError) -> None:
    body = render_error(error)
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        *((name.lower().encode(), value.encode()) for name, value in (error.headers or {}).items()),
    ]
    await send({"type": "http.response.start", "status": error.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
