"""MCP tests: the official `mcp` client against `corridor serve` over real HTTP."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass

import httpx
import httpx2
import pytest
from mcp.client.streamable_http import streamable_http_client

from mcp import Client
from tests.conftest import BACKENDS
from tests.live_server import LiveServer, live_corridor
from tests.parties.helpers import create_account, create_counterparty
from tests.transfers.conftest import make_customer

funding_minor = 100_000_00  # $100,000.00


@pytest.fixture(scope="package", params=BACKENDS)
def live(request, tmp_path_factory) -> Iterator[LiveServer]:
    with live_corridor(request.param, tmp_path_factory.mktemp("mcp")) as server:
        yield server


@contextlib.asynccontextmanager
async def mcp_client(
    live: LiveServer, secret: str, *, headers: dict[str, str] | None = None
) -> AsyncIterator[Client]:
    """An initialized MCP session over Streamable HTTP, sending `secret` as a bearer token."""
    sent = {"Authorization": f"Bearer {secret}", **(headers or {})}
    async with (
        httpx2.AsyncClient(headers=sent, timeout=60) as http,
        Client(streamable_http_client(f"{live.base_url}/mcp", http_client=http)) as client,
    ):
        yield client


@dataclass
class Shop:
    """A funded ACTIVE customer with a payee, and an agent (limits 500/1000/10000 USD)
    whose key pays that payee."""

    rest: httpx.AsyncClient
    customer_id: str
    usd_account: str
    payee_account_id: str
    agent_id: str
    agent_secret: str

    def payment(self, amount: str, **extra) -> dict:
        return {
            "source": {"accountId": self.usd_account},
            "destination": {
                "externalAccountId": self.payee_account_id,
                "paymentRail": "ACH",
                "currency": "USD",
            },
            "amount": amount,
            "currency": "USD",
            **extra,
        }


@pytest.fixture
async def rest(live: LiveServer) -> AsyncIterator[httpx.AsyncClient]:
    headers = {"Authorization": f"Bearer {live.api_key}"}
    async with httpx.AsyncClient(base_url=live.base_url, headers=headers, timeout=60) as client:
        yield client


@pytest.fixture
async def shop(rest: httpx.AsyncClient) -> Shop:
    customer = await make_customer(rest, ("USD",))
    await customer.fund("USD", funding_minor)
    counterparty = await create_counterparty(rest, customer.id, name="Bob Builder")
    payee = await create_account(rest, {"counterpartyId": counterparty["id"]})
    agent = await rest.post(
        "/v1/agents",
        json={
            "customerId": customer.id,
            "sourceAccountId": customer.accounts["USD"],
            "name": "Invoice bot",
            "limits": {"perTransfer": "50000", "daily": "100000", "monthly": "1000000"},
            "destinationAllowlist": [{"type": "counterparty", "id": counterparty["id"]}],
        },
    )
    assert agent.status_code == 201, agent.text
    key = await rest.post(f"/v1/agents/{agent.json()['id']}/keys", json={"name": "bot"})
    assert key.status_code == 201, key.text
    return Shop(
        rest=rest,
        customer_id=customer.id,
        usd_account=customer.accounts["USD"],
        payee_account_id=payee["id"],
        agent_id=agent.json()["id"],
        agent_secret=key.json()["secret"],
    )
