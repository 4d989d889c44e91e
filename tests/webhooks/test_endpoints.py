"""Webhook endpoints through the API: create, list, get, update, delete, secrets, access."""

from __future__ import annotations

import pytest

from corridor.webhooks.service import endpoints_per_organization_max
from tests.auth.credentials import bearer, key_secret
from tests.conftest import assert_error, client_for
from tests.support import create_individual
from tests.webhooks.support import create_endpoint, secret_of

URL = "https://example.com/webhooks/corridor"
PATH = "/v1/webhooks/endpoints"


async def test_create_answers_the_endpoint_and_it_can_be_read_back(tenant):
    created = await create_endpoint(
        tenant.client, URL, description="Ledger sync", eventTypes=["transfer.completed"]
    )
    assert created["id"].startswith("ep_")
    assert created["url"] == URL
    assert created["description"] == "Ledger sync"
    assert created["eventTypes"] == ["transfer.completed"]
    assert created["disabled"] is False
    assert created["disabledReason"] is None
    assert created["createdAt"].endswith("Z") and created["updatedAt"].endswith("Z")
    assert "secret" not in created
    read = await tenant.client.get(f"{PATH}/{created['id']}")
    assert read.json() == created


async def test_defaults_are_every_event_type_and_enabled(tenant):
    created = await create_endpoint(tenant.client, URL)
    assert created["eventTypes"] == []
    assert created["description"] is None


async def test_list_is_newest_first_and_paginates(tenant):
    made = [(await create_endpoint(tenant.client, f"{URL}/{index}"))["id"] for index in range(3)]
    first = (await tenant.client.get(PATH, params={"limit": 2})).json()
    assert [item["id"] for item in first["data"]] == made[::-1][:2]
    assert first["hasMore"] is True
    rest = (await tenant.client.get(PATH, params={"cursor": first["nextCursor"]})).json()
    assert [item["id"] for item in rest["data"]] == [made[0]]
    assert rest["hasMore"] is False


async def test_update_changes_only_the_fields_sent(tenant):
    created = await create_endpoint(tenant.client, URL, description="d", eventTypes=["a.b"])
    changed = await tenant.client.patch(
        f"{PATH}/{created['id']}", json={"eventTypes": [], "url": f"{URL}/v2"}
    )
    assert changed.status_code == 200, changed.text
    body = changed.json()
    assert body["eventTypes"] == []
    assert body["url"] == f"{URL}/v2"
    assert body["description"] == "d"
    cleared = await tenant.client.patch(f"{PATH}/{created['id']}", json={"description": None})
    assert cleared.json()["description"] is None


async def test_disable_and_enable_again(tenant):
    created = await create_endpoint(tenant.client, URL)
    disabled = (
        await tenant.client.patch(f"{PATH}/{created['id']}", json={"disabled": True})
    ).json()
    assert disabled["disabled"] is True
    assert disabled["disabledReason"] == "MANUAL"
    enabled = (
        await tenant.client.patch(f"{PATH}/{created['id']}", json={"disabled": False})
    ).json()
    assert enabled["disabled"] is False
    assert enabled["disabledReason"] is None


async def test_delete_hides_the_endpoint(tenant):
    created = await create_endpoint(tenant.client, URL)
    deleted = await tenant.client.delete(f"{PATH}/{created['id']}")
    assert deleted.status_code == 204
    assert_error(await tenant.client.get(f"{PATH}/{created['id']}"), 404, "not_found")
    assert_error(await tenant.client.delete(f"{PATH}/{created['id']}"), 404, "not_found")
    listed = (await tenant.client.get(PATH)).json()["data"]
    assert created["id"] not in [item["id"] for item in listed]


async def test_another_organizations_endpoint_is_not_found(tenant, make_tenant):
    other = await make_tenant()
    theirs = await create_endpoint(other.client, URL)
    for method, path in [
        ("GET", f"{PATH}/{theirs['id']}"),
        ("PATCH", f"{PATH}/{theirs['id']}"),
        ("DELETE", f"{PATH}/{theirs['id']}"),
        ("GET", f"{PATH}/{theirs['id']}/secret"),
        ("POST", f"{PATH}/{theirs['id']}/secret/rotate"),
    ]:
        response = await tenant.client.request(method, path, json={})
        assert_error(response, 404, "not_found")
    replay = await tenant.client.post(
        f"{PATH}/{theirs['id']}/replay", json={"since": "2026-01-01T00:00:00Z"}
    )
    assert_error(replay, 404, "not_found")


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "url"),
        ({"url": "not a url"}, "url"),
        ({"url": "ftp://example.com/x"}, "url"),
        ({"url": "https://user:password@example.com/x"}, "url"),
        ({"url": "https://example.com/" + "x" * 2048}, "url"),
        ({"url": URL, "eventTypes": ["Transfer Completed"]}, "eventTypes.0"),
        ({"url": URL, "eventTypes": "transfer.completed"}, "eventTypes"),
        ({"url": URL, "eventTypes": [f"a.b{index}" for index in range(101)]}, "eventTypes"),
        ({"url": URL, "description": "x" * 501}, "description"),
        ({"url": URL, "disabled": "yes"}, "disabled"),
        ({"url": URL, "secret": "not-a-secret"}, "secret"),
        ({"url": URL, "secret": "whsec_c2hvcnQ="}, "secret"),
        ({"url": URL, "id": "ep_x"}, "id"),
    ],
)
async def test_invalid_bodies_are_refused_field_by_field(tenant, body, field):
    refused = assert_error(await tenant.client.post(PATH, json=body), 422, "validation_error")
    assert field in [error["field"] for error in refused["errors"]], refused


