"""The caller model (API.md section 4): console sessions, unrestricted and restricted keys,
platform sessions and customer binding, first as pure rules, then over HTTP."""

from __future__ import annotations

import pytest

from corridor.auth import service as auth_service
from corridor.auth.callers import Caller, CallerKind
from corridor.auth.scopes import AGENT_KEY_SCOPES, KNOWN_SCOPES, UNRESTRICTED
from corridor.kit.clock import SystemClock
from corridor.kit.errors import CustomerBindingRequired, Forbidden
from corridor.kit.ids import new_id
from tests.auth.credentials import bearer, console_token, key_secret
from tests.conftest import assert_error, client_for
from tests.support import create_individual

ON_BEHALF_OF = "X-Corridor-On-Behalf-Of"
ORGANIZATION = "org_01jd3x0p6x9e3k2v1m8q4r7s5t"


def _caller(kind: CallerKind, scopes=(UNRESTRICTED,), **extra) -> Caller:
    return Caller(
        kind=kind,
        organization_id=ORGANIZATION,
        actor_id="key_01jd3x0p6x9e3k2v1m8q4r7s5t",
        scopes=frozenset(scopes),
        **extra,
    )


# --- Pure: corridor.auth.callers ---------------------------------------------------------


def test_console_user_may_do_everything_in_its_organization():
    console = _caller(CallerKind.CONSOLE_USER)
    assert console.is_console and console.is_unrestricted
    assert all(console.has_scope(scope) for scope in KNOWN_SCOPES)
    console.require_unrestricted("approve")
    console.require_console("review")
    assert console.require_customer_binding() is None


def test_console_user_has_every_scope_whatever_it_stores():
    assert _caller(CallerKind.CONSOLE_USER, scopes=()).has_scope("transfers:write")


def test_unrestricted_key_may_do_everything_but_console_only_actions():
    key = _caller(CallerKind.ORGANIZATION_KEY)
    assert key.is_unrestricted and not key.is_console
    assert all(key.has_scope(scope) for scope in KNOWN_SCOPES)
    key.require_unrestricted("create agents")
    with pytest.raises(Forbidden):
        key.require_console("review transfers")


def test_restricted_key_has_only_its_scopes_and_is_never_unrestricted():
    key = _caller(CallerKind.ORGANIZATION_KEY, scopes={"customers:write"})
    assert not key.is_unrestricted
    assert key.has_scope("customers:write") and key.has_scope("customers:read")
    assert not key.has_scope("transfers:read")
    with pytest.raises(Forbidden):
        key.require_scope("organizations:read")
    with pytest.raises(Forbidden):
        key.require_unrestricted("approve agent payments")
    key.require_scope("customers:read")


def test_every_known_scope_together_is_still_restricted():
    key = _caller(CallerKind.ORGANIZATION_KEY, scopes=KNOWN_SCOPES)
    assert not key.is_unrestricted
    with pytest.raises(Forbidden):
        key.require_unrestricted("create agents")


def test_platform_session_is_never_unrestricted_and_must_be_bound():
    session = _caller(CallerKind.PLATFORM_SESSION)
    assert session.has_scope("customers:read")
    assert not session.is_unrestricted
    with pytest.raises(Forbidden):
        session.require_unrestricted("create organizations")
    with pytest.raises(CustomerBindingRequired) as refused:
        session.require_customer_binding()
    assert refused.value.status == 403 and refused.value.code == "customer_binding_required"
    customer_id = new_id("cus")
    assert session.bound_to(customer_id).require_customer_binding() == customer_id


def test_agent_key_is_confined_to_its_customer_and_accounts():
    customer_id, account_id = new_id("cus"), new_id("acc")
    agent = _caller(
        CallerKind.AGENT_KEY,
        scopes=AGENT_KEY_SCOPES,
        agent_id=new_id("agt"),
        customer_id=customer_id,
        account_ids=frozenset({account_id}),
    )
    assert not agent.is_unrestricted
    assert agent.has_scope("transfers:write") and not agent.has_scope("agents:manage")
    assert agent.may_see_customer(customer_id) and not agent.may_see_customer(new_id("cus"))
    assert agent.may_see_account(account_id, customer_id)
    assert not agent.may_see_account(new_id("acc"), customer_id)
    assert not agent.may_see_account(account_id, new_id("cus"))


