"""MCP over Streamable HTTP at /mcp with the official client: the API's credentials, the
caller's tools with annotations, decimal amounts, and REST errors as tool errors."""

from __future__ import annotations

import httpx
import pytest

from tests.live_server import LiveServer
from tests.mcp.conftest import Shop, mcp_client
from tests.tools.test_registry import AGENT_KEY_TOOLS


@pytest.mark.parametrize(
    "headers",
    [{}, {"Authorization": "Bearer sk_sandbox_wrong"}, {"Authorization": "Basic abc"}],
)
async def test_mcp_without_valid_credentials_is_401(live: LiveServer, headers) -> None:
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "probe", "version": "1"},
        },
    }
    async with httpx.AsyncClient(base_url=live.base_url) as client:
        response = await client.post(
            "/mcp",
            json=initialize,
            headers={**headers, "Accept": "application/json, text/event-stream"},
        )
    assert response.status_code == 401
    assert response.json()["code"] == "unauthorized"
    # RFC 9728 section 5.1: the challenge names the protected resource metadata.
    assert response.headers["www-authenticate"] == (
        f'Bearer resource_metadata="{live.base_url}/.well-known/oauth-protected-resource/mcp"'
    )


async def test_tools_listed_with_annotations_differ_by_key_kind(
    live: LiveServer, shop: Shop
) -> None:
    async with mcp_client(live, live.api_key) as client:
        everything = {tool.name: tool for tool in (await client.list_tools()).tools}
    async with mcp_client(live, shop.agent_secret) as client:
        agent_tools = {tool.name for tool in (await client.list_tools()).tools}
    assert agent_tools == AGENT_KEY_TOOLS
    assert {"decide_agent_payment", "list_agents", "sandbox_fund_account"} <= set(everything)
    balance = everything["get_balance"].annotations
    assert balance is not None
    assert (balance.read_only_hint, balance.destructive_hint, balance.idempotent_hint) == (
        True,
        False,
        True,
    )
    submit = everything["submit_transfer"].annotations
    assert submit is not None
    assert (submit.read_only_hint, submit.destructive_hint, submit.idempotent_hint) == (
        False,
        True,
        False,
    )
    assert everything["create_transfer"].input_schema["properties"]["amount"]["type"] == "string"


async def test_read_tool_answers_in_decimals(live: LiveServer, shop: Shop) -> None:
    async with mcp_client(live, live.api_key) as client:
        result = await client.call_tool("get_balance", {"accountId": shop.usd_account})
    assert not result.is_error
    assert result.structured_content["available"] == {"amount": "100000.00", "currency": "USD"}


async def test_agent_key_creates_and_submits_within_its_limits(
    live: LiveServer, shop: Shop
) -> None:
    async with mcp_client(live, shop.agent_secret) as client:
        result = await client.call_tool("create_transfer", shop.payment("125.50", submit=True))
    assert not result.is_error, result.structured_content
    sent = result.structured_content
    assert sent["status"] == "PENDING"
    assert sent["sourceAmount"] == {"amount": "125.50", "currency": "USD"}
    shown = await shop.rest.get(f"/v1/transfers/{sent['id']}")
    assert shown.json()["sourceAmount"]["value"] == "12550"
    assert shown.json()["agentId"] == shop.agent_id


async def test_agent_over_its_limit_gets_the_denial_with_decimals_and_hint(
    live: LiveServer, shop: Shop
) -> None:
    async with mcp_client(live, shop.agent_secret) as client:
        for _ in range(2):
            sent = await client.call_tool("create_transfer", shop.payment("450.00", submit=True))
            assert not sent.is_error, sent.structured_content
        over = await client.call_tool("create_transfer", shop.payment("450.00", submit=True))
    assert over.is_error
    body = over.structured_content
    assert body["code"] == "agent_limit_exceeded"
    assert body["denial"] == {
        "code": "daily_limit_exceeded",
        "message": body["denial"]["message"],
        "window": "day",
        "limit": "1000.00",
        "used": "900.00",
        "remaining": "100.00",
        "attemptedAmount": "450.00",
        "currency": "USD",
    }
    assert "100.00 USD remains today" in body["hint"]
    assert body["code"] in over.content[0].text


async def test_bad_arguments_are_tool_errors_naming_the_field(live: LiveServer, shop: Shop) -> None:
    async with mcp_client(live, live.api_key) as client:
        result = await client.call_tool(
            "create_transfer", {**shop.payment("1e3"), "customerId": shop.customer_id}
        )
    assert result.is_error
    assert result.structured_content["code"] == "validation_error"
    assert result.structured_content["errors"][0]["field"] == "amount"


async def test_on_behalf_of_header_binds_the_session_to_one_customer(
    live: LiveServer, shop: Shop
) -> None:
    other = await shop.rest.post(
        "/v1/customers/business", json={"legalName": "Other Ltd", "email": "o@example.com"}
    )
    assert other.status_code == 201, other.text
    headers = {"X-Corridor-On-Behalf-Of": shop.customer_id}
    async with mcp_client(live, live.api_key, headers=headers) as client:
        customers = await client.call_tool("list_customers", {})
        hidden = await client.call_tool("get_customer", {"customerId": other.json()["id"]})
    assert [item["id"] for item in customers.structured_content["data"]] == [shop.customer_id]
    assert hidden.is_error
    assert hidden.structured_content["code"] == "not_found"


def _modern_call(name: str, arguments: dict, number: int) -> dict:
    """tools/call as the sessionless 2026-07-28 protocol sends it (the envelope in _meta)."""
    return {
        "jsonrpc": "2.0",
        "id": number,
        "method": "tools/call",
        "params": {
            "name": name,
            "arguments": arguments,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        },
    }


async def test_sessionless_tool_calls_with_param_headers_the_tool_does_not_declare(
    live: LiveServer, shop: Shop
) -> None:
    """The SDK checks `Mcp-Param-*` headers against the tool's declared ones (none of
    Corridor's tools declares any): a call carrying one is served like the same call
    without it, and a tool the key is not offered is refused by name either way."""
    headers = {
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
    }
    async with httpx.AsyncClient(base_url=live.base_url, timeout=60) as client:
        answers = []
        for number, extra in enumerate(({}, {"Mcp-Param-AccountId": shop.usd_account})):
            response = await client.post(
                "/mcp",
                json=_modern_call("get_balance", {"accountId": shop.usd_account}, number),
                headers={
                    **headers,
                    **extra,
                    "Mcp-Name": "get_balance",
                    "Authorization": f"Bearer {live.api_key}",
                },
            )
            assert response.status_code == 200, response.text
            answers.append(response.json()["result"])
        refused = await client.post(
            "/mcp",
            json=_modern_call("sandbox_fund_account", {"accountId": shop.usd_account}, 3),
            headers={
                **headers,
                "Mcp-Name": "sandbox_fund_account",
                "Mcp-Param-AccountId": shop.usd_account,
                "Authorization": f"Bearer {shop.agent_secret}",
            },
        )
    assert [answer.get("isError", False) for answer in answers] == [False, False]
    shown = [
        {key: value for key, value in answer["structuredContent"].items() if key != "asOf"}
        for answer in answers
    ]
    assert shown[0] == shown[1]
    assert answers[1]["structuredContent"]["available"]["amount"] == "100000.00"
    assert refused.status_code == 200, refused.text
    result = refused.json()["result"]
    assert result["isError"] is True
    assert "sandbox_fund_account" in result["structuredContent"]["message"]
