"""The input schema the MCP server gives the SDK for its `Mcp-Param-*` header check."""

from __future__ import annotations

import pytest
from mcp.shared.inbound import validate_mcp_param_headers, x_mcp_header_map

from corridor.mcp.server import tool_input_schema
from corridor.tools.registry import TOOLS


@pytest.mark.parametrize("tool", TOOLS, ids=lambda tool: tool.name)
def test_the_lookup_answers_what_the_tools_schema_would_validate(tool) -> None:
    """None (nothing to validate) exactly when the tool declares no header: then the SDK's
    check of the full schema passes any headers, as the lookup's None does."""
    schema = tool.input_schema()
    given = tool_input_schema(tool.name)
    if x_mcp_header_map(schema):
        assert given == schema
        return
    assert given is None
    stray = {"mcp-param-accountid": "acc_1", "mcp-param-amount": "10.00"}
    assert validate_mcp_param_headers(schema, {"accountId": "acc_2"}, stray) is None


def test_an_unknown_tool_has_no_schema() -> None:
    assert tool_input_schema("no_such_tool") is None
