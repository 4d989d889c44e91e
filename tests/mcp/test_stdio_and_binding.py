"""`corridor mcp` over stdio for desktop clients, and platform sessions bound to a
customer inside an MCP session (spec 5.7), both driven by the official `mcp` client."""

from __future__ import annotations

import os
import subprocess
import sys

from corridor.mcp import sessions
from corridor.mcp.server import build_server
from mcp import Client, StdioServerParameters
from tests.auth.credentials import bearer, console_token, key_secret
from tests.tools.support import caller_of


def _stdio(database_url: str, api_key: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "corridor.cli", "mcp"],
        env={
            **os.environ,
            "CORRIDOR_DATABASE_URL": database_url,
            "CORRIDOR_API_KEY": api_key,
            "CORRIDOR_LOG_LEVEL": "WARNING",
        },
    )


async def test_corridor_mcp_serves_the_keys_tools_over_stdio(database_url, tenant) -> None:
    restricted = await key_secret(tenant, ["customers:read"])
    async with Client(_stdio(database_url, restricted)) as client:
        tools = {tool.name for tool in (await client.list_tools()).tools}
        listed = await client.call_tool("list_customers", {})
        refused = await client.call_tool("list_transfers", {})
    assert tools == {"list_customers", "get_customer", "list_external_accounts"}
    assert not listed.is_error
    assert listed.structured_content["data"] == []
    assert refused.is_error
    assert refused.structured_content["code"] == "forbidden"


def test_corridor_mcp_refuses_to_start_without_a_valid_key(database_url) -> None:
    environment = {**os.environ, "CORRIDOR_DATABASE_URL": database_url}
    for key, code in [("", 2), ("sk_sandbox_not_a_key", 1)]:
        finished = subprocess.run(
            [sys.executable, "-m", "corridor.cli", "mcp"],
            env={**environment, "CORRIDOR_API_KEY": key},
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=60,
        )
        assert finished.returncode == code, finished.stderr
        assert "CORRIDOR_API_KEY" in finished.stderr or "credentials" in finished.stderr


async def test_platform_session_binds_to_the_business_customer_it_creates(app, make_tenant) -> None:
    platform = await make_tenant(kind="PLATFORM")
    # Its owner lets its write tools run without a person (issue 26: keys ask by default).
    owner = bearer(await console_token(platform))
    [key] = (await platform.client.get("/v1/api-keys", headers=owner)).json()["data"]
    relaxed = await platform.client.patch(
        f"/v1/api-keys/{key['id']}", json={"toolConfirmation": "never"}, headers=owner
    )
    assert relaxed.status_code == 200, relaxed.text
    caller = await caller_of(app, platform.secret)
    environment = app.state.tools
    now = environment.clock.now()
    async with environment.database.session() as session, session.begin():
        first = (await sessions.open_session(session, caller=caller, now=now)).id
        second = (await sessions.open_session(session, caller=caller, now=now)).id
    current = {"id": first}

    async def in_session(_context):
        async with environment.database.session(write=False) as session:
            row = await sessions.find_session(
                session, caller=caller, session_id=current["id"], now=now
            )
        return sessions.caller_in(caller, row)

    server = build_server(
        environment,
        caller_of=in_session,
        session_of=lambda _context: current["id"],
        principal_of=lambda _context: caller.actor_id,
    )
    async with Client(server) as client:
        before = await client.call_tool("list_transfers", {})
        created = await client.call_tool(
            "create_business_customer",
            {"legalName": "Analytical Engines Ltd", "email": "finance@engines.example"},
        )
        after = await client.call_tool("list_transfers", {})
        customers = await client.call_tool("list_customers", {})
    assert before.is_error
    assert before.structured_content["code"] == "customer_binding_required"
    assert not created.is_error, created.structured_content
    assert not after.is_error, after.structured_content
    assert [customer["id"] for customer in customers.structured_content["data"]] == [
        created.structured_content["id"]
    ]
    # Another MCP session of the same key is not bound.
    current["id"] = second
    async with Client(server) as client:
        assert (await client.call_tool("list_transfers", {})).structured_content[
            "code"
        ] == "customer_binding_required"
