"""Email addresses at domains reserved for testing (RFC 2606, RFC 6761) are accepted in the
sandbox, as people expect from a sandbox, and refused in production."""

from __future__ import annotations

import pytest

from corridor.kit.emails import email_problem, is_reserved_testing_domain
from tests.conftest import assert_error
from tests.support import create_individual

RESERVED = ["ada@example.com", "ada@lovelace.test", "ada@mail.example.org", "ada@shop.example"]


@pytest.mark.parametrize(
    ("domain", "reserved"),
    [
        ("example.com", True),
        ("EXAMPLE.NET", True),
        ("sub.example.org", True),
        ("acme.test", True),
        ("acme.example", True),
        ("example.com.", True),
        ("notexample.com", False),
        ("example.company", False),
        ("corridor.dev", False),
        ("test.com", False),
    ],
)
def test_reserved_testing_domains(domain, reserved):
    assert is_reserved_testing_domain(domain) is reserved


def test_outside_a_request_only_the_syntax_is_checked():
    assert email_problem("ada@example.com", sandbox=None) is None
    assert email_problem("ada@example.com", sandbox=True) is None
    assert "reserved for testing" in (email_problem("ada@example.com", sandbox=False) or "")
    assert "not a valid email" in (email_problem("ada@@example.com", sandbox=True) or "")


async def test_the_sandbox_accepts_testing_domains(tenant):
    for email in RESERVED:
        customer = await create_individual(tenant.client, email=email)
        assert customer["email"] == email
    business = await tenant.client.post(
        "/v1/customers/business", json={"legalName": "Acme", "email": "ops@acme.test"}
    )
    assert business.status_code == 201, business.text
    counterparty = await tenant.client.post(
        "/v1/counterparties",
        json={
            "customerId": customer["id"],
            "name": "Grace Hopper",
            "beneficiaryType": "INDIVIDUAL",
            "email": "grace@hopper.test",
            "address": {"addressLine1": "1 Main St", "city": "Austin", "country": "US"},
        },
    )
    assert counterparty.status_code == 201, counterparty.text


async def test_production_refuses_testing_domains(production_app, make_tenant):
    live = await make_tenant(production_app)
    for email in RESERVED:
        response = await live.client.post(
            "/v1/customers/business", json={"legalName": "Acme", "email": email}
        )
        body = assert_error(response, 422, "validation_error")
        assert body["errors"][0]["field"] == "email"
        assert "reserved for testing" in body["errors"][0]["message"]
    accepted = await live.client.post(
        "/v1/customers/business", json={"legalName": "Acme", "email": "ops@corridor.dev"}
    )
    assert accepted.status_code == 201, accepted.text
    counterparty = await live.client.post(
        "/v1/counterparties",
        json={
            "customerId": accepted.json()["id"],
            "name": "Grace Hopper",
            "beneficiaryType": "INDIVIDUAL",
            "email": "grace@example.com",
            "address": {"addressLine1": "1 Main St", "city": "Austin", "country": "US"},
        },
    )
    body = assert_error(counterparty, 422, "validation_error")
    assert body["errors"][0]["field"] == "email"
    listed = await live.client.get("/v1/customers")
    assert [customer["email"] for customer in listed.json()["data"]] == ["ops@corridor.dev"]
