"""The audit chain over HTTP (issue 25 item 4, API.md 9): every agent decision appended in
its own transaction (a denial in one of its own after the rollback), listed with filters,
exported as JSON lines, read by an agent's key only for its own agent, and verified."""

from __future__ import annotations

import itertools
import json

from corridor.audit import rules
from corridor.audit import service as audit
from tests.agents.conftest import pay, submit_new
from tests.agents.test_mandates import create_mandate
from tests.auth.credentials import bearer
from tests.conftest import assert_error, client_for


async def _all(client, **params) -> list[dict]:
    items: list[dict] = []
    cursor = None
    while True:
        query = {**params, "limit": 100, **({"cursor": cursor} if cursor else {})}
        page = await client.get("/v1/audit-events", params=query)
        assert page.status_code == 200, page.text
        body = page.json()
        items += body["data"]
        if not body["hasMore"]:
            return sorted(items, key=lambda item: item["sequence"])
        cursor = body["nextCursor"]


async def test_every_agent_decision_is_on_the_chain_and_the_chain_verifies(owner, app):
    agent = await owner.create_agent(overLimitAction="REQUEST_APPROVAL")
    key = await owner.agent_key(agent["id"])
    client = client_for(app, bearer(key["secret"]))
    paid = await pay(client, owner.payment(10_000))
    parked = await submit_new(client, owner.payment(60_000))
    assert_error(parked, 403, "agent_approval_required")
    parked_id = parked.json()["transferId"]
    approved = await owner.client.post(
        f"/v1/transfers/{parked_id}/agent-approval", json={"decision": "APPROVE"}
    )
    assert approved.status_code == 200, approved.text
    declined_draft = await submit_new(client, owner.payment(70_000))
    declined_id = declined_draft.json()["transferId"]
    declined = await owner.client.post(
        f"/v1/transfers/{declined_id}/agent-approval",
        json={"decision": "DECLINE", "reason": "not this month"},
    )
    assert declined.status_code == 200, declined.text
    # Denied: the payee is not on the allowlist of a REJECT agent; the submit rolls back,
    # its record stays.
    strict = await owner.create_agent(destinationAllowlist=[])
    strict_client = await owner.agent_client(strict["id"])
    denied = await submit_new(strict_client, owner.payment(1_000))
    assert_error(denied, 403, "agent_destination_not_allowed")
    revoked = await owner.client.delete(f"/v1/agents/{agent['id']}/keys/{key['id']}")
    assert revoked.status_code in (200, 204), revoked.text

    items = await _all(owner.client)
    assert [item["sequence"] for item in items] == list(range(1, len(items) + 1))
    mine = [item for item in items if item["agentId"] == agent["id"]]
    assert [(item["kind"], item["outcome"]) for item in mine] == [
        ("agent.created", "created"),
        ("agent.key.issued", "issued"),
        ("agent.payment.allowed", "allowed"),
        ("agent.payment.parked", "parked"),
        ("agent.approval.approved", "approved"),
        ("agent.payment.parked", "parked"),
        ("agent.approval.declined", "declined"),
        ("agent.key.revoked", "revoked"),
    ]
    allowed = mine[2]
    assert allowed["transferId"] == paid["id"]
    assert allowed["actor"] == {"type": "agent_key", "id": key["id"]}
    assert allowed["detail"] == {"amount": "10000", "currency": "USD"}
    assert mine[3]["detail"]["code"] == "per_transfer_limit_exceeded"
    assert mine[4]["actor"]["type"] == "organization_key"
    assert mine[6]["detail"]["reason"] == "not this month"
    assert mine[1]["detail"]["keyId"] == key["id"] and "secret" not in json.dumps(mine[1])
    strict_items = [item for item in items if item["agentId"] == strict["id"]]
    denial = strict_items[-1]
    assert denial["kind"] == "agent.payment.denied" and denial["outcome"] == "denied"
    assert denial["detail"]["code"] == "agent_destination_not_allowed"
    assert denial["transferId"] is not None
    # Each record's hash is its content's; each links to the one before.
    assert items[0]["previousHash"] == rules.GENESIS_HASH
    for before, after in itertools.pairwise(items):
        assert after["previousHash"] == before["hash"]
    assert rules.verify(items).holds
    async with app.state.database.session(write=False) as session:
        checked = await audit.verify_chain(session, owner.tenant.organization_id)
    assert checked.holds and checked.count == len(items)


