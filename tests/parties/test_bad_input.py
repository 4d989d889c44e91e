"""Whatever a client sends to a parties path, the answer is a 4xx in the error shape."""

from __future__ import annotations

import json

import pytest
from fastapi.routing import APIRoute

from corridor.parties import endpoints
from tests.conftest import assert_error
from tests.parties.helpers import create_account, create_counterparty, create_wallet
from tests.support import create_individual

NUL = "\u0000"

GARBAGE_BODIES = [
    b"",
    b"{",
    b"[]",
    b"null",
    b'"text"',
    b"{}",
    b"\xff\xfe",
    json.dumps({"unknown": True}).encode(),
    json.dumps({"customerId": 1, "name": ["x"], "address": "street", "chain": {}}).encode(),
    json.dumps({"customerId": NUL, "address": {"addressLine1": NUL}, "iban": NUL}).encode(),
    json.dumps({"routingNumber": "\ud800", "country": "US", "label": "\ud800"}).encode(),
    ("[" * 100 + "]" * 100).encode(),
    json.dumps({"name": "a" * 100_000, "address": "b" * 100_000}).encode(),
]


def _operations() -> list[tuple[str, str]]:
    return [
        (method, route.path)
        for route in endpoints.router.routes
        if isinstance(route, APIRoute)
        for method in sorted(route.methods)
    ]


def _fill(path: str, ids: dict[str, str]) -> str:
    for name, value in ids.items():
        path = path.replace("{" + name + "}", value)
    return path


def test_the_router_serves_every_documented_operation():
    assert set(_operations()) == {
        ("POST", "/v1/counterparties"),
        ("GET", "/v1/counterparties"),
        ("GET", "/v1/counterparties/{counterparty_id}"),
        ("PATCH", "/v1/counterparties/{counterparty_id}"),
        ("DELETE", "/v1/counterparties/{counterparty_id}"),
        ("POST", "/v1/external-accounts"),
        ("GET", "/v1/external-accounts"),
        ("POST", "/v1/external-accounts/validate-bank-code"),
        ("GET", "/v1/external-accounts/{external_account_id}"),
        ("PATCH", "/v1/external-accounts/{external_account_id}"),
        ("POST", "/v1/external-accounts/{external_account_id}/close"),
        ("POST", "/v1/external-wallets"),
        ("GET", "/v1/external-wallets"),
        ("GET", "/v1/external-wallets/{external_wallet_id}"),
        ("PATCH", "/v1/external-wallets/{external_wallet_id}"),
    }


async def test_every_operation_is_documented_with_summary_tags_and_request_examples(tenant):
    spec = (await tenant.client.get("/openapi.json")).json()
    schemas = spec["components"]["schemas"]
    for method, path in _operations():
        operation = spec["paths"][path][method.lower()]
        assert operation.get("summary"), (method, path)
        assert operation.get("tags"), (method, path)
        body = operation.get("requestBody")
        if body is not None:
            reference = body["content"]["application/json"]["schema"]["$ref"]
            assert schemas[reference.rsplit("/", 1)[1]].get("examples"), (method, path)


@pytest.mark.parametrize(
    "identifier",
    ["x", "cp_%00", "ext_" + "0" * 26 + "%00", "a" * 5000, "%00", "ewa_%2e%2e", "cus_" + "0" * 26],
)
async def test_strange_ids_are_not_found_on_every_operation(tenant, identifier):
    ids = dict.fromkeys(
        ("counterparty_id", "external_account_id", "external_wallet_id"), identifier
    )
    for method, path in _operations():
        if "{" not in path:
            continue
        response = await tenant.client.request(method, _fill(path, ids), json={})
        # The middleware refuses a NUL anywhere in the path before any endpoint runs.
        expected = (422, "validation_error") if "%00" in identifier else (404, "not_found")
        assert (response.status_code, response.json()["code"]) == expected, (method, path)


async def test_garbage_bodies_never_cause_a_server_error(tenant):
    customer = await create_individual(tenant.client)
    counterparty = await create_counterparty(tenant.client, customer["id"])
    ids = {
        "counterparty_id": counterparty["id"],
        "external_account_id": (
            await create_account(tenant.client, {"customerId": customer["id"]})
        )["id"],
        "external_wallet_id": (await create_wallet(tenant.client, {"customerId": customer["id"]}))[
            "id"
        ],
    }
    for method, path in _operations():
        for body in GARBAGE_BODIES:
            response = await tenant.client.request(
                method, _fill(path, ids), content=body, headers={"Content-Type": "application/json"}
            )
            assert response.status_code < 500, (method, path, body[:80], response.text)
            if response.status_code >= 400:
                assert isinstance(response.json()["code"], str)


@pytest.mark.parametrize(
    "path", ["/v1/counterparties", "/v1/external-accounts", "/v1/external-wallets"]
)
async def test_malformed_json_is_400(tenant, path):
    for content in (b"{", b"not json", b"[1]"):
        response = await tenant.client.post(
            path, content=content, headers={"Content-Type": "application/json"}
        )
        assert_error(response, 400, "invalid_json")


async def test_nul_characters_and_wrong_types_are_validation_errors(tenant):
    customer = await create_individual(tenant.client)
    body = assert_error(
        await tenant.client.post(
            "/v1/counterparties",
            json={
                "customerId": customer["id"],
                "name": f"A{NUL}",
                "beneficiaryType": "BUSINESS",
                "address": {"addressLine1": NUL, "city": "Zürich", "country": "CH"},
            },
        ),
        422,
        "validation_error",
    )
    assert {error["field"] for error in body["errors"]} == {"name", "address.addressLine1"}
    body = assert_error(
        await tenant.client.post(
            "/v1/external-accounts",
            json={
                "customerId": customer["id"],
                "currency": 840,
                "country": "us",
                "accountHolderName": True,
                "accountNumber": 123456,
                "routingNumber": 21000021,
            },
        ),
        422,
        "validation_error",
    )
    assert {error["field"] for error in body["errors"]} == {
        "currency",
        "country",
        "accountHolderName",
        "accountNumber",
        "routingNumber",
    }
    body = assert_error(
        await tenant.client.post(
            "/v1/external-wallets",
            json={"customerId": customer["id"], "chain": "ETHEREUM", "address": f"0x{NUL}"},
        ),
        422,
        "validation_error",
    )
    assert body["errors"][0]["field"] == "address"
    for query in ("customerId=cus_%00", "counterpartyId=%00", "customerId=" + "c" * 65):
        for path in ("/v1/counterparties", "/v1/external-accounts", "/v1/external-wallets"):
            if path == "/v1/counterparties" and query.startswith("counterpartyId"):
                continue
            assert_error(await tenant.client.get(f"{path}?{query}"), 422, "validation_error")


async def test_over_long_strings_are_refused_naming_the_field(tenant):
    customer = await create_individual(tenant.client)
    body = assert_error(
        await tenant.client.post(
            "/v1/external-accounts",
            json={
                "customerId": customer["id"],
                "currency": "EUR",
                "country": "DE",
                "accountHolderName": "x" * 141,
                "iban": "DE89370400440532013000" * 2,
                "bankName": "b" * 201,
                "label": "l" * 101,
            },
        ),
        422,
        "validation_error",
    )
    assert {error["field"] for error in body["errors"]} == {
        "accountHolderName",
        "iban",
        "bankName",
        "label",
    }
