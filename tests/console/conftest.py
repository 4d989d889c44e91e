"""Fixtures of the console tests: an owner whose agent has parked payments, and a
platform tenant whose transfers wait in review."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tests.agents.conftest import Owner, make_owner


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
