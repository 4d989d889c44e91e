"""The MCP server: the tool registry over Streamable HTTP at /mcp and over stdio."""
