"""Fixtures of the accounts tests: an ACTIVE customer with its balance accounts."""

from __future__ import annotations

from dataclasses import dataclass

import httpx
import pytest

from tests.support import active_customer


@dataclass
class FundedCustomer:
    id: str
    accounts: dict[str, str]  # currency → account id


async def customer_with_accounts(client: httpx.AsyncClient) -> FundedCustomer:
    customer = await active_customer(client)
    listed = await client.get(f"/v1/customers/{customer['id']}/accounts")
    assert listed.status_code == 200, listed.text
    return FundedCustomer(
        id=customer["id"],
        accounts={account["currency"]: account["id"] for account in listed.json()["data"]},
    )


async def fund(client: httpx.AsyncClient, account_id: str, currency: str, value: str) -> dict:
    response = await client.post(
        f"/v1/sandbox/accounts/{account_id}/fund",
        json={"amount": {"currency": currency, "value": value}},
    )
    assert response.status_code == 200, response.text
    return response.json()


@pytest.fixture
async def customer(tenant) -> FundedCustomer:
    return await customer_with_accounts(tenant.client)
