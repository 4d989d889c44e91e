"""Child organizations: who may create them, what a caller sees of its tree, and nothing else."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from corridor.auth import service as auth_service
from corridor.kit.clock import SystemClock
from corridor.kit.ids import new_id
from corridor.organizations import repository
from corridor.organizations import service as organizations
from tests.auth.credentials import bearer, console_token, key_secret
from tests.conftest import assert_error, client_for
from tests.organizations.events import events_of


async def _create_child(client, **body) -> dict:
    response = await client.post("/v1/organizations", json={"name": "Child", **body})
    assert response.status_code == 201, response.text
    return response.json()


async def _organization_with_key(app, *, parent_id: str, name: str = "Below") -> tuple[str, str]:
    """An organization below `parent_id` made directly (no API lets one sign in as it yet),
    with an unrestricted key of its own: (organization id, key secret)."""
    async with app.state.database.session() as session, session.begin():
        organization = await organizations.create_organization(
            session, name=name, parent_id=parent_id, now=SystemClock().now()
        )
        _, secret = await auth_service.create_organization_key(
            session,
            organization_id=organization.id,
            name="key",
            scopes=frozenset({"*"}),
            key_environment="sandbox",
            created_by=None,
            now=SystemClock().now(),
        )
    return organization.id, secret


async def test_child_is_created_below_the_callers_organization(tenant, clock):
    clock.set(datetime(2026, 7, 1, 12, 0, tzinfo=UTC))
    child = await _create_child(tenant.client, name="Acme Europe")
    # Without createApiKey the answer has no first key (test_operators.py has one).
    assert set(child) == {"id", "name", "kind", "parentId", "createdAt", "updatedAt"}
    assert child["id"].startswith("org_")
    assert child["name"] == "Acme Europe"
    assert child["kind"] == "STANDARD"
    assert child["parentId"] == tenant.organization_id
    assert child["createdAt"] == child["updatedAt"] == "2026-07-01T12:00:00.000Z"
    fetched = await tenant.client.get(f"/v1/organizations/{child['id']}")
    assert fetched.json() == child


async def test_child_may_be_a_platform(tenant):
    assert (await _create_child(tenant.client, kind="PLATFORM"))["kind"] == "PLATFORM"


async def test_child_creation_emits_organization_created_to_the_parent(tenant, app):
    child = await _create_child(tenant.client)
    events = [
        event
        for event in await events_of(app, tenant.organization_id, "organization.created")
        if event.data["id"] != tenant.organization_id  # the root's own, written by bootstrap
    ]
    assert [event.data for event in events] == [child]
    assert set(events[0].tags) == {child["id"], tenant.organization_id}


async def test_child_starts_with_the_default_configuration(tenant, app):
    await tenant.client.patch(
        "/v1/organizations/current/configuration", json={"accountCurrencies": ["EUR"]}
    )
    child = await _create_child(tenant.client)
    async with app.state.database.session(write=False) as session:
        stored = await repository.organization_by_id(session, child["id"])
        assert organizations.configuration_of(stored).account_currencies == ("USD", "USDC")


async def test_console_session_may_create_a_child(tenant, app):
    async with client_for(app, bearer(await console_token(tenant))) as console:
        assert (await _create_child(console))["parentId"] == tenant.organization_id


@pytest.mark.parametrize(
    "scopes", [["organizations:write"], ["organizations:read"], ["api_keys:manage"]]
)
async def test_restricted_key_may_not_create_a_child(tenant, app, scopes):
    async with client_for(app, bearer(await key_secret(tenant, scopes))) as restricted:
        response = await restricted.post("/v1/organizations", json={"name": "Nope"})
        assert_error(response, 403, "forbidden")
    listed = (await tenant.client.get("/v1/organizations")).json()["data"]
    assert [item["id"] for item in listed] == [tenant.organization_id]


async def test_platform_session_may_not_create_a_child(make_tenant):
    platform = await make_tenant(kind="PLATFORM")
    response = await platform.client.post("/v1/organizations", json={"name": "Nope"})
    assert_error(response, 403, "forbidden")


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "name"),
        ({"name": ""}, "name"),
        ({"name": " "}, "name"),
        ({"name": "n" * 201}, "name"),
        ({"name": None}, "name"),
        ({"name": 7}, "name"),
        ({"name": "A", "kind": "platform"}, "kind"),
        ({"name": "A", "kind": "AGENT"}, "kind"),
        ({"name": "A", "kind": None}, "kind"),
        ({"name": "A", "parentId": "org_01jd3x0p6x9e3k2v1m8q4r7s5t"}, "parentId"),
        ({"name": "A", "id": "org_01jd3x0p6x9e3k2v1m8q4r7s5t"}, "id"),
        ({"name": "A", "configuration": {}}, "configuration"),
    ],
)
async def test_create_child_refuses_bad_input_naming_the_field(tenant, body, field):
    problem = assert_error(
        await tenant.client.post("/v1/organizations", json=body), 422, "validation_error"
    )
    assert field in {error["field"] for error in problem["errors"]}


async def test_create_child_refuses_malformed_json(tenant):
    for content in (b"{", b"[]", b"\xff", b""):
        response = await tenant.client.post(
            "/v1/organizations", content=content, headers={"Content-Type": "application/json"}
        )
        assert_error(response, 400, "invalid_json")


async def test_list_holds_own_organization_and_descendants_newest_first(tenant, app):
    first = await _create_child(tenant.client, name="First")
    second = await _create_child(tenant.client, name="Second")
    grandchild_id, _ = await _organization_with_key(app, parent_id=first["id"])
    response = await tenant.client.get("/v1/organizations")
    assert response.status_code == 200, response.text
    listed = response.json()
    assert [item["id"] for item in listed["data"]] == [
        grandchild_id,
        second["id"],
        first["id"],
        tenant.organization_id,
    ]
    assert listed["hasMore"] is False and listed["nextCursor"] is None


async def test_list_pages_through_the_tree(tenant):
    children = [await _create_child(tenant.client, name=f"Child {n}") for n in range(4)]
    expected = [child["id"] for child in reversed(children)] + [tenant.organization_id]
    seen: list[str] = []
    cursor = None
    for _ in range(5):
        params = {"limit": 2, **({"cursor": cursor} if cursor else {})}
        page = (await tenant.client.get("/v1/organizations", params=params)).json()
        seen += [item["id"] for item in page["data"]]
        cursor = page["nextCursor"]
        if not page["hasMore"]:
            break
    assert seen == expected


async def test_caller_never_sees_another_tree(make_tenant):
    first, second = await make_tenant(), await make_tenant()
    child = await _create_child(first.client)
    listed = (await second.client.get("/v1/organizations")).json()["data"]
    assert [item["id"] for item in listed] == [second.organization_id]
    for other in (child["id"], first.organization_id):
        assert_error(await second.client.get(f"/v1/organizations/{other}"), 404, "not_found")


async def test_a_child_sees_its_own_subtree_but_not_its_parent_or_siblings(tenant, app):
    sibling = await _create_child(tenant.client, name="Sibling")
    child_id, child_secret = await _organization_with_key(app, parent_id=tenant.organization_id)
    grandchild_id, _ = await _organization_with_key(app, parent_id=child_id)
    async with client_for(app, bearer(child_secret)) as child:
        listed = (await child.get("/v1/organizations")).json()["data"]
        assert [item["id"] for item in listed] == [grandchild_id, child_id]
        assert (await child.get(f"/v1/organizations/{grandchild_id}")).status_code == 200
        for hidden in (tenant.organization_id, sibling["id"]):
            assert_error(await child.get(f"/v1/organizations/{hidden}"), 404, "not_found")
        current = (await child.get("/v1/organizations/current")).json()
        assert current["parentId"] == tenant.organization_id


@pytest.mark.parametrize(
    "organization_id",
    ["org_nope", "cus_01jd3x0p6x9e3k2v1m8q4r7s5t", "x" * 300, "ORG_01JD3X0P6X9E3K2V1M8Q4R7S5T"],
)
async def test_unknown_or_malformed_organization_id_is_not_found(tenant, organization_id):
    response = await tenant.client.get(f"/v1/organizations/{organization_id}")
    assert_error(response, 404, "not_found")


async def test_well_formed_but_unknown_organization_id_is_not_found(tenant):
    response = await tenant.client.get(f"/v1/organizations/{new_id('org')}")
    assert_error(response, 404, "not_found")


async def test_tree_depth_is_bounded(tenant, app):
    parent_id, secret = tenant.organization_id, tenant.secret
    for level in range(repository.organization_depth_max):
        parent_id, secret = await _organization_with_key(
            app, parent_id=parent_id, name=f"Level {level + 1}"
        )
    async with client_for(app, bearer(secret)) as deepest:
        assert_error(
            await deepest.post("/v1/organizations", json={"name": "Too deep"}), 409, "conflict"
        )
    listed = (await tenant.client.get("/v1/organizations", params={"limit": 250})).json()["data"]
    assert len(listed) == repository.organization_depth_max + 1
