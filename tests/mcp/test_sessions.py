"""MCP sessions are database rows: a platform session bound to the business customer it
created in an MCP session (spec 5.7) stays bound when the session is continued by
another API process, or by a server started after the first one stopped."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import httpx2
from mcp.client.streamable_http import streamable_http_client

from corridor.kit.clock import SystemClock
from corridor.kit.db import Database
from corridor.organizations import service as organizations
from mcp import Client
from tests.live_server import LiveServer, another_server

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "probe", "version": "1"},
    },
}
ACCEPT = {"Accept": "application/json, text/event-stream"}


async def _platform_key(live: LiveServer) -> str:
    """A platform organization's unrestricted key on the live server's database."""
    database = Database(live.database_url)
    try:
        async with database.session() as session, session.begin():
            made = await organizations.bootstrap_organization(
                session, name="Platform", key_environment="sandbox", now=SystemClock().now()
            )
            made.organization.kind = "PLATFORM"
            # Its owner lets its write tools run without a person (keys ask by default).
            made.key.tool_confirmation = "never"
        return made.secret
    finally:
        await database.dispose()


@contextlib.asynccontextmanager
async def _session(
    server: LiveServer, secret: str, *, session_id: str | None = None
) -> AsyncIterator[tuple[Client, list[str]]]:
    """The official client, continuing `session_id` when given; it leaves the session open
    when it closes (another process continues it), and lists the session ids it was sent."""
    seen: list[str] = []

    async def remember(response: httpx2.Response) -> None:
        if "mcp-session-id" in response.headers:
            seen.append(response.headers["mcp-session-id"])

    headers = {"Authorization": f"Bearer {secret}"}
    if session_id is not None:
        headers["Mcp-Session-Id"] = session_id
    async with (
        httpx2.AsyncClient(
            headers=headers, timeout=60, event_hooks={"response": [remember]}
        ) as http,
        Client(
            streamable_http_client(
                f"{server.base_url}/mcp", http_client=http, terminate_on_close=False
            ),
            # The initialize handshake (protocol versions up to 2025-11-25) has sessions;
            # the sessionless 2026-07-28 protocol binds with X-Corridor-On-Behalf-Of.
            mode="legacy",
        ) as client,
    ):
        yield client, seen


async def _binding_code(client: Client) -> str | None:
    result = await client.call_tool("list_transfers", {})
    return result.structured_content.get("code") if result.is_error else None


async def test_a_binding_made_in_one_process_holds_in_another_and_after_a_restart(
    live: LiveServer, tmp_path: Path
) -> None:
    secret = await _platform_key(live)
    async with _session(live, secret) as (client, seen):
        assert await _binding_code(client) == "customer_binding_required"
        created = await client.call_tool(
            "create_business_customer",
            {"legalName": "Analytical Engines Ltd", "email": "finance@engines.example"},
        )
        assert not created.is_error, created.structured_content
        assert await _binding_code(client) is None, (seen, live.log_tail())
    session_id = seen[0]
    assert session_id.startswith("mcps_") and set(seen) == {session_id}
    customer_id = created.structured_content["id"]

    with another_server(live, tmp_path) as replica:
        async with _session(replica, secret, session_id=session_id) as (client, seen):
            assert await _binding_code(client) is None
            listed = await client.call_tool("list_customers", {})
        assert set(seen) == {session_id}
        assert [item["id"] for item in listed.structured_content["data"]] == [customer_id]
    # The replica is gone; a server that starts now continues the session too.
    with another_server(live, tmp_path) as restarted:
        async with _session(restarted, secret, session_id=session_id) as (client, _):
            assert await _binding_code(client) is None
        # A new MCP session of the same key starts unbound.
        async with _session(restarted, secret) as (client, seen):
            assert await _binding_code(client) == "customer_binding_required"
        assert seen and seen[0] != session_id


async def test_a_session_is_its_credentials_and_ends_on_delete(live: LiveServer) -> None:
    secret = await _platform_key(live)
    async with httpx.AsyncClient(base_url=live.base_url, headers=ACCEPT, timeout=60) as http:
        opened = await http.post(
            "/mcp", json=INITIALIZE, headers={"Authorization": f"Bearer {secret}"}
        )
        assert opened.status_code == 200, opened.text
        session_id = opened.headers["mcp-session-id"]
        mine = {"Authorization": f"Bearer {secret}", "Mcp-Session-Id": session_id}
        theirs = {"Authorization": f"Bearer {live.api_key}", "Mcp-Session-Id": session_id}
        listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}

        listed = await http.post("/mcp", json=listing, headers=mine)
        assert listed.status_code == 200, listed.text
        assert listed.headers["mcp-session-id"] == session_id
        assert {tool["name"] for tool in listed.json()["result"]["tools"]} >= {
            "create_business_customer"
        }
        refused = await http.post("/mcp", json=listing, headers=theirs)
        assert (refused.status_code, refused.json()["code"]) == (404, "mcp_session_not_found")
        unknown = {**mine, "Mcp-Session-Id": "mcps_01jd3x0p6x9e3k2v1m8q4r7s5t"}
        assert (await http.post("/mcp", json=listing, headers=unknown)).status_code == 404
        stream = await http.get("/mcp", headers=mine)
        assert (stream.status_code, stream.headers["allow"]) == (405, "POST, DELETE")

        assert (await http.delete("/mcp", headers=theirs)).status_code == 404
        assert (await http.delete("/mcp", headers=mine)).status_code == 204
        ended = await http.post("/mcp", json=listing, headers=mine)
        assert (ended.status_code, ended.json()["code"]) == (404, "mcp_session_not_found")
        assert json.loads(ended.text)["message"].startswith("No such MCP session")
