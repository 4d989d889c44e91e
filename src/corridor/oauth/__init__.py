"""OAuth 2.1 for MCP clients: Corridor as the authorization server of its own /mcp (docs/mcp.md)."""
