"""Write tool calls waiting for a person (API.md 9): one record kind (`tcf_…`) for the MCP
server's confirmations and the assistant's confirmation cards."""
