"""MCP over Streamable HTTP at /mcp, mounted in the API's app with the API's credentials.

Every HTTP request to /mcp is authenticated like a REST call (`Authorization: Bearer`,
or `X-API-Key` in sandbox; `X-Corridor-On-Behalf-Of` binds to a customer), or by an OAuth
access token bound to this endpoint (oauth/): no valid credential, 401 in the API's error
shape, with a `WWW-Authenticate` challenge naming the protected resource metadata
(metadata.py), before any MCP message is read. A tool the OAuth grant lacks the scope for
is 403 `insufficient_scope` naming it (step-up). Cookies are not accepted here, so a
browser page cannot drive tools with a console user's cookie.

Sessions are rows (sessions.py), not SDK state: the SDK's transport runs stateless, an
`initialize` opens a session whose id goes back in `Mcp-Session-Id`, and a request that
carries it is served by whichever API process receives it, before or after a restart.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from typing import Any

from mcp.server.context import ServerRequestContext
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.requests import Request
from starlette.types import Message, Receive, Scope, Send

from corridor.auth import service as auth
from corridor.auth import signatures
from corridor.auth.callers import Caller
from corridor.auth.scopes import AGENT_KEY_SCOPES
from corridor.kit.errors import (
    CorridorError,
    PayloadTooLarge,
    Unauthorized,
    ValidationFailed,
    render_error,
)
from corridor.kit.ids import looks_like_id
from corridor.mcp import metadata, sessions
from corridor.mcp.errors import McpMethodNotAllowed
from corridor.mcp.server import build_server
from corridor.oauth import rules as oauth_rules
from corridor.oauth import service as oauth
from corridor.oauth.errors import InsufficientScope, InvalidToken
from corridor.tools.registry import TOOLS_BY_NAME, ToolEnvironment
from corridor.web.replay import replayed

ON_BEHALF_OF_HEADER = "x-corridor-on-behalf-of"
SESSION_HEADER = "mcp-session-id"
_CALLER_KEY = "corridor_caller"
_SESSION_KEY = "corridor_mcp_session"
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


@dataclass(frozen=True, slots=True)
class Authenticated:
    caller: Caller
    # The MCP session the request continues, and whether its expiry is due a push.
    session_id: str | None = None
    renew: bool = False


async def _authenticated(
    request: Request, environment: ToolEnvironment, *, session_id: str | None, body: bytes = b""
) -> Authenticated:
    """The caller behind the request's credentials, in its MCP session when it names one
    (one read transaction for both)."""
    settings = environment.settings
    credential = _credential(request, sandbox=settings.is_sandbox)
    now = environment.clock.now()
    async with environment.database.session(write=False) as session:
        if credential.startswith(oauth_rules.ACCESS_TOKEN_PREFIX):
            resource = oauth_rules.mcp_resource(metadata.base_url(settings, request))
            caller = await oauth.authenticate_access_token(
                session, token=credential, resource=resource, now=now
            )
        else:
            caller = await auth.authenticate(
                session, credential=credential, key_environment=settings.key_environment, now=now
            )
        if caller.agent_id is not None:
            # An agent with signing keys signs its MCP requests too (RFC 9421).
            signed = signatures.SignedRequest(
                request.method, str(request.url), request.headers, body
            )
            nonce = await signatures.verify(
                session, agent_id=caller.agent_id, request=signed, now=now
            )
            if nonce is not None:
                await signatures.keep_nonce(environment.database, nonce, now)
        on_behalf_of = request.headers.get(ON_BEHALF_OF_HEADER)
        if on_behalf_of is not None:
            if not looks_like_id(on_behalf_of, "cus"):
                raise ValidationFailed("X-Corridor-On-Behalf-Of", "must be a customer id (cus_…)")
            caller = await auth.bind_to_customer(session, caller=caller, customer_id=on_behalf_of)
        if session_id is None:
            return Authenticated(caller)
        row = await sessions.find_session(session, caller=caller, session_id=session_id, now=now)
        return Authenticated(
            sessions.caller_in(caller, row), row.id, sessions.needs_renewal(row, now)
        )


async def _caller_of_message(context: ServerRequestContext[Any, Any]) -> Caller:
    request = context.request
    caller = request.scope.get(_CALLER_KEY) if isinstance(request, Request) else None
    if not isinstance(caller, Caller):
        raise RuntimeError("an MCP message reached a handler without an authenticated caller")
    return caller


def _principal_of_message(context: ServerRequestContext[Any, Any]) -> str | None:
    request = context.request
    caller = request.scope.get(_CALLER_KEY) if isinstance(request, Request) else None
    return caller.actor_id if isinstance(caller, Caller) else None


def _session_of_message(context: ServerRequestContext[Any, Any]) -> str | None:
    request = context.request
    session_id = request.scope.get(_SESSION_KEY) if isinstance(request, Request) else None
    return session_id if isinstance(session_id, str) else None


class MCPEndpoint:
    """The ASGI app mounted at /mcp: authenticate, then hand over to the MCP SDK."""

    def __init__(self, environment: ToolEnvironment) -> None:
        self.environment = environment
        self.manager = StreamableHTTPSessionManager(
            app=build_server(
                environment,
                caller_of=_caller_of_message,
                session_of=_session_of_message,
                principal_of=_principal_of_message,
            ),
            max_request_body_size=mcp_request_bytes_max,
            # A tool call answers with one JSON body rather than an SSE stream: no server
            # notification needs a stream, and a plain answer costs a client less.
            json_response=True,
            # Sessions are database rows (sessions.py); the SDK keeps none in the process.
            stateless=True,
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
            body, who = await self._admit(request, receive)
        except CorridorError as error:
            await _send_error(send, self._challenged(request, error))
            return
        if body is None:  # DELETE: the session ended
            await send({"type": "http.response.start", "status": 204, "headers": []})
            await send({"type": "http.response.body", "body": b""})
            return
        scope[_CALLER_KEY] = who.caller
        scope[_SESSION_KEY] = who.session_id
        await self.manager.handle_request(
            scope, replayed(body, receive), _with_session_header(send, who.session_id)
        )

    async def _admit(
        self, request: Request, receive: Receive
    ) -> tuple[bytes | None, Authenticated]:
        """Authenticate, then: a POST continues its session or, initializing, opens one;
        a DELETE ends its session (no body returned); GET is refused."""
        environment = self.environment
        session_id = request.headers.get(SESSION_HEADER)
        body = await _body(receive) if request.method == "POST" else b""
        who = await _authenticated(request, environment, session_id=session_id, body=body)
        if who.caller.oauth_grant:
            _check_scope_of_call(who.caller, environment, body)
        now = environment.clock.now()
        if request.method == "GET":
            raise McpMethodNotAllowed()
        if request.method == "DELETE":
            if session_id is None:
                raise ValidationFailed("Mcp-Session-Id", "names the session to end")
            async with environment.database.session() as session, session.begin():
                await sessions.end_session(
                    session, caller=who.caller, session_id=session_id, now=now
                )
            return None, who
        if who.session_id is None and _initializes(body):
            async with environment.database.session() as session, session.begin():
                row = await sessions.open_session(session, caller=who.caller, now=now)
            return body, Authenticated(who.caller, row.id)
        if who.renew and who.session_id is not None:
            await sessions.renew(environment.database, session_id=who.session_id, now=now)
        return body, who

    def _challenged(self, request: Request, error: CorridorError) -> CorridorError:
        """A 401 names the protected resource metadata, so a client can find the
        authorization server (RFC 9728 section 5.1); a 403 for a missing scope names it."""
        base = metadata.base_url(self.environment.settings, request)
        if isinstance(error, InvalidToken):
            value = metadata.challenge(base, error="invalid_token", description=error.description)
        elif isinstance(error, InsufficientScope):
            value = metadata.challenge(base, error="insufficient_scope", scope=error.scope)
        elif error.status == 401:
            value = metadata.challenge(base)
        else:
            return error
        error.headers = {**(error.headers or {}), "WWW-Authenticate": value}
        return error


def _check_scope_of_call(caller: Caller, environment: ToolEnvironment, body: bytes) -> None:
    """An OAuth grant calling a tool it would be offered with one more scope: 403
    insufficient_scope naming that scope, so the client can ask its owner (step-up)."""
    if b"tools/call" not in body:
        return
    try:
        message = json.loads(body)
    except ValueError:
        return
    if not isinstance(message, dict) or message.get("method") != "tools/call":
        return
    params = message.get("params")
    name = params.get("name") if isinstance(params, dict) else None
    if not isinstance(name, str):
        return
    tool = TOOLS_BY_NAME.get(name)
    settings = environment.settings
    if tool is None or tool.available_to(caller, settings):
        return
    if caller.agent_id is not None and tool.scope not in AGENT_KEY_SCOPES:
        return  # no consent could give an agent's grant this scope
    widened = replace(caller, scopes=caller.scopes | {tool.scope.value})
    if tool.available_to(widened, settings):
        raise InsufficientScope(tool.scope.value, tool.name)


async def _body(receive: Receive) -> bytes:
    """The request's body, read whole (MCP messages are small; the limit says how small)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > mcp_request_bytes_max:
            raise PayloadTooLarge(f"An MCP message is at most {mcp_request_bytes_max} bytes")
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _initializes(body: bytes) -> bool:
    if b"initialize" not in body:  # most messages: no second parse
        return False
    try:
        message = json.loads(body)
    except ValueError:
        return False
    messages = message if isinstance(message, list) else [message]
    return any(isinstance(item, dict) and item.get("method") == "initialize" for item in messages)


def _with_session_header(send: Send, session_id: str | None) -> Send:
    if session_id is None:
        return send
    header = (SESSION_HEADER.encode(), session_id.encode())

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = [item for item in message.get("headers", []) if item[0] != header[0]]
            message = {**message, "headers": [*headers, header]}
        await send(message)

    return sending


async def _send_error(send: Send, error: CorridorError) -> None:
    body = render_error(error)
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        *((name.lower().encode(), value.encode()) for name, value in (error.headers or {}).items()),
    ]
    await send({"type": "http.response.start", "status": error.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
