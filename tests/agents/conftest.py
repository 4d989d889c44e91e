"""Fixtures of the agent tests: an owner (a tenant with a funded ACTIVE customer and a
payee), agents and their keys made over HTTP, and agent submits as a client makes them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from corridor.models.event import Event
from tests.auth.credentials import bearer
from tests.conftest import Tenant, client_for
from tests.parties.helpers import create_account, create_counterparty
from tests.transfers.conftest import Customer, amount, make_customer

funding_minor = 100_000_000  # $1,000,000.00: agents run out of limits, never of money


@dataclass
class Owner:
    """A tenant whose ACTIVE customer has a funded USD balance and one payee (a
    counterparty with a US bank account)."""

    app: Any
    tenant: Tenant
    customer: Customer
    counterparty_id: str
    payee_account_id: str

    @property
    def client(self) -> httpx.AsyncClient:
        return self.tenant.client

    @property
    def usd_account(self) -> str:
        return self.customer.accounts["USD"]

    async def create_agent(self, **overrides: Any) -> dict:
        body: dict[str, Any] = {
            "customerId": self.customer.id,
            "sourceAccountId": self.usd_account,
            "name": "Invoice bot",
            "limits": {"perTransfer": "50000", "daily": "100000", "monthly": "1000000"},
            "destinationAllowlist": [{"type": "counterparty", "id": self.counterparty_id}],
        }
        body.update(overrides)
        response = await self.client.post("/v1/agents", json=body)
        assert response.status_code == 201, response.text
        return response.json()

    async def agent_key(self, agent_id: str) -> dict:
        response = await self.client.post(f"/v1/agents/{agent_id}/keys", json={"name": "bot key"})
        assert response.status_code == 201, response.text
        return response.json()

    async def agent_client(self, agent_id: str) -> httpx.AsyncClient:
        return client_for(self.app, bearer((await self.agent_key(agent_id))["secret"]))

    def payment(self, value: int, **overrides: Any) -> dict:
        """A transfer body paying the payee from the funding account by ACH."""
        return {
            "source": {"accountId": self.usd_account},
            "destination": {
                "externalAccountId": self.payee_account_id,
                "paymentRail": "ACH",
                "currency": "USD",
            },
            "amount": amount("USD", value),
            **overrides,
        }

    async def events(self, event_type: str) -> list[Event]:
        async with self.app.state.database.session(write=False) as session:
            found = await session.execute(
                select(Event)
                .where(
                    Event.organization_id == self.tenant.organization_id, Event.type == event_type
                )
                .order_by(Event.id)
            )
            return list(found.scalars())


async def make_owner(app, tenant: Tenant) -> Owner:
    customer = await make_customer(tenant.client, ("USD", "USDC"))
    await customer.fund("USD", funding_minor)
    counterparty = await create_counterparty(tenant.client, customer.id)
    payee = await create_account(tenant.client, {"counterpartyId": counterparty["id"]})
    return Owner(
        app=app,
        tenant=tenant,
        customer=customer,
        counterparty_id=counterparty["id"],
        payee_account_id=payee["id"],
    )


@pytest.fixture
async def owner(app, tenant, clock) -> Owner:
    # A Wednesday in mid-month, far from any window edge, unless a test moves the clock.
    clock.set(datetime(2026, 11, 18, 12, 0, tzinfo=UTC))
    return await make_owner(app, tenant)


async def submit_new(client: httpx.AsyncClient, body: dict) -> httpx.Response:
    """Create a draft and submit it; the submit's answer."""
    created = await client.post("/v1/transfers", json=body)
    assert created.status_code == 201, created.text
    return await client.post(f"/v1/transfers/{created.json()['id']}/submit")


async def pay(client: httpx.AsyncClient, body: dict) -> dict:
    """A submit that must succeed."""
    response = await submit_new(client, body)
    assert response.status_code == 200, response.text
    return response.json()
