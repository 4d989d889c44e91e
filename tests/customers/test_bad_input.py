"""Whatever a client sends to a customers path, the answer is never a server error."""

from __future__ import annotations

import json

import pytest
from fastapi.routing import APIRoute

from corridor.customers import endpoints
from corridor.customers.endpoints import onboarding_steps as onboarding_endpoints
from corridor.web.middleware import url_bytes_max
from tests.conftest import assert_error
from tests.customers.helpers import add_entity, create_business
from tests.support import accepted_terms_of_service, create_individual

NUL = "\u0000"

GARBAGE_BODIES = [
    b"",
    b"{",
    b"[]",
    b"null",
    b'"text"',
    b"{}",
    json.dumps({"unknown": True}).encode(),
    json.dumps({"email": NUL, "firstName": 1, "status": "ACTIVE", "data": {"a": NUL}}).encode(),
    json.dumps({"data": {"business": {"sourceOfFunds": NUL}}, "roles": [NUL]}).encode(),
    json.dumps({"metadata": {NUL: "v"}, "address": {"addressLine1": NUL}}).encode(),
    ("[" * 100 + "]" * 100).encode(),
    json.dumps({"data": {"a" * 10_000: "b" * 100_000}}).encode(),
]


async def _operations(client) -> list[tuple[str, str]]:
    """Every (method, path) this domain's router serves."""
    del client
    routes = [*endpoints.router.routes, *onboarding_endpoints.router.routes]
    return [
        (method, route.path if route.path.startswith("/v1/") else f"/v1{route.path}")
        for route in routes
        if isinstance(route, APIRoute)
        for method in sorted(route.methods)
    ]


def _fill(path: str, ids: dict[str, str]) -> str:
    for name, value in ids.items():
        path = path.replace("{" + name + "}", value)
    return path


async def _real_ids(client) -> dict[str, str]:
    business = await create_business(client)
    entity = await add_entity(client, business["id"])
    acceptance_id = await accepted_terms_of_service(client)
    started = await client.post(f"/v1/customers/{business['id']}/verification-sessions")
    return {
        "customer_id": business["id"],
        "entity_id": entity["id"],
        "acceptance_id": acceptance_id,
        "session_id": started.json()["id"],
    }


async def test_every_operation_is_documented_with_summary_and_request_examples(tenant):
    spec = (await tenant.client.get("/openapi.json")).json()
    operations = await _operations(tenant.client)
    assert len(operations) >= 25
    schemas = spec["components"]["schemas"]
    for method, path in operations:
        operation = spec["paths"][path][method.lower()]
        assert operation.get("summary"), (method, path)
        body = operation.get("requestBody")
        if body is not None:
            declared = body["content"]["application/json"]["schema"]
            # An optional body is declared as anyOf [the model, null]: check the model.
            options = declared.get("anyOf", [declared])
            reference = next(option["$ref"] for option in options if "$ref" in option)
            schema = schemas[reference.rsplit("/", 1)[1]]
            assert schema.get("examples"), (method, path)


@pytest.mark.parametrize(
    "identifier", ["x", "cus_%00", "cus_" + "0" * 26 + "%00", "a" * 5000, "%00", "ae_%2e%2e"]
)
async def test_strange_ids_are_not_found_on_every_operation(tenant, identifier):
    ids = dict.fromkeys(("customer_id", "entity_id", "acceptance_id", "session_id"), identifier)
    for method, path in await _operations(tenant.client):
        if "{" not in path:
            continue
        url = _fill(path, ids)
        response = await tenant.client.request(method, url, json={})
        if len(url.encode()) > url_bytes_max:
            assert_error(response, 414, "uri_too_long")
            continue
        # 422 where the empty body itself is refused before the id is looked at.
        assert response.status_code in (404, 422), (method, path, response.text)


async def test_garbage_bodies_never_cause_a_server_error(tenant):
    ids = await _real_ids(tenant.client)
    for method, path in await _operations(tenant.client):
        for body in GARBAGE_BODIES:
            response = await tenant.client.request(
                method,
                _fill(path, ids),
                content=body,
                headers={"Content-Type": "application/json"},
            )
            assert response.status_code < 500, (method, path, body[:80], response.text)


async def test_nul_characters_are_refused_as_validation_errors(tenant):
    body = assert_error(
        await tenant.client.post(
            "/v1/customers/individual",
            json={"firstName": f"A{NUL}", "lastName": "B", "email": "a@example.com"},
        ),
        422,
        "validation_error",
    )
    assert body["errors"][0]["field"] == "firstName"
    body = assert_error(
        await tenant.client.post(
            "/v1/customers/individual",
            json={
                "firstName": "A",
                "lastName": "B",
                "email": "a@example.com",
                "address": {"addressLine1": NUL, "city": "Paris", "country": "FR"},
            },
        ),
        422,
        "validation_error",
    )
    assert body["errors"][0]["field"] == "address.addressLine1"
    assert_error(await tenant.client.get("/v1/customers?email=a%00b"), 422, "validation_error")


async def test_nul_characters_in_rfi_answers_are_refused(tenant):
    customer = await create_individual(tenant.client)
    await tenant.client.post(
        f"/v1/sandbox/customers/{customer['id']}/verification-status",
        json={"status": "RFI_PENDING"},
    )
    response = await tenant.client.patch(
        f"/v1/customers/{customer['id']}/pending-enhanced-diligence-rfi/progress",
        json={"data": {"personal.occupation": f"x{NUL}"}},
    )
    assert_error(response, 422, "validation_error")
