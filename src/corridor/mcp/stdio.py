"""`corridor mcp`: the same tools over stdio for desktop MCP clients, acting as the key
in CORRIDOR_API_KEY (checked again on every message, so a revoked key stops at once).
The process is one MCP session, a row like an HTTP client's (sessions.py)."""

from __future__ import annotations

from typing import Any

from mcp.server.context import ServerRequestContext
from mcp.server.stdio import stdio_server

from corridor.auth import service as auth
from corridor.auth.callers import Caller
from corridor.mcp import sessions
from corridor.mcp.server import build_server
from corridor.tools.registry import ToolEnvironment


async def authenticate_key(
    environment: ToolEnvironment, api_key: str, *, session_id: str | None = None
) -> Caller:
    """The key's caller, in the MCP session `session_id` when given."""
    now = environment.clock.now()
    async with environment.database.session(write=False) as session:
        caller = await auth.authenticate(
            session,
            credential=api_key,
            key_environment=environment.settings.key_environment,
            now=now,
        )
        if session_id is None:
            return caller
        row = await sessions.find_session(session, caller=caller, session_id=session_id, now=now)
        return sessions.caller_in(caller, row)


async def serve_stdio(environment: ToolEnvironment, api_key: str) -> None:
    """Serve until the client closes stdin. Refuses to start with a key that does not
    authenticate (the error says so on stderr)."""
    caller = await authenticate_key(environment, api_key)
    async with environment.database.session() as session, session.begin():
        opened = await sessions.open_session(session, caller=caller, now=environment.clock.now())
        session_id, renewed_at = opened.id, opened.last_used_at

    async def caller_of(_context: ServerRequestContext[Any, Any]) -> Caller:
        nonlocal renewed_at
        now = environment.clock.now()
        if (now - renewed_at).total_seconds() >= sessions.session_renew_interval_s:
            await sessions.renew(environment.database, session_id=session_id, now=now)
            renewed_at = now
        return await authenticate_key(environment, api_key, session_id=session_id)

    server = build_server(
        environment,
        caller_of=caller_of,
        session_of=lambda _context: session_id,
        principal_of=lambda _context: caller.actor_id,
    )
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
