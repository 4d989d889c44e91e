"""Agents as resources (API.md §5 "Agents", §8 "Agent create"): create, read, list,
update, pause and resume, revoke, keys, spend, and the events they emit."""

from __future__ import annotations

from tests.agents.conftest import make_owner, pay
from tests.auth.credentials import bearer, console_token, key_secret
from tests.conftest import assert_error, client_for
from tests.support import create_individual
from tests.transfers.conftest import amount, create, fetch


async def test_create_answers_the_agent_with_defaults(owner):
    agent = await owner.create_agent(limits=None, destinationAllowlist=[])
    assert agent["id"].startswith("agt_")
    assert agent["organizationId"] == owner.tenant.organization_id
    assert agent["customerId"] == owner.customer.id
    assert agent["sourceAccountId"] == owner.usd_account
    assert agent["limits"] == {
        "currency": "USD",
        "perTransfer": None,
        "daily": None,
        "monthly": None,
        "dailyPaymentCount": None,
    }
    assert agent["destinationAllowlist"] == []
    assert agent["overLimitAction"] == "REJECT" and agent["status"] == "ACTIVE"
    assert agent["newPayeeAction"] == "ALLOW"
    assert agent["description"] is None and agent["revokedAt"] is None
    created = await owner.events("agent.created")
    assert [event.data["id"] for event in created] == [agent["id"]]
    assert set(created[0].tags) == {agent["id"], owner.customer.id}


async def test_create_keeps_every_field_sent(owner):
    agent = await owner.create_agent(
        description="Pays supplier invoices",
        overLimitAction="REQUEST_APPROVAL",
        newPayeeAction="REQUEST_APPROVAL",
        limits={
            "currency": "USD",
            "perTransfer": "1",
            "daily": "0",
            "monthly": "99",
            "dailyPaymentCount": 3,
        },
        destinationAllowlist=[
            {"type": "counterparty", "id": owner.counterparty_id},
            {"type": "external_account", "id": owner.payee_account_id},
            {"type": "counterparty", "id": owner.counterparty_id},
        ],
    )
    assert agent["description"] == "Pays supplier invoices"
    assert agent["limits"] == {
        "currency": "USD",
        "perTransfer": "1",
        "daily": "0",
        "monthly": "99",
        "dailyPaymentCount": 3,
    }
    assert agent["newPayeeAction"] == "REQUEST_APPROVAL"
    assert agent["destinationAllowlist"] == [
        {"type": "counterparty", "id": owner.counterparty_id},
        {"type": "external_account", "id": owner.payee_account_id},
    ]
    fetched = await owner.client.get(f"/v1/agents/{agent['id']}")
    assert fetched.json() == agent


async def test_create_needs_an_active_customer(owner):
    pending = await create_individual(owner.client)
    response = await owner.client.post(
        "/v1/agents",
        json={"customerId": pending["id"], "sourceAccountId": owner.usd_account, "name": "x"},
    )
    assert_error(response, 409, "invalid_state")


async def test_create_needs_the_customers_own_funding_account(owner, app, make_tenant):
    other = await make_owner(app, owner.tenant)
    response = await owner.client.post(
        "/v1/agents",
        json={"customerId": owner.customer.id, "sourceAccountId": other.usd_account, "name": "x"},
    )
    body = assert_error(response, 422, "validation_error")
    assert body["errors"][0]["field"] == "sourceAccountId"
    unknown = await owner.client.post(
        "/v1/agents",
        json={
            "customerId": owner.customer.id,
            "sourceAccountId": "acc_01jd3x0p6x9e3k2v1m8q4r7s5t",
            "name": "x",
        },
    )
    assert_error(unknown, 404, "not_found")
    stranger = await make_tenant()
    foreign = await stranger.client.post(
        "/v1/agents",
        json={"customerId": owner.customer.id, "sourceAccountId": owner.usd_account, "name": "x"},
    )
    assert_error(foreign, 404, "not_found")