async def test_filters_pages_and_the_agent_keys_own_view(owner, app):
    first = await owner.create_agent()
    second = await owner.create_agent(name="Other bot")
    first_client = await owner.agent_client(first["id"])
    second_client = await owner.agent_client(second["id"])
    paid = await pay(first_client, owner.payment(1_000))
    await pay(second_client, owner.payment(2_000))

    by_agent = await _all(owner.client, agentId=first["id"])
    assert {item["agentId"] for item in by_agent} == {first["id"]}
    by_kind = await _all(owner.client, kind="agent.payment.allowed")
    assert {item["agentId"] for item in by_kind} == {first["id"], second["id"]}
    by_transfer = await _all(owner.client, transferId=paid["id"])
    assert [item["kind"] for item in by_transfer] == ["agent.payment.allowed"]
    later = await _all(owner.client, createdAfter="2099-01-01T00:00:00Z")
    assert later == []
    one = (await owner.client.get("/v1/audit-events", params={"limit": 1})).json()
    assert len(one["data"]) == 1 and one["hasMore"] is True
    got = await owner.client.get(f"/v1/audit-events/{one['data'][0]['id']}")
    assert got.json() == one["data"][0]

    # An agent's key reads its own agent's records, never another's.
    own = await _all(first_client)
    assert own and {item["agentId"] for item in own} == {first["id"]}
    assert await _all(first_client, agentId=second["id"]) == []
    other = by_kind[-1] if by_kind[-1]["agentId"] == second["id"] else by_kind[0]
    assert_error(await first_client.get(f"/v1/audit-events/{other['id']}"), 404, "not_found")
    assert_error(
        await owner.client.get("/v1/audit-events", params={"createdAfter": "yesterday"}),
        422,
        "validation_error",
    )


async def test_export_streams_json_lines_in_sequence_order(owner, app):
    agent = await owner.create_agent()
    client = await owner.agent_client(agent["id"])
    await pay(client, owner.payment(1_000))
    response = await owner.client.get("/v1/audit-events/export")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/x-ndjson")
    lines = [json.loads(line) for line in response.text.splitlines()]
    assert [item["sequence"] for item in lines] == list(range(1, len(lines) + 1))
    assert rules.verify(lines).holds
    assert lines == await _all(owner.client)
    only = await owner.client.get("/v1/audit-events/export", params={"agentId": agent["id"]})
    assert {json.loads(line)["agentId"] for line in only.text.splitlines()} == {agent["id"]}


async def test_a_caller_bound_to_a_customer_cannot_read_the_chain(owner, app):
    bound = client_for(
        app, {**owner.tenant.headers(), "X-Corridor-On-Behalf-Of": owner.customer.id}
    )
    assert_error(await bound.get("/v1/audit-events"), 403, "forbidden")
    assert_error(await bound.get("/v1/audit-events/export"), 403, "forbidden")


async def test_a_mandate_created_consumed_refused_and_revoked_is_on_the_chain(owner, app):
    """Mandates on the chain: created and revoked by the owner, consumed by the agent's
    payment (the payment's own record names the mandate), a payment it refuses recorded
    as denied with the mandate's code; the chain still verifies."""
    agent = await owner.create_agent(requireMandate=True)
    mandate = await create_mandate(owner, agent["id"])
    async with await owner.agent_client(agent["id"]) as bot:
        paid = await pay(bot, owner.payment(5_000))
        refused = await submit_new(bot, owner.payment(6_000))
        assert_error(refused, 403, "agent_limit_exceeded")
    revoked = await owner.client.post(f"/v1/agent-mandates/{mandate['id']}/revoke")
    assert revoked.status_code == 200, revoked.text

    chain = await _all(owner.client, agentId=agent["id"])
    items = [item for item in chain if "mandate" in item["kind"] or "payment" in item["kind"]]
    kinds = [(item["kind"], item["outcome"]) for item in items]
    assert kinds == [
        ("agent.mandate.created", "created"),
        ("agent.mandate.consumed", "consumed"),
        ("agent.payment.allowed", "allowed"),
        ("agent.payment.denied", "denied"),
        ("agent.mandate.revoked", "revoked"),
    ]
    created, consumed, allowed, denied, revoke = items
    assert {created["mandateId"], consumed["mandateId"], revoke["mandateId"]} == {mandate["id"]}
    assert consumed["transferId"] == allowed["transferId"] == paid["id"]
    assert allowed["mandateId"] == mandate["id"]
    assert consumed["detail"]["used"] == "5000" and consumed["detail"]["uses"] == 1
    assert denied["detail"]["code"] == "mandate_max_per_payment_exceeded"
    assert created["actor"]["type"] == revoke["actor"]["type"] != "agent"
    assert consumed["actor"] == {"type": "agent", "id": agent["id"]}
    for earlier, later in itertools.pairwise(chain):
        if later["sequence"] == earlier["sequence"] + 1:
            assert later["previousHash"] == earlier["hash"]
    async with app.state.database.session(write=False) as session:
        checked = await audit.verify_chain(session, owner.tenant.organization_id)
    assert checked.holds and checked.count >= len(chain)
