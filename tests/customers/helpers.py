"""Helpers of the customers tests: business customers, restricted keys, the outbox."""

from __future__ import annotations

from typing import Any

import httpx
from sqlalchemy import select

from corridor.models.event import Event
from tests.conftest import client_for
from tests.support import accepted_terms_of_service

ADDRESS = {
    "addressLine1": "1 Market Street",
    "city": "San Francisco",
    "state": "CA",
    "postalCode": "94105",
    "country": "US",
}
OWNER = {
    "type": "INDIVIDUAL",
    "roles": ["BENEFICIAL_OWNER"],
    "ownershipPercentage": "60",
    "firstName": "Charles",
    "lastName": "Babbage",
}


async def create_business(client: httpx.AsyncClient, **overrides: Any) -> dict:
    body: dict[str, Any] = {
        "legalName": "Analytical Engines Ltd",
        "email": "finance@engines.example",
        "registrationNumber": "C1234567",
        "incorporationCountry": "US",
        "address": ADDRESS,
        "website": "https://engines.example",
    }
    if "tosAcceptanceId" not in overrides:
        body["tosAcceptanceId"] = await accepted_terms_of_service(client)
    body.update(overrides)
    response = await client.post("/v1/customers/business", json=body)
    assert response.status_code == 201, response.text
    return response.json()


async def add_entity(client: httpx.AsyncClient, customer_id: str, **overrides: Any) -> dict:
    response = await client.post(
        f"/v1/customers/{customer_id}/associated-entities", json={**OWNER, **overrides}
    )
    assert response.status_code == 201, response.text
    return response.json()


async def restricted_client(app, tenant, scopes: list[str]) -> httpx.AsyncClient:
    """A client holding a new key of the tenant with only these scopes; close it after use."""
    response = await tenant.client.post("/v1/api-keys", json={"name": "narrow", "scopes": scopes})
    assert response.status_code == 201, response.text
    return client_for(app, {"Authorization": f"Bearer {response.json()['secret']}"})


async def events_of(app, organization_id: str, event_type: str | None = None) -> list[Event]:
    """The tenant's events in the outbox, oldest first."""
    statement = select(Event).where(Event.organization_id == organization_id)
    if event_type is not None:
        statement = statement.where(Event.type == event_type)
    async with app.state.database.session(write=False) as session:
        return list((await session.execute(statement.order_by(Event.id))).scalars())