def test_binding_makes_a_new_caller_that_sees_one_customer():
    key = _caller(CallerKind.ORGANIZATION_KEY)
    customer_id = new_id("cus")
    bound = key.bound_to(customer_id)
    assert key.customer_id is None and bound.customer_id == customer_id
    assert key.may_see_customer(new_id("cus"))
    assert bound.may_see_customer(customer_id) and not bound.may_see_customer(new_id("cus"))
    assert bound.may_see_account(new_id("acc"), customer_id)
    assert not bound.may_see_account(new_id("acc"), new_id("cus"))
    assert bound.kind is key.kind and bound.scopes == key.scopes


# --- Credentials to callers: corridor.auth.service.authenticate --------------------------


async def _authenticate(app, credential: str) -> Caller:
    async with app.state.database.session(write=False) as session:
        return await auth_service.authenticate(
            session, credential=credential, key_environment="sandbox", now=SystemClock().now()
        )


async def test_keys_and_sessions_become_callers_of_their_kind(tenant, app):
    key = await _authenticate(app, tenant.secret)
    assert key.kind is CallerKind.ORGANIZATION_KEY
    assert key.organization_id == tenant.organization_id
    assert key.scopes == {UNRESTRICTED} and key.actor_id.startswith("key_")

    restricted = await _authenticate(app, await key_secret(tenant, ["transfers:read"]))
    assert restricted.kind is CallerKind.ORGANIZATION_KEY
    assert restricted.scopes == {"transfers:read"}

    console = await _authenticate(app, await console_token(tenant))
    assert console.kind is CallerKind.CONSOLE_USER
    assert console.actor_id.startswith("usr_") and console.is_unrestricted


async def test_keys_of_a_platform_organization_are_platform_sessions(make_tenant, app):
    platform = await make_tenant(kind="PLATFORM")
    for secret in (platform.secret, await key_secret(platform, ["customers:read"])):
        caller = await _authenticate(app, secret)
        assert caller.kind is CallerKind.PLATFORM_SESSION
        assert caller.organization_id == platform.organization_id
        assert caller.customer_id is None


async def test_console_user_of_a_platform_organization_stays_a_console_user(make_tenant, app):
    platform = await make_tenant(kind="PLATFORM")
    caller = await _authenticate(app, await console_token(platform))
    assert caller.kind is CallerKind.CONSOLE_USER


# --- Over HTTP: restricted keys ----------------------------------------------------------


def _expected(scope: str) -> dict[tuple[str, str], int]:
    """What a key holding only `scope` may do, from the scope's name alone."""
    reads_organization = scope in {"organizations:read", "organizations:write"}
    return {
        ("GET", "/v1/organizations/current"): 200 if reads_organization else 403,
        ("GET", "/v1/organizations"): 200 if reads_organization else 403,
        ("PATCH", "/v1/organizations/current"): 200 if scope == "organizations:write" else 403,
        ("GET", "/v1/api-keys"): 200 if scope == "api_keys:manage" else 403,
        ("GET", "/v1/customers"): 200 if scope in {"customers:read", "customers:write"} else 403,
        ("POST", "/v1/organizations"): 403,
    }


@pytest.mark.parametrize("scope", sorted(KNOWN_SCOPES))
async def test_restricted_key_gets_exactly_what_its_scope_names(tenant, app, scope):
    bodies = {"PATCH": {}, "POST": {"name": "Child"}}
    async with client_for(app, bearer(await key_secret(tenant, [scope]))) as restricted:
        for (method, path), status in _expected(scope).items():
            response = await restricted.request(method, path, json=bodies.get(method))
            if status == 403:
                assert_error(response, 403, "forbidden")
            else:
                assert response.status_code == status, (method, path, response.text)


async def test_key_with_several_scopes_gets_their_union(tenant, app):
    secret = await key_secret(tenant, ["organizations:read", "api_keys:manage"])
    async with client_for(app, bearer(secret)) as client:
        assert (await client.get("/v1/organizations/current")).status_code == 200
        assert (await client.get("/v1/api-keys")).status_code == 200
        assert_error(await client.get("/v1/customers"), 403, "forbidden")
        assert_error(await client.patch("/v1/organizations/current", json={}), 403, "forbidden")


async def test_unrestricted_key_and_console_may_create_children_restricted_may_not(tenant, app):
    every_scope = await key_secret(tenant, sorted(KNOWN_SCOPES))
    async with client_for(app, bearer(every_scope)) as restricted:
        assert_error(
            await restricted.post("/v1/organizations", json={"name": "C"}), 403, "forbidden"
        )
    assert (await tenant.client.post("/v1/organizations", json={"name": "C"})).status_code == 201
    async with client_for(app, bearer(await console_token(tenant))) as console:
        assert (await console.post("/v1/organizations", json={"name": "D"})).status_code == 201


