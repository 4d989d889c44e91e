"""One registry of tools over the services, used by the assistant and the MCP server."""