async def test_create_refuses_bad_limits_and_allowlists(owner, app):
    other = await make_owner(app, owner.tenant)
    cases = [
        ({"limits": {"currency": "USDC"}}, "limits.currency"),
        ({"limits": {"daily": "-1"}}, "limits.daily"),
        ({"limits": {"monthly": "1.5"}}, "limits.monthly"),
        ({"limits": {"perTransfer": 100}}, "limits.perTransfer"),
        ({"overLimitAction": "ASK"}, "overLimitAction"),
        ({"destinationAllowlist": [{"type": "counterparty", "id": "ext_x"}]}, None),
        ({"destinationAllowlist": [{"type": "wallet", "id": "ewa_x"}]}, None),
        (
            {"destinationAllowlist": [{"type": "counterparty", "id": other.counterparty_id}]},
            "destinationAllowlist.0.id",
        ),
        (
            {"destinationAllowlist": [{"type": "external_account", "id": other.payee_account_id}]},
            "destinationAllowlist.0.id",
        ),
        ({"name": ""}, "name"),
        ({"status": "ACTIVE"}, "status"),
    ]
    for overrides, field in cases:
        body = {
            "customerId": owner.customer.id,
            "sourceAccountId": owner.usd_account,
            "name": "bot",
            **overrides,
        }
        refused = assert_error(
            await owner.client.post("/v1/agents", json=body), 422, "validation_error"
        )
        if field is not None:
            assert field in {error["field"] for error in refused["errors"]}, (overrides, refused)
    unknown_payee = await owner.client.post(
        "/v1/agents",
        json={
            "customerId": owner.customer.id,
            "sourceAccountId": owner.usd_account,
            "name": "bot",
            "destinationAllowlist": [
                {"type": "counterparty", "id": "cp_01jd3x0p6x9e3k2v1m8q4r7s5t"}
            ],
        },
    )
    assert_error(unknown_payee, 404, "not_found")


async def test_wallet_payees_are_accepted_in_the_allowlist(owner):
    wallet = await owner.customer.wallet()
    agent = await owner.create_agent(
        destinationAllowlist=[{"type": "external_wallet", "id": wallet}]
    )
    assert agent["destinationAllowlist"] == [{"type": "external_wallet", "id": wallet}]


async def test_update_changes_only_the_fields_sent_and_emits_once(owner):
    agent = await owner.create_agent(description="first")
    changed = await owner.client.patch(
        f"/v1/agents/{agent['id']}",
        json={
            "name": "Renamed",
            "limits": {"monthly": "2000000"},
            "overLimitAction": "REQUEST_APPROVAL",
        },
    )
    assert changed.status_code == 200, changed.text
    body = changed.json()
    assert body["name"] == "Renamed" and body["description"] == "first"
    assert body["limits"] == {
        "currency": "USD",
        "perTransfer": "50000",
        "daily": "100000",
        "monthly": "2000000",
        "dailyPaymentCount": None,
    }
    assert body["overLimitAction"] == "REQUEST_APPROVAL"
    cleared = await owner.client.patch(f"/v1/agents/{agent['id']}", json={"description": None})
    assert cleared.json()["description"] is None
    same = await owner.client.patch(f"/v1/agents/{agent['id']}", json={"name": "Renamed"})
    assert same.status_code == 200
    assert len(await owner.events("agent.updated")) == 2


async def test_fixed_fields_cannot_change(owner, app):
    other = await make_owner(app, owner.tenant)
    agent = await owner.create_agent()
    path = f"/v1/agents/{agent['id']}"
    for body, field in (
        ({"customerId": other.customer.id}, "customerId"),
        ({"sourceAccountId": owner.customer.accounts["USDC"]}, "sourceAccountId"),
        ({"limits": {"currency": "USDC"}}, "limits.currency"),
    ):
        refused = assert_error(await owner.client.patch(path, json=body), 422, "validation_error")
        assert refused["errors"][0]["field"] == field
        assert "cannot be changed" in refused["errors"][0]["message"]
    unchanged = await owner.client.patch(
        path, json={"customerId": owner.customer.id, "limits": {"currency": "USD"}}
    )
    assert unchanged.status_code == 200


async def test_null_is_refused_where_it_would_mean_nothing(owner):
    agent = await owner.create_agent()
    path = f"/v1/agents/{agent['id']}"
    for field in (
        "name",
        "limits",
        "destinationAllowlist",
        "overLimitAction",
        "status",
        "customerId",
        "sourceAccountId",
    ):
        refused = assert_error(
            await owner.client.patch(path, json={field: None}), 422, "validation_error"
        )
        assert refused["errors"][0]["field"] == field
    assert (await owner.client.get(path)).json() == agent


async def test_status_accepts_active_and_paused_in_either_case(owner):
    agent = await owner.create_agent()
    path = f"/v1/agents/{agent['id']}"
    assert (await owner.client.patch(path, json={"status": "Paused"})).json()["status"] == "PAUSED"
    assert (await owner.client.patch(path, json={"status": "active"})).json()["status"] == "ACTIVE"
    for value in ("REVOKED", "gone"):
        assert_error(
            await owner.client.patch(path, json={"status": value}), 422, "validation_error"
        )


