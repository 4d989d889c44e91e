"""What an agent key may do (spec 5.3, 5.4): fixed scopes, confined to its agent's
customer and funding account; never manage agents or keys, never approve."""

from __future__ import annotations

from tests.agents.conftest import make_owner, pay
from tests.conftest import assert_error
from tests.transfers.conftest import amount

OTHER_ID = "agt_01jd3x0p6x9e3k2v1m8q4r7s5t"


async def test_agent_key_gets_403_on_every_management_and_approval_endpoint(owner):
    agent = await owner.create_agent(overLimitAction="REQUEST_APPROVAL")
    other = await owner.create_agent(name="Other")
    client = await owner.agent_client(agent["id"])
    key_id = (await owner.agent_key(agent["id"]))["id"]
    draft = (await client.post("/v1/transfers", json=owner.payment(60_000))).json()
    parked = await client.post(f"/v1/transfers/{draft['id']}/submit")
    assert_error(parked, 403, "agent_approval_required")
    create_body = {
        "customerId": owner.customer.id,
        "sourceAccountId": owner.usd_account,
        "name": "Self-made",
    }
    calls = []
    for target in (agent["id"], other["id"], OTHER_ID):
        calls += [
            ("PATCH", f"/v1/agents/{target}", {"limits": {"daily": None}}),
            ("PATCH", f"/v1/agents/{target}", {"status": "active"}),
            ("POST", f"/v1/agents/{target}/revoke", None),
            ("POST", f"/v1/agents/{target}/keys", {}),
            ("GET", f"/v1/agents/{target}/keys", None),
            ("DELETE", f"/v1/agents/{target}/keys/{key_id}", None),
        ]
    calls += [
        ("POST", "/v1/agents", create_body),
        ("POST", f"/v1/transfers/{draft['id']}/agent-approval", {"decision": "APPROVE"}),
        ("POST", f"/v1/transfers/{draft['id']}/agent-approval", {"decision": "DECLINE"}),
        ("POST", "/v1/api-keys", {"name": "escalate", "scopes": ["*"]}),
        ("GET", "/v1/api-keys", None),
        ("DELETE", f"/v1/api-keys/{key_id}", None),
        ("POST", f"/v1/transfers/{draft['id']}/review", {"decision": "APPROVE"}),
    ]
    for method, path, body in calls:
        response = await client.request(method, path, json=body)
        assert_error(response, 403, "forbidden")
    # Nothing changed: the draft still waits, the agent still has its limits and key.
    parked = (await owner.client.get(f"/v1/transfers/{draft['id']}")).json()
    assert parked["agentApprovalStatus"] == "PENDING"
    fetched = (await owner.client.get(f"/v1/agents/{agent['id']}")).json()
    assert fetched["status"] == "ACTIVE" and fetched["limits"]["daily"] == "100000"
    assert (await client.get(f"/v1/agents/{agent['id']}")).status_code == 200


async def test_agent_key_reads_only_its_own_agent(owner):
    agent = await owner.create_agent()
    other = await owner.create_agent(name="Other")
    client = await owner.agent_client(agent["id"])
    listed = (await client.get("/v1/agents")).json()["data"]
    assert [item["id"] for item in listed] == [agent["id"]]
    assert (await client.get(f"/v1/agents/{agent['id']}")).json()["id"] == agent["id"]
    assert (await client.get(f"/v1/agents/{agent['id']}/spend")).status_code == 200
    assert_error(await client.get(f"/v1/agents/{other['id']}"), 404, "not_found")
    assert_error(await client.get(f"/v1/agents/{other['id']}/spend"), 404, "not_found")


async def test_agent_key_gets_404_on_other_customers_objects(owner, app):
    other = await make_owner(app, owner.tenant)
    foreign_agent = await other.create_agent()
    foreign_transfer = (
        await other.client.post(
            "/v1/transfers", json={**other.payment(1_000), "customerId": other.customer.id}
        )
    ).json()
    agent = await owner.create_agent()
    client = await owner.agent_client(agent["id"])
    for path in (
        f"/v1/customers/{other.customer.id}",
        f"/v1/customers/{other.customer.id}/accounts",
        f"/v1/customers/{other.customer.id}/transfers",
        f"/v1/accounts/{other.usd_account}",
        f"/v1/accounts/{other.usd_account}/balance",
        f"/v1/transfers/{foreign_transfer['id']}",
        f"/v1/agents/{foreign_agent['id']}",
        f"/v1/agents/{foreign_agent['id']}/spend",
    ):
        assert_error(await client.get(path), 404, "not_found")
    for response in (
        await client.post(f"/v1/transfers/{foreign_transfer['id']}/submit"),
        await client.patch(f"/v1/transfers/{foreign_transfer['id']}", json={"remarks": "x"}),
        await client.post(f"/v1/transfers/{foreign_transfer['id']}/cancel", json={}),
    ):
        assert_error(response, 404, "not_found")
    # Paying from the other customer's account, or as it, is unknown too.
    as_other = await client.post(
        "/v1/transfers", json={**owner.payment(1_000), "customerId": other.customer.id}
    )
    assert_error(as_other, 404, "not_found")
    # Lists show only the agent's own customer.
    assert [item["id"] for item in (await client.get("/v1/customers")).json()["data"]] == [
        owner.customer.id
    ]
    assert (await client.get("/v1/transfers")).json()["data"] == []


