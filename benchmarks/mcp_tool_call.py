"""An MCP tool call against the same REST call (issue 11): create+submit over real HTTP.

`corridor serve --no-workers --processes 1` on its own database (SQLite, and PostgreSQL
when `make bench` has one); the same payers and the same payment
(an ACH payout of $1.00 from a funded balance, submitted at once). REST: `POST
/v1/transfers` with `confirm: true` over httpx. MCP: `create_transfer` with `submit: true`
through the official `mcp` client over Streamable HTTP, one client per connection (it
negotiates the sessionless 2026-07-28 protocol, so no session row is read). Both at the
same concurrency, in one run, so the ratio is the cost of the MCP layer (JSON-RPC, the
SDK, authentication in a transaction of its own and the tool's decimal conversion) on
this machine.
"""

from __future__ import annotations

import contextlib
import tempfile
from pathlib import Path

import httpx
import httpx2
from mcp.client.streamable_http import streamable_http_client

from benchmarks.harness import Result, measure
from benchmarks.http_submit import bootstrap, start_server, transfer_bodies
from mcp import Client

PAYERS = 8


def _tool_arguments(body: dict) -> dict:
    """The REST body as create_transfer's arguments: the amount as a decimal string."""
    arguments = {key: value for key, value in body.items() if key not in {"amount", "confirm"}}
    minor = int(body["amount"]["value"])
    arguments["amount"] = f"{minor // 100}.{minor % 100:02d}"
    arguments["currency"] = body["amount"]["currency"]
    arguments["submit"] = True
    return arguments


async def run(database_url: str, *, operations: int, concurrency: int) -> tuple[Result, Result]:
    secret = await bootstrap(database_url)
    with tempfile.TemporaryDirectory() as directory:
        # One API process on either database (PostgreSQL's default is one per core): the
        # ratio is the MCP layer's cost, the same process answering both.
        server = start_server(database_url, Path(directory), extra=["--processes", "1"])
        try:
            bodies = await transfer_bodies(server.base_url, secret, PAYERS)
            await _without_confirmation(server.base_url, secret)
            rest = await _rest(server.base_url, secret, bodies, operations, concurrency)
            tool = await _mcp(server.base_url, secret, bodies, operations, concurrency)
        finally:
            server.stop()
    return rest, tool


async def _without_confirmation(base_url: str, secret: str) -> None:
    """The key's write tools run without a person (its owner's choice; keys ask by
    default): the benchmark measures the MCP layer, not a confirmation round trip."""
    headers = {"Authorization": f"Bearer {secret}"}
    async with httpx.AsyncClient(base_url=base_url, headers=headers, timeout=60) as client:
        for key in (await client.get("/v1/api-keys")).json()["data"]:
            relaxed = await client.patch(
                f"/v1/api-keys/{key['id']}", json={"toolConfirmation": "never"}
            )
            assert relaxed.status_code == 200, relaxed.text


async def _rest(
    base_url: str, secret: str, bodies: list[dict], operations: int, concurrency: int
) -> Result:
    headers = {"Authorization": f"Bearer {secret}"}
    async with httpx.AsyncClient(base_url=base_url, headers=headers, timeout=60) as client:

        async def create_and_submit(index: int) -> None:
            response = await client.post("/v1/transfers", json=bodies[index % len(bodies)])
            assert response.status_code == 201, response.text

        return await measure(
            "REST POST /v1/transfers (confirm)",
            create_and_submit,
            operations=operations,
            concurrency=concurrency,
        )


async def _mcp(
    base_url: str, secret: str, bodies: list[dict], operations: int, concurrency: int
) -> Result:
    arguments = [_tool_arguments(body) for body in bodies]
    headers = {"Authorization": f"Bearer {secret}"}
    async with contextlib.AsyncExitStack() as stack:
        http = await stack.enter_async_context(httpx2.AsyncClient(headers=headers, timeout=60))
        sessions = [
            await stack.enter_async_context(
                Client(streamable_http_client(f"{base_url}/mcp", http_client=http))
            )
            for _ in range(concurrency)
        ]
        free = list(sessions)

        async def call(index: int) -> None:
            session = free.pop()
            try:
                result = await session.call_tool(
                    "create_transfer", arguments[index % len(arguments)]
                )
            finally:
                free.append(session)
            assert not result.is_error, result.structured_content

        return await measure(
            "MCP tools/call create_transfer (submit)",
            call,
            operations=operations,
            concurrency=concurrency,
        )
