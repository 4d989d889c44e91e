"""The operator of a parent organization reaches its children: a child's first key, the
X-Corridor-Organization header, the review queue across children; and a platform
session's REST binding by creating a business customer (spec 5.7)."""

from __future__ import annotations

from contextlib import aclosing
from datetime import timedelta

from sqlalchemy import text

from corridor.kit.clock import SystemClock
from tests.auth.credentials import bearer, console_token, key_secret
from tests.conftest import assert_error, client_for
from tests.support import create_individual, set_verification_status
from tests.transfers.conftest import amount

ORGANIZATION = "X-Corridor-Organization"


async def _child(client, **body) -> dict:
    response = await client.post("/v1/organizations", json={"name": "Child", **body})
    assert response.status_code == 201, response.text
    return response.json()


async def _stored_answers(app, key: str) -> list[str]:
    async with app.state.database.session() as session:
        rows = await session.execute(
            text("SELECT response_body FROM idempotency_records WHERE key = :key"), {"key": key}
        )
        return [row[0] or "" for row in rows]


async def test_a_child_can_get_its_first_key_shown_once(app, tenant):
    plain = await _child(tenant.client)
    assert "apiKey" not in plain and "apiKeySecret" not in plain
    created = await _child(tenant.client, name="Acme Europe", createApiKey=True)
    assert created["parentId"] == tenant.organization_id
    assert created["apiKey"]["scopes"] == ["*"]
    secret = created["apiKeySecret"]
    assert secret.startswith("sk_sandbox_") and secret.startswith(created["apiKey"]["prefix"])
    async with client_for(app, bearer(secret)) as child:
        current = await child.get("/v1/organizations/current")
        assert current.json()["id"] == created["id"]
        keys = await child.get("/v1/api-keys")
        assert [key["id"] for key in keys.json()["data"]] == [created["apiKey"]["id"]]

    body = {"name": "Acme Asia", "createApiKey": True}
    headers = {"Idempotency-Key": "child-asia-1"}
    first = await tenant.client.post("/v1/organizations", json=body, headers=headers)
    again = await tenant.client.post("/v1/organizations", json=body, headers=headers)
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.json()["id"] == first.json()["id"]
    assert again.json()["apiKeySecret"] is None and "revoke" in again.json()["secretNote"]
    assert again.json()["apiKey"] == first.json()["apiKey"]
    stored = await _stored_answers(app, "child-asia-1")
    assert stored and all(first.json()["apiKeySecret"] not in answer for answer in stored)

    restricted = client_for(app, bearer(await key_secret(tenant, ["organizations:write"])))
    async with restricted:
        refused = await restricted.post(
            "/v1/organizations", json={"name": "No", "createApiKey": True}
        )
        assert_error(refused, 403, "forbidden")


async def test_the_parent_acts_inside_its_children_and_nowhere_else(app, tenant, make_tenant):
    child = await _child(tenant.client, name="A", createApiKey=True)
    sibling = await _child(tenant.client, name="B")
    async with client_for(app, bearer(child["apiKeySecret"])) as child_client:
        grandchild = await _child(child_client, name="A1")
        stranger = await make_tenant()
        for target in (sibling["id"], tenant.organization_id, stranger.organization_id, "nope"):
            response = await child_client.get(
                "/v1/organizations/current", headers={ORGANIZATION: target}
            )
            assert_error(response, 404, "not_found")
        # Its own id changes nothing.
        own = await child_client.get(
            "/v1/organizations/current", headers={ORGANIZATION: child["id"]}
        )
        assert own.json()["id"] == child["id"]

    for target in (child["id"], grandchild["id"]):
        inside = await tenant.client.get(
            "/v1/organizations/current", headers={ORGANIZATION: target}
        )
        assert inside.status_code == 200, inside.text
        assert inside.json()["id"] == target

    console = client_for(app, {**bearer(await console_token(tenant)), ORGANIZATION: child["id"]})
    async with console:
        customer = await create_individual(console)
        assert customer["organizationId"] == child["id"]
        bound = await console.get(
            f"/v1/customers/{customer['id']}",
            headers={"X-Corridor-On-Behalf-Of": customer["id"]},
        )
        assert bound.status_code == 200, bound.text
    # Made in the child: the parent's own view does not hold it.
    assert_error(await tenant.client.get(f"/v1/customers/{customer['id']}"), 404, "not_found")

    restricted = client_for(
        app, {**bearer(await key_secret(tenant, ["customers:read"])), ORGANIZATION: child["id"]}
    )
    async with restricted:
        assert_error(await restricted.get("/v1/customers"), 403, "forbidden")


