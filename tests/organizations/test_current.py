"""The caller's organization: read, rename, and who may do which."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tests.auth.credentials import bearer, console_token, key_secret
from tests.conftest import assert_error, client_for
from tests.organizations.events import events_of


async def test_current_organization_is_the_callers_own(tenant):
    response = await tenant.client.get("/v1/organizations/current")
    assert response.status_code == 200, response.text
    organization = response.json()
    assert set(organization) == {"id", "name", "kind", "parentId", "createdAt", "updatedAt"}
    assert organization["id"] == tenant.organization_id
    assert organization["name"] == "Test organization"
    assert organization["kind"] == "STANDARD"
    assert organization["parentId"] is None
    assert organization["createdAt"].endswith("Z")


async def test_each_tenant_sees_only_its_own_organization(make_tenant):
    first, second = await make_tenant(), await make_tenant()
    assert (await first.client.get("/v1/organizations/current")).json()["id"] == (
        first.organization_id
    )
    assert (await second.client.get("/v1/organizations/current")).json()["id"] == (
        second.organization_id
    )


async def test_rename_changes_name_and_updated_at_and_emits_organization_updated(
    tenant, clock, app
):
    clock.set(datetime(2026, 5, 4, 10, 30, tzinfo=UTC))
    response = await tenant.client.patch("/v1/organizations/current", json={"name": "Acme"})
    assert response.status_code == 200, response.text
    renamed = response.json()
    assert renamed["name"] == "Acme"
    assert renamed["updatedAt"] == "2026-05-04T10:30:00.000Z"
    assert (await tenant.client.get("/v1/organizations/current")).json() == renamed

    events = await events_of(app, tenant.organization_id, "organization.updated")
    assert len(events) == 1
    assert events[0].data == renamed
    assert tenant.organization_id in events[0].tags


async def test_rename_to_the_same_name_or_empty_patch_changes_nothing(tenant, app):
    before = (await tenant.client.get("/v1/organizations/current")).json()
    for body in ({"name": before["name"]}, {}):
        response = await tenant.client.patch("/v1/organizations/current", json=body)
        assert response.status_code == 200, response.text
        assert response.json() == before
    assert await events_of(app, tenant.organization_id, "organization.updated") == []


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"name": ""}, "name"),
        ({"name": "   "}, "name"),
        ({"name": "n" * 201}, "name"),
        ({"name": 12}, "name"),
        ({"name": None}, "name"),
        ({"name": ["Acme"]}, "name"),
        ({"kind": "PLATFORM"}, "kind"),
        ({"id": "org_01jd3x0p6x9e3k2v1m8q4r7s5t"}, "id"),
        ({"parentId": None}, "parentId"),
    ],
)
async def test_rename_refuses_bad_input_naming_the_field(tenant, body, field):
    response = await tenant.client.patch("/v1/organizations/current", json=body)
    problem = assert_error(response, 422, "validation_error")
    assert field in {error["field"] for error in problem["errors"]}


async def test_rename_refuses_malformed_json(tenant):
    for content in (b"{", b"[]", b'"Acme"', b""):
        response = await tenant.client.patch(
            "/v1/organizations/current",
            content=content,
            headers={"Content-Type": "application/json"},
        )
        assert_error(response, 400, "invalid_json")


async def test_organization_read_scope_reads_but_does_not_write(tenant, app):
    secret = await key_secret(tenant, ["organizations:read"])
    async with client_for(app, bearer(secret)) as reader:
        assert (await reader.get("/v1/organizations/current")).status_code == 200
        assert (await reader.get("/v1/organizations/current/configuration")).status_code == 200
        assert_error(
            await reader.patch("/v1/organizations/current", json={"name": "X"}), 403, "forbidden"
        )
        assert_error(
            await reader.patch(
                "/v1/organizations/current/configuration", json={"webhookHistoryEnabled": False}
            ),
            403,
            "forbidden",
        )
    assert (await tenant.client.get("/v1/organizations/current")).json()["name"] != "X"


async def test_organization_write_scope_reads_and_writes(tenant, app):
    secret = await key_secret(tenant, ["organizations:write"])
    async with client_for(app, bearer(secret)) as writer:
        assert (await writer.get("/v1/organizations/current")).status_code == 200
        renamed = await writer.patch("/v1/organizations/current", json={"name": "Written"})
        assert renamed.status_code == 200, renamed.text
        configured = await writer.patch(
            "/v1/organizations/current/configuration", json={"webhookHistoryEnabled": False}
        )
        assert configured.status_code == 200, configured.text


async def test_other_scopes_neither_read_nor_write_the_organization(tenant, app):
    secret = await key_secret(tenant, ["customers:write", "api_keys:manage", "transfers:write"])
    async with client_for(app, bearer(secret)) as other:
        for path in ("/v1/organizations/current", "/v1/organizations/current/configuration"):
            assert_error(await other.get(path), 403, "forbidden")
        assert_error(await other.get("/v1/organizations"), 403, "forbidden")
        assert_error(
            await other.patch("/v1/organizations/current", json={"name": "X"}), 403, "forbidden"
        )


async def test_console_session_reads_and_renames(tenant, app):
    token = await console_token(tenant)
    async with client_for(app, bearer(token)) as console:
        response = await console.patch("/v1/organizations/current", json={"name": "By console"})
        assert response.status_code == 200, response.text
        assert (await console.get("/v1/organizations/current")).json()["name"] == "By console"


async def test_anonymous_caller_is_unauthorized(anonymous):
    for path in (
        "/v1/organizations/current",
        "/v1/organizations/current/configuration",
        "/v1/organizations",
    ):
        assert_error(await anonymous.get(path), 401, "unauthorized")
    assert_error(
        await anonymous.patch("/v1/organizations/current", json={"name": "X"}),
        401,
        "unauthorized",
    )
    assert_error(await anonymous.post("/v1/organizations", json={"name": "X"}), 401, "unauthorized")
