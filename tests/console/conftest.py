"""Fixtures of the console tests: an owner whose agent has parked payments, and a
platform tenant whose transfers wait in review."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest
import uvicorn

from tests.agents.conftest import Owner, make_owner
from tests.live_server import free_port
from tests.programs import require


@pytest.fixture
async def owner(app, tenant, clock) -> Owner:
    # Mid-month, mid-week: far from the spend windows' edges.
    clock.set(datetime(2026, 11, 18, 12, 0, tzinfo=UTC))
    return await make_owner(app, tenant)


async def parked(owner: Owner, value: int = 60_000, **agent_fields) -> dict:
    """A draft an approval agent submitted over its per-transfer limit of 500.00 USD."""
    agent = await owner.create_agent(overLimitAction="REQUEST_APPROVAL", **agent_fields)
    async with await owner.agent_client(agent["id"]) as client:
        draft = (await client.post("/v1/transfers", json=owner.payment(value))).json()
        response = await client.post(f"/v1/transfers/{draft['id']}/submit")
        assert response.status_code == 403, response.text
    return draft


server_start_s_max = 30


@pytest.fixture
async def base_url(app) -> AsyncIterator[str]:
    """The test app served over HTTP on a free port, in this event loop."""
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, lifespan="off", log_level="warning")
    )
    task = asyncio.create_task(server.serve())
    for _ in range(server_start_s_max * 20):
        if server.started:
            break
        await asyncio.sleep(0.05)
    assert server.started, "uvicorn did not start"
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task


@pytest.fixture
async def browser() -> AsyncIterator:
    """Debian's Chromium, headless (skips or fails the test where it is missing:
    tests/programs.py)."""
    from playwright import async_api

    chromium = require("chromium")["chromium"]
    async with async_api.async_playwright() as playwright:
        launched = await playwright.chromium.launch(
            executable_path=chromium, headless=True, args=["--no-sandbox"]
        )
        try:
            yield launched
        finally:
            await launched.close()
