"""Helpers that make customers through the public API, shared by every domain's tests."""

from __future__ import annotations

from typing import Any

import httpx


async def accepted_terms_of_service(client: httpx.AsyncClient) -> str:
    """A fresh terms-of-service acceptance, taken through both steps; its `tos_…` id."""
    started = await client.post("/v1/terms-of-service/acceptances", json={})
    assert started.status_code == 201, started.text
    acceptance_id = started.json()["id"]
    accepted = await client.post(f"/v1/terms-of-service/acceptances/{acceptance_id}/accept")
    assert accepted.status_code == 200, accepted.text
    return acceptance_id


async def create_individual(client: httpx.AsyncClient, **overrides: Any) -> dict:
    """POST /v1/customers/individual with valid defaults; keyword arguments replace fields
    of the body (camelCase names). Returns the customer resource."""
    body: dict[str, Any] = {
        "firstName": "Ada",
        "lastName": "Lovelace",
        "email": "ada@example.com",
        "dateOfBirth": "1990-12-10",
        "phone": "+14155550100",
        "nationality": "US",
        "taxIdentificationNumber": "123456789",
        "address": {
            "addressLine1": "1 Market Street",
            "city": "San Francisco",
            "state": "CA",
            "postalCode": "94105",
            "country": "US",
        },
    }
    if "tosAcceptanceId" not in overrides:
        body["tosAcceptanceId"] = await accepted_terms_of_service(client)
    body.update(overrides)
    response = await client.post("/v1/customers/individual", json=body)
    assert response.status_code == 201, response.text
    return response.json()


async def set_verification_status(
    client: httpx.AsyncClient, customer_id: str, status: str, reason: str | None = None
) -> dict:
    """The sandbox operation that stands in for a verification decision."""
    body: dict[str, Any] = {"status": status}
    if reason is not None:
        body["reason"] = reason
    response = await client.post(
        f"/v1/sandbox/customers/{customer_id}/verification-status", json=body
    )
    assert response.status_code == 200, response.text
    return response.json()


async def activate(client: httpx.AsyncClient, customer_id: str) -> dict:
    """Make the customer ACTIVE through the sandbox; its balance accounts then exist."""
    return await set_verification_status(client, customer_id, "ACTIVE")


async def active_customer(client: httpx.AsyncClient) -> dict:
    """A new individual customer, already ACTIVE."""
    customer = await create_individual(client)
    return await activate(client, customer["id"])
