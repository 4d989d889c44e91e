"""Helpers of the fixed route tests: routes and deposits made over HTTP."""

from __future__ import annotations

from typing import Any

import httpx

from tests.parties.helpers import EVM_ADDRESS

BANK_PATH = "/v1/fixed-routes/virtual-bank-account"
WALLET_PATH = "/v1/fixed-routes/virtual-wallet"


def to_usdc_on_base(customer_id: str, **overrides: Any) -> dict[str, Any]:
    """USD by wire in, USDC out on Base to an address."""
    return {
        "customerId": customer_id,
        "source": {"currency": "USD", "paymentRail": "WIRE"},
        "destination": {"toAddress": EVM_ADDRESS, "currency": "USDC", "paymentRail": "BASE"},
        **overrides,
    }


async def create_route(
    client: httpx.AsyncClient, path: str, body: dict[str, Any], *, status: int = 201
) -> dict[str, Any]:
    response = await client.post(path, json=body)
    assert response.status_code == status, response.text
    return response.json()


async def patch_route(client: httpx.AsyncClient, route_id: str, body: dict[str, Any]) -> dict:
    response = await client.patch(f"/v1/fixed-routes/{route_id}", json=body)
    assert response.status_code == 200, response.text
    return response.json()


async def deposit(client: httpx.AsyncClient, **body: Any) -> dict[str, Any]:
    response = await client.post("/v1/sandbox/deposits", json=body)
    assert response.status_code == 201, response.text
    return response.json()