async def test_revoke_is_irreversible_and_revokes_every_key_at_once(owner, app):
    agent = await owner.create_agent()
    first, second = await owner.agent_key(agent["id"]), await owner.agent_key(agent["id"])
    client = client_for(app, bearer(first["secret"]))
    await pay(client, owner.payment(1_000))
    revoked = await owner.client.post(f"/v1/agents/{agent['id']}/revoke")
    assert revoked.status_code == 200
    assert revoked.json()["status"] == "REVOKED" and revoked.json()["revokedAt"] is not None
    for key in (first, second):
        assert_error(
            await client_for(app, bearer(key["secret"])).get("/v1/transfers"), 401, "unauthorized"
        )
    keys = (await owner.client.get(f"/v1/agents/{agent['id']}/keys")).json()["data"]
    assert all(key["revokedAt"] is not None for key in keys)
    path = f"/v1/agents/{agent['id']}"
    assert_error(await owner.client.patch(path, json={"status": "active"}), 409, "invalid_state")
    assert_error(await owner.client.post(f"{path}/keys", json={}), 409, "invalid_state")
    again = await owner.client.post(f"{path}/revoke")
    assert again.status_code == 200 and again.json()["revokedAt"] == revoked.json()["revokedAt"]
    assert len(await owner.events("agent.revoked")) == 1


async def test_agent_keys_are_shown_once_and_listed_without_secret(owner):
    agent = await owner.create_agent()
    created = await owner.agent_key(agent["id"])
    assert created["secret"].startswith("sk_sandbox_agent_")
    assert len(created["secret"]) == len("sk_sandbox_agent_") + 40
    assert created["prefix"] == created["secret"][: len("sk_sandbox_agent_") + 6]
    assert created["scopes"] == [
        "accounts:read",
        "customers:read",
        "transfers:read",
        "transfers:write",
    ]
    assert created["agentId"] == agent["id"] and created["name"] == "bot key"
    unnamed = await owner.client.post(f"/v1/agents/{agent['id']}/keys")
    assert unnamed.status_code == 201 and unnamed.json()["name"] == agent["name"]
    listed = (await owner.client.get(f"/v1/agents/{agent['id']}/keys")).json()["data"]
    assert [key["id"] for key in listed] == [unnamed.json()["id"], created["id"]]
    assert all("secret" not in key for key in listed)
    # Agent keys are not organization keys.
    org_keys = (await owner.client.get("/v1/api-keys")).json()["data"]
    assert created["id"] not in {key["id"] for key in org_keys}


async def test_revoking_one_key_leaves_the_others(owner, app):
    agent = await owner.create_agent()
    first, second = await owner.agent_key(agent["id"]), await owner.agent_key(agent["id"])
    deleted = await owner.client.delete(f"/v1/agents/{agent['id']}/keys/{first['id']}")
    assert deleted.status_code == 204
    assert_error(
        await client_for(app, bearer(first["secret"])).get("/v1/transfers"), 401, "unauthorized"
    )
    alive = await client_for(app, bearer(second["secret"])).get("/v1/transfers")
    assert alive.status_code == 200
    again = await owner.client.delete(f"/v1/agents/{agent['id']}/keys/{first['id']}")
    assert again.status_code == 204
    missing = await owner.client.delete(
        f"/v1/agents/{agent['id']}/keys/key_01jd3x0p6x9e3k2v1m8q4r7s5t"
    )
    assert_error(missing, 404, "not_found")


async def test_list_is_newest_first_and_filters_by_customer(owner, app):
    other = await make_owner(app, owner.tenant)
    first = await owner.create_agent()
    second = await owner.create_agent(name="Second")
    third = await other.create_agent()
    listed = (await owner.client.get("/v1/agents")).json()
    assert [agent["id"] for agent in listed["data"]] == [third["id"], second["id"], first["id"]]
    mine = (await owner.client.get(f"/v1/agents?customerId={owner.customer.id}")).json()
    assert [agent["id"] for agent in mine["data"]] == [second["id"], first["id"]]
    paged = (await owner.client.get("/v1/agents?limit=1")).json()
    assert paged["hasMore"] and paged["nextCursor"] == third["id"]
    assert_error(await owner.client.get("/v1/agents?customerId=nope"), 422, "validation_error")


