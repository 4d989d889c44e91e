"""`corridor mcp`: the MCP tools over stdio for a desktop MCP client."""

from __future__ import annotations

import os

import typer

from corridor.cli.base import app
from corridor.cli.context import run
from corridor.cli.output import errors
from corridor.config import get_settings


@app.command()
def mcp() -> None:
    """Serve the MCP tools over stdio for a desktop MCP client, acting as the API key in
    CORRIDOR_API_KEY (the same tools and rules as /mcp over HTTP)."""
    from corridor.app import transfer_plugins
    from corridor.kit.clock import SystemClock
    from corridor.kit.db import Database
    from corridor.kit.errors import CorridorError
    from corridor.kit.logging import configure_logging
    from corridor.mcp.stdio import serve_stdio
    from corridor.tools.registry import ToolEnvironment

    api_key = os.environ.get("CORRIDOR_API_KEY", "")
    if not api_key:
        errors.print("Set CORRIDOR_API_KEY to the API key the tools act as.")
        raise typer.Exit(2)
    settings = get_settings()
    configure_logging(log_format=settings.log_format, level="WARNING")

    async def main() -> None:
        database = Database(settings.database_url)
        environment = ToolEnvironment(database, SystemClock(), settings, transfer_plugins())
        try:
            await serve_stdio(environment, api_key)
        finally:
            await database.dispose()

    try:
        run(main())
    except CorridorError as error:
        errors.print(f"corridor mcp: {error.message}")
        raise typer.Exit(1) from None
