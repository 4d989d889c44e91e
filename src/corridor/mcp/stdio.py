"""`corridor mcp`: the same tools over stdio for desktop MCP clients, acting as the key
in CORRIDOR_API_KEY (checked again on every message, so a revoked key stops at once)."""

from __future__ import annotations

from typing import Any

from mcp.server.context import ServerRequestContext
from mcp.server.stdio import stdio_server

from corridor.auth import service as auth
from corridor.auth.callers import Caller
from corridor.mcp.server import build_server
from corridor.tools.registry import ToolEnvironment


async def authenticate_key(environment: ToolEnvironment, api_key: str) -> Caller:
    async with environment.database.session(write=False) as session:
        return await auth.authenticate(
            session,
            credential=api_key,
            key_environment=environment.settings.key_environment,
            now=environment.clock.now(),
        )


async def serve_stdio(environment: ToolEnvironment, api_key: str) -> None:
    """Serve until the client closes stdin. Refuses to start with a key that does not
    authenticate (the error says so on stderr)."""
    await authenticate_key(environment, api_key)

    async def caller_of(_context: ServerRequestContext[Any, Any]) -> Caller:
        return await authenticate_key(environment, api_key)

    server = build_server(environment, caller_of=caller_of, session_of=lambda _context: None)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
