"""Helpers that mint credentials through the public API: restricted keys, console sessions."""

from __future__ import annotations

from collections.abc import Iterable

from tests.conftest import Tenant


async def key_secret(tenant: Tenant, scopes: Iterable[str], *, name: str = "test key") -> str:
    """A new key of the tenant's organization with exactly these scopes; its secret."""
    response = await tenant.client.post("/v1/api-keys", json={"name": name, "scopes": list(scopes)})
    assert response.status_code == 201, response.text
    return response.json()["secret"]


async def console_token(tenant: Tenant) -> str:
    """A console session token of the tenant's console user."""
    response = await tenant.client.post(
        "/v1/console/sessions",
        json={"email": tenant.console_email, "password": tenant.console_password},
    )
    assert response.status_code == 201, response.text
    return response.json()["token"]


def bearer(secret: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}
