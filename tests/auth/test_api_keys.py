"""API keys: creation shown once, scopes, revocation, environments, X-API-Key."""

from __future__ import annotations

from tests.conftest import assert_error, client_for


async def test_created_key_secret_is_shown_once_and_authenticates(tenant, app):
    response = await tenant.client.post(
        "/v1/api-keys", json={"name": "reader", "scopes": ["customers:read"]}
    )
    assert response.status_code == 201, response.text
    created = response.json()
    assert created["id"].startswith("key_")
    assert created["secret"].startswith("sk_sandbox_")
    assert created["secret"].startswith(created["prefix"])
    assert created["scopes"] == ["customers:read"]
    assert created["revokedAt"] is None

    listed = (await tenant.client.get("/v1/api-keys")).json()
    listed_key = next(item for item in listed["data"] if item["id"] == created["id"])
    assert "secret" not in listed_key

    async with client_for(app, {"Authorization": f"Bearer {created['secret']}"}) as reader:
        assert (await reader.get("/v1/api-keys")).status_code == 403


async def test_restricted_key_gets_forbidden_outside_its_scopes(tenant, app):
    created = (
        await tenant.client.post("/v1/api-keys", json={"name": "k", "scopes": ["customers:read"]})
    ).json()
    async with client_for(app, {"Authorization": f"Bearer {created['secret']}"}) as reader:
        assert_error(
            await reader.post("/v1/api-keys", json={"name": "x", "scopes": ["*"]}), 403, "forbidden"
        )


async def test_key_cannot_grant_scopes_it_lacks(tenant, app):
    manager = (
        await tenant.client.post("/v1/api-keys", json={"name": "m", "scopes": ["api_keys:manage"]})
    ).json()
    async with client_for(app, {"Authorization": f"Bearer {manager['secret']}"}) as client:
        assert_error(
            await client.post("/v1/api-keys", json={"name": "x", "scopes": ["*"]}), 403, "forbidden"
        )
        response = await client.post(
            "/v1/api-keys", json={"name": "x", "scopes": ["api_keys:manage"]}
        )
        assert response.status_code == 201


async def test_unknown_scope_is_a_validation_error(tenant):
    body = assert_error(
        await tenant.client.post("/v1/api-keys", json={"name": "k", "scopes": ["money:print"]}),
        422,
        "validation_error",
    )
    assert body["errors"][0]["field"] == "scopes"


async def test_revoked_key_is_unauthorized_at_once(tenant, app):
    created = (await tenant.client.post("/v1/api-keys", json={"name": "k", "scopes": ["*"]})).json()
    async with client_for(app, {"Authorization": f"Bearer {created['secret']}"}) as client:
        assert (await client.get("/v1/api-keys")).status_code == 200
        assert (await tenant.client.delete(f"/v1/api-keys/{created['id']}")).status_code == 204
        assert_error(await client.get("/v1/api-keys"), 401, "unauthorized")
    listed = (await tenant.client.get("/v1/api-keys")).json()["data"]
    assert next(item for item in listed if item["id"] == created["id"])["revokedAt"] is not None


async def test_revoking_another_organizations_key_is_not_found(make_tenant):
    first, second = await make_tenant(), await make_tenant()
    key = (await first.client.post("/v1/api-keys", json={"name": "k", "scopes": ["*"]})).json()
    assert_error(await second.client.delete(f"/v1/api-keys/{key['id']}"), 404, "not_found")
    assert all(
        item["id"] != key["id"] for item in (await second.client.get("/v1/api-keys")).json()["data"]
    )


async def test_missing_wrong_and_malformed_credentials_are_unauthorized(anonymous):
    assert_error(await anonymous.get("/v1/api-keys"), 401, "unauthorized")
    for header in (
        "Bearer sk_sandbox_nope",
        "Bearer cs_nope",
        "Basic abc",
        "Bearer " + "x" * 5000,
        "Bearer",
    ):
        assert_error(
            await anonymous.get("/v1/api-keys", headers={"Authorization": header}),
            401,
            "unauthorized",
        )


async def test_x_api_key_header_works_in_sandbox(tenant, anonymous):
    assert (
        await anonymous.get("/v1/api-keys", headers={"X-API-Key": tenant.secret})
    ).status_code == 200


async def test_live_key_is_refused_by_sandbox_and_sandbox_key_by_production(
    tenant, make_tenant, production_app, anonymous
):
    live = await make_tenant(production_app)
    assert live.secret.startswith("sk_live_")
    assert_error(
        await anonymous.get("/v1/api-keys", headers={"Authorization": f"Bearer {live.secret}"}),
        401,
        "unauthorized",
    )
    async with client_for(production_app, tenant.headers()) as production_client:
        assert_error(await production_client.get("/v1/api-keys"), 401, "unauthorized")
    assert (await live.client.get("/v1/api-keys")).status_code == 200


async def test_x_api_key_header_is_refused_in_production(make_tenant, production_app):
    live = await make_tenant(production_app)
    async with client_for(production_app, {"X-API-Key": live.secret}) as client:
        assert_error(await client.get("/v1/api-keys"), 401, "unauthorized")


async def test_api_key_name_too_long_is_rejected(tenant):
    assert_error(
        await tenant.client.post("/v1/api-keys", json={"name": "n" * 201, "scopes": ["*"]}),
        422,
        "validation_error",
    )
