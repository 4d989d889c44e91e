"""MCP's errors beyond the API's own."""

from __future__ import annotations

from corridor.kit.errors import CorridorError


class McpSessionNotFound(CorridorError):
    """Unknown, lapsed, ended, or opened by another credential: the client starts a new
    session (Streamable HTTP answers an unknown Mcp-Session-Id with 404)."""

    status, code = 404, "mcp_session_not_found"

    def __init__(self) -> None:
        super().__init__("No such MCP session for this credential; initialize a new one")


class McpMethodNotAllowed(CorridorError):
    """GET /mcp would open a stream for server-initiated messages; this server sends none."""

    status, code = 405, "method_not_allowed"

    def __init__(self) -> None:
        super().__init__(
            "This MCP server sends no server-initiated messages: POST requests, DELETE to end",
            headers={"Allow": "POST, DELETE"},
        )