async def test_agent_key_is_confined_to_its_funding_account(owner):
    agent = await owner.create_agent()
    client = await owner.agent_client(agent["id"])
    assert (await client.get(f"/v1/accounts/{owner.usd_account}/balance")).status_code == 200
    usdc = owner.customer.accounts["USDC"]
    assert_error(await client.get(f"/v1/accounts/{usdc}"), 404, "not_found")
    listed = (await client.get("/v1/accounts")).json()["data"]
    assert [account["id"] for account in listed] == [owner.usd_account]
    from_other_account = {
        **owner.payment(1_000),
        "source": {"accountId": usdc},
        "amount": amount("USDC", 1_000),
    }
    assert_error(await client.post("/v1/transfers", json=from_other_account), 404, "not_found")
    deposit = {**owner.payment(1_000), "source": {"paymentRail": "WIRE", "currency": "USD"}}
    assert_error(await client.post("/v1/transfers", json=deposit), 403, "forbidden")


async def test_agent_key_has_fixed_scopes(owner):
    agent = await owner.create_agent()
    client = await owner.agent_client(agent["id"])
    await pay(client, owner.payment(1_000))
    assert (await client.get(f"/v1/customers/{owner.customer.id}")).status_code == 200
    assert (await client.get(f"/v1/accounts/{owner.usd_account}/balance")).status_code == 200
    # External accounts are customer data (customers:read): the agent sees its payees.
    payee = await client.get(f"/v1/external-accounts/{owner.payee_account_id}")
    assert payee.status_code == 200
    person = {"firstName": "Grace", "lastName": "Hopper", "email": "grace@example.com"}
    for method, path, body in (
        ("POST", "/v1/customers/individual", person),
        ("PATCH", f"/v1/customers/{owner.customer.id}", {"email": "new@example.com"}),
        ("POST", "/v1/counterparties", {"customerId": owner.customer.id, "name": "x"}),
        ("GET", "/v1/counterparties", None),
        ("POST", f"/v1/sandbox/accounts/{owner.usd_account}/fund", {"amount": amount("USD", 1)}),
        ("GET", "/v1/webhooks/endpoints", None),
        ("PATCH", "/v1/organizations/current/configuration", {"accountCurrencies": ["USD"]}),
    ):
        response = await client.request(method, path, json=body)
        if response.status_code == 422:  # the body's shape is checked before the caller
            continue
        assert_error(response, 403, "forbidden")


async def test_paused_or_revoked_agent_key_cannot_submit(owner, app):
    agent = await owner.create_agent()
    client = await owner.agent_client(agent["id"])
    draft = (await client.post("/v1/transfers", json=owner.payment(1_000))).json()
    await owner.client.patch(f"/v1/agents/{agent['id']}", json={"status": "paused"})
    body = assert_error(
        await client.post(f"/v1/transfers/{draft['id']}/submit"), 403, "agent_inactive"
    )
    assert "resume" in body["hint"]
    await owner.client.post(f"/v1/agents/{agent['id']}/revoke")
    assert_error(await client.post(f"/v1/transfers/{draft['id']}/submit"), 401, "unauthorized")


async def test_live_agent_keys_do_not_work_in_sandbox(owner, app):
    from tests.auth.credentials import bearer
    from tests.conftest import client_for

    agent = await owner.create_agent()
    secret = (await owner.agent_key(agent["id"]))["secret"]
    live = secret.replace("sk_sandbox_agent_", "sk_live_agent_")
    assert_error(await client_for(app, bearer(live)).get("/v1/agents"), 401, "unauthorized")
    assert_error(
        await client_for(app, {"X-API-Key": secret + "x"}).get("/v1/agents"), 401, "unauthorized"
    )
    assert (await client_for(app, {"X-API-Key": secret}).get("/v1/agents")).status_code == 200


async def test_a_replayed_agent_key_creation_does_not_show_the_secret_again(owner, app):
    agent = await owner.create_agent()
    path = f"/v1/agents/{agent['id']}/keys"
    headers = {"Idempotency-Key": "agent-key"}
    first = await owner.client.post(path, json={"name": "bot"}, headers=headers)
    again = await owner.client.post(path, json={"name": "bot"}, headers=headers)
    assert first.status_code == again.status_code == 201, again.text
    assert again.headers["idempotent-replayed"] == "true"
    secret = first.json()["secret"]
    assert secret.startswith("sk_sandbox_agent_") and secret not in again.text
    assert again.json()["secret"] is None
    assert "revoke this key and create another" in again.json()["secretNote"]
    assert again.json()["id"] == first.json()["id"]
    listed = (await owner.client.get(path)).json()["data"]
    assert [key["id"] for key in listed].count(first.json()["id"]) == 1