async def _platform_child(app, tenant):
    """A PLATFORM child with its first key, an ACTIVE business customer of it made by the
    platform key (which binds the session), and USD in its balance."""
    child = await _child(tenant.client, name="Marketplace", kind="PLATFORM", createApiKey=True)
    operator = client_for(app, {**bearer(await console_token(tenant)), ORGANIZATION: child["id"]})
    platform = client_for(app, bearer(child["apiKeySecret"]))
    created = await platform.post(
        "/v1/customers/business",
        json={"legalName": "Widgets Ltd", "email": "finance@widgets.example"},
    )
    assert created.status_code == 201, created.text
    business = created.json()
    await set_verification_status(operator, business["id"], "ACTIVE")
    accounts = await operator.get(f"/v1/customers/{business['id']}/accounts")
    usd = next(a["id"] for a in accounts.json()["data"] if a["currency"] == "USD")
    funded = await operator.post(
        f"/v1/sandbox/accounts/{usd}/fund", json={"amount": amount("USD", 10_000)}
    )
    assert funded.status_code == 200, funded.text
    return child, operator, platform, business, usd


async def test_the_parents_console_reviews_its_platform_childrens_transfers(app, tenant):
    child, operator, platform, business, usd = await _platform_child(app, tenant)
    async with (
        aclosing(operator),
        aclosing(platform),
        client_for(app, bearer(business["sessionToken"])) as session,
    ):
        submitted = await session.post(
            "/v1/transfers",
            json={
                "source": {"accountId": usd},
                "destination": {"accountId": usd},
                "amount": amount("USD", 2_500),
                "confirm": True,
            },
        )
        assert submitted.status_code == 201, submitted.text
        transfer = submitted.json()
        assert transfer["status"] == "IN_REVIEW"

        console = client_for(app, bearer(await console_token(tenant)))
        async with console:
            queue = await console.get(
                "/v1/transfers",
                params={"status": "IN_REVIEW", "includeChildOrganizations": "true"},
            )
            assert queue.status_code == 200, queue.text
            assert [(t["id"], t["organizationId"]) for t in queue.json()["data"]] == [
                (transfer["id"], child["id"])
            ]
            own_only = await console.get("/v1/transfers", params={"status": "IN_REVIEW"})
            assert own_only.json()["data"] == []
            path = f"/v1/transfers/{transfer['id']}/review"
            assert_error(await console.post(path, json={"decision": "APPROVE"}), 404, "not_found")
        by_parent_key = await tenant.client.post(
            path, json={"decision": "APPROVE"}, headers={ORGANIZATION: child["id"]}
        )
        assert_error(by_parent_key, 403, "forbidden")
        approved = await operator.post(path, json={"decision": "APPROVE"})
        assert approved.status_code == 200, approved.text
        assert approved.json()["status"] == "PENDING"
        assert approved.json()["review"]["decision"] == "APPROVE"

        restricted = client_for(app, bearer(await key_secret(tenant, ["transfers:read"])))
        async with restricted:
            refused = await restricted.get(
                "/v1/transfers", params={"includeChildOrganizations": "true"}
            )
            assert_error(refused, 403, "forbidden")


async def test_a_business_customer_binds_the_platform_session(app, tenant, clock):
    child, operator, platform, business, _usd = await _platform_child(app, tenant)
    token = business["sessionToken"]
    assert token.startswith("ps_") and business["sessionExpiresAt"]
    async with aclosing(operator), aclosing(platform), client_for(app, bearer(token)) as session:
        unbound = await platform.get("/v1/accounts")
        assert_error(unbound, 403, "customer_binding_required")
        accounts = await session.get("/v1/accounts")
        assert accounts.status_code == 200, accounts.text
        assert {a["customerId"] for a in accounts.json()["data"]} == {business["id"]}
        customers = await session.get("/v1/customers")
        assert [c["id"] for c in customers.json()["data"]] == [business["id"]]
        refused = await session.post(
            "/v1/customers/business", json={"legalName": "Other", "email": "a@other.example"}
        )
        assert_error(refused, 403, "forbidden")

        # An individual, or a caller that is not a platform session, gets no session.
        individual = await create_individual(platform)
        assert "sessionToken" not in individual
        plain = await tenant.client.post(
            "/v1/customers/business", json={"legalName": "Plain", "email": "a@plain.example"}
        )
        assert plain.json()["sessionToken"] is None

        body = {"legalName": "Gadgets Ltd", "email": "ops@gadgets.example"}
        headers = {"Idempotency-Key": "gadgets-1"}
        first = await platform.post("/v1/customers/business", json=body, headers=headers)
        again = await platform.post("/v1/customers/business", json=body, headers=headers)
        assert again.json()["id"] == first.json()["id"]
        assert again.json()["sessionToken"] is None and again.json()["secretNote"]
        stored = await _stored_answers(app, "gadgets-1")
        assert stored and all(first.json()["sessionToken"] not in answer for answer in stored)

        clock.set(SystemClock().now() + timedelta(hours=12, minutes=1))
        assert_error(await session.get("/v1/accounts"), 401, "unauthorized")
        clock.reset()
        assert (await session.get("/v1/accounts")).status_code == 200
        revoked = await operator.delete(f"/v1/api-keys/{child['apiKey']['id']}")
        assert revoked.status_code == 204, revoked.text
        assert_error(await session.get("/v1/accounts"), 401, "unauthorized")