# --- Over HTTP: console sessions ---------------------------------------------------------


async def test_console_session_may_grant_any_scope_and_read_everything(tenant, app):
    async with client_for(app, bearer(await console_token(tenant))) as console:
        created = await console.post("/v1/api-keys", json={"name": "all", "scopes": ["*"]})
        assert created.status_code == 201, created.text
        for path in ("/v1/organizations/current", "/v1/api-keys", "/v1/customers"):
            assert (await console.get(path)).status_code == 200, path


async def test_console_session_of_another_organization_sees_only_its_own(make_tenant, app):
    first, second = await make_tenant(), await make_tenant()
    async with client_for(app, bearer(await console_token(second))) as console:
        current = (await console.get("/v1/organizations/current")).json()
        assert current["id"] == second.organization_id
        assert_error(
            await console.get(f"/v1/organizations/{first.organization_id}"), 404, "not_found"
        )


# --- Over HTTP: platform sessions and X-Corridor-On-Behalf-Of ----------------------------


async def test_platform_session_must_be_bound_before_reading_customers(make_tenant):
    platform = await make_tenant(kind="PLATFORM")
    assert_error(await platform.client.get("/v1/customers"), 403, "customer_binding_required")


async def test_platform_session_bound_by_header_sees_only_that_customer(make_tenant, app):
    platform = await make_tenant(kind="PLATFORM")
    async with client_for(app, bearer(await console_token(platform))) as console:
        customer = await create_individual(console)
        await create_individual(console, email="other@example.com")
    headers = {ON_BEHALF_OF: customer["id"]}
    listed = await platform.client.get("/v1/customers", headers=headers)
    assert listed.status_code == 200, listed.text
    assert [item["id"] for item in listed.json()["data"]] == [customer["id"]]
    fetched = await platform.client.get(f"/v1/customers/{customer['id']}", headers=headers)
    assert fetched.status_code == 200, fetched.text


async def test_platform_session_may_still_read_its_organization(make_tenant):
    platform = await make_tenant(kind="PLATFORM")
    response = await platform.client.get("/v1/organizations/current")
    assert response.status_code == 200, response.text
    assert response.json()["kind"] == "PLATFORM"


async def test_key_bound_by_header_sees_only_that_customer(tenant):
    customer = await create_individual(tenant.client)
    other = await create_individual(tenant.client, email="other@example.com")
    headers = {ON_BEHALF_OF: customer["id"]}
    listed = (await tenant.client.get("/v1/customers", headers=headers)).json()["data"]
    assert [item["id"] for item in listed] == [customer["id"]]
    assert_error(
        await tenant.client.get(f"/v1/customers/{other['id']}", headers=headers), 404, "not_found"
    )


@pytest.mark.parametrize(
    "value",
    [
        "nope",
        "cus_",
        "cus_short",
        "acc_01jd3x0p6x9e3k2v1m8q4r7s5t",
        "CUS_01JD3X0P6X9E3K2V1M8Q4R7S5T",
        "cus_01jd3x0p6x9e3k2v1m8q4r7s5tu",
        "cus_" + "x" * 5000,
        "",
    ],
)
async def test_malformed_on_behalf_of_is_a_validation_error_naming_the_header(tenant, value):
    response = await tenant.client.get("/v1/organizations/current", headers={ON_BEHALF_OF: value})
    problem = assert_error(response, 422, "validation_error")
    assert problem["errors"][0]["field"] == ON_BEHALF_OF


async def test_unknown_customer_on_behalf_of_is_not_found(tenant):
    response = await tenant.client.get(
        "/v1/organizations/current", headers={ON_BEHALF_OF: new_id("cus")}
    )
    assert_error(response, 404, "not_found")


async def test_another_organizations_customer_on_behalf_of_is_not_found(make_tenant):
    owner = await make_tenant()
    theirs = await create_individual(owner.client)
    for stranger in (await make_tenant(), await make_tenant(kind="PLATFORM")):
        for path in ("/v1/customers", "/v1/organizations/current"):
            response = await stranger.client.get(path, headers={ON_BEHALF_OF: theirs["id"]})
            assert_error(response, 404, "not_found")
    own = await owner.client.get("/v1/customers", headers={ON_BEHALF_OF: theirs["id"]})
    assert [item["id"] for item in own.json()["data"]] == [theirs["id"]]