async def test_spend_shows_each_window_with_its_reset(owner):
    agent = await owner.create_agent(limits={"daily": "100000"})
    client = await owner.agent_client(agent["id"])
    await pay(client, owner.payment(30_000))
    spend = (await owner.client.get(f"/v1/agents/{agent['id']}/spend")).json()
    assert spend == {
        "agentId": agent["id"],
        "currency": "USD",
        "windows": [
            {
                "window": "day",
                "limit": "100000",
                "used": "30000",
                "remaining": "70000",
                "resetsAt": "2026-11-19T00:00:00.000Z",
            },
            {
                "window": "month",
                "limit": None,
                "used": "30000",
                "remaining": None,
                "resetsAt": "2026-12-01T00:00:00.000Z",
            },
        ],
        "payments": {
            "window": "day",
            "limit": None,
            "used": 1,
            "remaining": None,
            "resetsAt": "2026-11-19T00:00:00.000Z",
        },
    }


async def test_restricted_keys_need_agents_manage_and_cannot_create(owner, app):
    agent = await owner.create_agent()
    reader = client_for(app, bearer(await key_secret(owner.tenant, ["transfers:read"])))
    assert_error(await reader.get("/v1/agents"), 403, "forbidden")
    assert_error(await reader.get(f"/v1/agents/{agent['id']}"), 403, "forbidden")
    manager = client_for(app, bearer(await key_secret(owner.tenant, ["agents:manage"])))
    assert (await manager.get(f"/v1/agents/{agent['id']}/spend")).status_code == 200
    paused = await manager.patch(f"/v1/agents/{agent['id']}", json={"status": "paused"})
    assert paused.status_code == 200
    create = await manager.post(
        "/v1/agents",
        json={"customerId": owner.customer.id, "sourceAccountId": owner.usd_account, "name": "x"},
    )
    assert_error(create, 403, "forbidden")
    # Issuing a key grants transfers:write; a key without it cannot hand it out.
    assert_error(await manager.post(f"/v1/agents/{agent['id']}/keys"), 403, "forbidden")
    console = client_for(app, bearer(await console_token(owner.tenant)))
    made = await console.post(
        "/v1/agents",
        json={"customerId": owner.customer.id, "sourceAccountId": owner.usd_account, "name": "x"},
    )
    assert made.status_code == 201


async def test_another_organizations_agent_is_not_found(owner, make_tenant):
    agent = await owner.create_agent()
    stranger = await make_tenant()
    for response in (
        await stranger.client.get(f"/v1/agents/{agent['id']}"),
        await stranger.client.patch(f"/v1/agents/{agent['id']}", json={"name": "mine"}),
        await stranger.client.post(f"/v1/agents/{agent['id']}/revoke"),
        await stranger.client.get(f"/v1/agents/{agent['id']}/spend"),
        await stranger.client.post(f"/v1/agents/{agent['id']}/keys"),
        await stranger.client.get("/v1/agents/not-an-id"),
    ):
        assert_error(response, 404, "not_found")
    assert (await stranger.client.get("/v1/agents")).json()["data"] == []


async def test_an_agent_key_sees_only_the_transfers_of_its_account(owner):
    """An agent's key is bound to its source account: GET and lists (every filter, every
    page) show the transfers from, to or returned to it, and no other of its customer's."""
    agent = await owner.create_agent()
    bot = await owner.agent_client(agent["id"])
    mine = [
        await create(owner.client, owner.payment(100 + index, customerId=owner.customer.id))
        for index in range(3)
    ]
    wallet = await owner.customer.wallet()
    other = await create(
        owner.client,
        {
            "customerId": owner.customer.id,
            "source": {"currency": "USDC", "paymentRail": "ETHEREUM"},
            "destination": {"externalAccountId": wallet, "currency": "USDC"},
            "amount": amount("USDC", 100),
        },
    )
    for listing in ("/v1/transfers", "/v1/transfers?status=DRAFT", "/v1/transfers?limit=1"):
        seen: list[str] = []
        cursor = ""
        while True:
            page = (await bot.get(listing + ("&" if "?" in listing else "?") + cursor)).json()
            seen += [transfer["id"] for transfer in page["data"]]
            if not page["hasMore"]:
                break
            cursor = f"cursor={page['nextCursor']}"
        assert seen == [transfer["id"] for transfer in reversed(mine)], listing
    assert (await bot.get(f"/v1/transfers/{mine[0]['id']}")).json() == await fetch(
        owner.client, mine[0]["id"]
    )
    assert_error(await bot.get(f"/v1/transfers/{other['id']}"), 404, "not_found")
    owners_view = [t["id"] for t in (await owner.client.get("/v1/transfers")).json()["data"]]
    assert other["id"] in owners_view