async def test_null_is_refused_for_fields_that_cannot_be_empty(tenant):
    created = await create_endpoint(tenant.client, URL)
    for field in ("url", "eventTypes", "disabled"):
        response = await tenant.client.patch(f"{PATH}/{created['id']}", json={field: None})
        assert_error(response, 422, "validation_error")


async def test_repeated_event_types_are_kept_once(tenant):
    created = await create_endpoint(tenant.client, URL, eventTypes=["a.b", "a.b", "c.d"])
    assert created["eventTypes"] == ["a.b", "c.d"]


async def test_a_secret_can_be_brought_and_is_read_back(tenant):
    secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw4bS1LkV6sTI="
    created = await create_endpoint(tenant.client, URL, secret=secret)
    assert await secret_of(tenant.client, created["id"]) == secret


async def test_made_secrets_are_whsec_and_differ_per_endpoint(tenant):
    first = await secret_of(tenant.client, (await create_endpoint(tenant.client, URL))["id"])
    second = await secret_of(tenant.client, (await create_endpoint(tenant.client, URL))["id"])
    assert first.startswith("whsec_") and second.startswith("whsec_")
    assert first != second


async def test_create_is_idempotent_with_a_key(tenant):
    headers = {"Idempotency-Key": "endpoint-1"}
    first = await tenant.client.post(PATH, json={"url": URL}, headers=headers)
    again = await tenant.client.post(PATH, json={"url": URL}, headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.headers["idempotent-replayed"] == "true"
    assert again.json()["id"] == first.json()["id"]


async def test_an_organization_has_a_bounded_number_of_endpoints(make_tenant):
    tenant = await make_tenant()
    for index in range(endpoints_per_organization_max):
        await create_endpoint(tenant.client, f"{URL}/{index}")
    assert_error(await tenant.client.post(PATH, json={"url": URL}), 409, "conflict")


async def test_webhooks_need_the_webhooks_manage_scope(tenant, app):
    created = await create_endpoint(tenant.client, URL)
    other_scopes = await key_secret(tenant, ["customers:write", "transfers:write"])
    async with client_for(app, bearer(other_scopes)) as client:
        for method, path in [
            ("POST", PATH),
            ("GET", PATH),
            ("GET", f"{PATH}/{created['id']}/secret"),
            ("GET", "/v1/webhooks/messages"),
        ]:
            assert_error(await client.request(method, path, json={"url": URL}), 403, "forbidden")
    manager = await key_secret(tenant, ["webhooks:manage"])
    async with client_for(app, bearer(manager)) as client:
        assert (await client.get(f"{PATH}/{created['id']}/secret")).status_code == 200
        assert (await client.post(PATH, json={"url": URL})).status_code == 201
        assert (await client.get("/v1/webhooks/messages")).status_code == 200


async def test_a_caller_bound_to_a_customer_cannot_manage_webhooks(tenant):
    customer = await create_individual(tenant.client)
    bound = {"X-Corridor-On-Behalf-Of": customer["id"]}
    assert_error(await tenant.client.get(PATH, headers=bound), 403, "forbidden")
    assert_error(await tenant.client.get("/v1/webhooks/messages", headers=bound), 403, "forbidden")


async def test_without_credentials_it_is_401(anonymous):
    assert_error(await anonymous.get(PATH), 401, "unauthorized")


@pytest.mark.parametrize("identifier", ["x", "ep_" + "0" * 26, "a" * 5000, "ep_%2e%2e"])
async def test_strange_ids_are_not_found(tenant, identifier):
    assert_error(await tenant.client.get(f"{PATH}/{identifier}"), 404, "not_found")
    assert_error(await tenant.client.get(f"/v1/webhooks/messages/{identifier}"), 404, "not_found")
