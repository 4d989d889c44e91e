"""Agent policies (issue 25, API.md §9): `dailyPaymentCount`, at most this many payments
submitted per UTC day, counted in the same guarded write as the spend; and
`newPayeeAction` REQUEST_APPROVAL, a payment to a payee the agent never paid waits for an
owner's approval."""

from __future__ import annotations

import asyncio

import pytest

from tests.agents.conftest import pay, submit_new
from tests.conftest import assert_error
from tests.parties.helpers import create_account

payment_minor = 1_000


async def _approve(owner, transfer_id: str, decision: str = "APPROVE") -> dict:
    response = await owner.client.post(
        f"/v1/transfers/{transfer_id}/agent-approval", json={"decision": decision}
    )
    assert response.status_code == 200, response.text
    return response.json()


async def _payments_today(owner, agent_id: str) -> dict:
    spend = (await owner.client.get(f"/v1/agents/{agent_id}/spend")).json()
    return spend["payments"]


# --- dailyPaymentCount ---------------------------------------------------------------------


async def test_the_count_refuses_the_payment_after_the_limit(owner):
    agent = await owner.create_agent(limits={"dailyPaymentCount": 2})
    assert agent["limits"]["dailyPaymentCount"] == 2
    client = await owner.agent_client(agent["id"])
    await pay(client, owner.payment(payment_minor))
    await pay(client, owner.payment(payment_minor))
    body = assert_error(
        await submit_new(client, owner.payment(payment_minor)), 403, "agent_limit_exceeded"
    )
    assert body["denial"] == {
        "code": "daily_count_exceeded",
        "message": body["denial"]["message"],
        "window": "day",
        "limit": 2,
        "used": 2,
        "remaining": 0,
        "attemptedAmount": "10.00",
        "currency": "USD",
    }
    assert "dailyPaymentCount" in body["hint"]
    assert await _payments_today(owner, agent["id"]) == {
        "window": "day",
        "limit": 2,
        "used": 2,
        "remaining": 0,
        "resetsAt": "2026-11-19T00:00:00.000Z",
    }
    # Only the two admitted payments are held on the funding account.
    assert (await owner.customer.balance("USD"))["available"] == 100_000_000 - 2 * payment_minor


async def test_an_approval_agent_parks_the_payment_over_the_count(owner):
    agent = await owner.create_agent(
        overLimitAction="REQUEST_APPROVAL", limits={"dailyPaymentCount": 1}
    )
    client = await owner.agent_client(agent["id"])
    await pay(client, owner.payment(payment_minor))
    draft = (await client.post("/v1/transfers", json=owner.payment(payment_minor))).json()
    body = assert_error(
        await client.post(f"/v1/transfers/{draft['id']}/submit"), 403, "agent_approval_required"
    )
    assert body["transferId"] == draft["id"]
    assert body["denial"]["code"] == "daily_count_exceeded"
    assert (body["denial"]["limit"], body["denial"]["used"]) == (1, 1)
    requested = await owner.events("transfer.approval_requested")
    assert [event.data["id"] for event in requested] == [draft["id"]]
    assert requested[0].data["denial"]["code"] == "daily_count_exceeded"
    approved = await _approve(owner, draft["id"])
    assert approved["status"] == "PENDING"
    # The approved payment counts too, past the limit.
    assert (await _payments_today(owner, agent["id"]))["used"] == 2


async def test_the_count_resets_on_the_next_utc_day_of_the_sandbox_clock(owner):
    agent = await owner.create_agent(limits={"dailyPaymentCount": 1})
    client = await owner.agent_client(agent["id"])
    await pay(client, owner.payment(payment_minor))
    assert_error(
        await submit_new(client, owner.payment(payment_minor)), 403, "agent_limit_exceeded"
    )
    moved = await owner.client.post(
        "/v1/sandbox/clock/advance", json={"to": "2026-11-19T00:00:00Z"}
    )
    assert moved.status_code == 200, moved.text
    await pay(client, owner.payment(payment_minor))
    payments = await _payments_today(owner, agent["id"])
    assert payments["used"] == 1 and payments["resetsAt"] == "2026-11-20T00:00:00.000Z"


async def test_a_cancelled_payment_gives_its_count_back(owner):
    agent = await owner.create_agent(limits={"dailyPaymentCount": 1})
    client = await owner.agent_client(agent["id"])
    paid = await pay(client, owner.payment(payment_minor))
    cancelled = await owner.client.post(f"/v1/transfers/{paid['id']}/cancel", json={})
    assert cancelled.status_code == 200, cancelled.text
    assert (await _payments_today(owner, agent["id"]))["used"] == 0
    await pay(client, owner.payment(payment_minor))


async def test_concurrent_payments_on_postgresql_admit_exactly_the_count(owner, backend):
    if backend == "sqlite":
        pytest.skip("row locks are PostgreSQL's; SQLite serialises writers")
    agent = await owner.create_agent(limits={"dailyPaymentCount": 5})
    client = await owner.agent_client(agent["id"])
    drafts = []
    for _ in range(30):
        created = await client.post("/v1/transfers", json=owner.payment(payment_minor))
        assert created.status_code == 201, created.text
        drafts.append(created.json()["id"])
    answers = await asyncio.gather(
        *(client.post(f"/v1/transfers/{draft}/submit") for draft in drafts)
    )
    accepted = [answer for answer in answers if answer.status_code == 200]
    for answer in answers:
        if answer.status_code != 200:
            body = assert_error(answer, 403, "agent_limit_exceeded")
            assert body["denial"]["code"] == "daily_count_exceeded"
    assert len(accepted) == 5
    assert (await _payments_today(owner, agent["id"]))["used"] == 5
    assert (await owner.customer.balance("USD"))["available"] == 100_000_000 - 5 * payment_minor


async def test_patch_sets_and_clears_the_count(owner):
    agent = await owner.create_agent()
    path = f"/v1/agents/{agent['id']}"
    changed = await owner.client.patch(path, json={"limits": {"dailyPaymentCount": 7}})
    assert changed.status_code == 200, changed.text
    assert changed.json()["limits"]["dailyPaymentCount"] == 7
    assert changed.json()["limits"]["daily"] == "100000"
    cleared = await owner.client.patch(path, json={"limits": {"dailyPaymentCount": None}})
    assert cleared.json()["limits"]["dailyPaymentCount"] is None


# --- newPayeeAction -----------------------------------------------------------------------


async def test_a_new_payee_parks_until_approved_then_passes(owner):
    agent = await owner.create_agent(newPayeeAction="REQUEST_APPROVAL")
    assert agent["newPayeeAction"] == "REQUEST_APPROVAL"
    client = await owner.agent_client(agent["id"])
    draft = (await client.post("/v1/transfers", json=owner.payment(payment_minor))).json()
    body = assert_error(
        await client.post(f"/v1/transfers/{draft['id']}/submit"), 403, "agent_approval_required"
    )
    assert body["denial"] == {
        "code": "new_payee",
        "message": body["denial"]["message"],
        "window": "payee",
        "payee": {"type": "external_account", "id": owner.payee_account_id},
        "attemptedAmount": "10.00",
        "currency": "USD",
    }
    requested = await owner.events("transfer.approval_requested")
    assert requested[0].data["denial"]["code"] == "new_payee"
    # Nothing counted while it waits.
    assert (await _payments_today(owner, agent["id"]))["used"] == 0
    approved = await _approve(owner, draft["id"])
    assert approved["status"] == "PENDING"
    # Known now: the next payment to it passes.
    await pay(client, owner.payment(payment_minor))
    # Another account of the same counterparty is another payee.
    other = await create_account(owner.client, {"counterpartyId": owner.counterparty_id})
    again = owner.payment(payment_minor)
    again["destination"]["externalAccountId"] = other["id"]
    body = assert_error(await submit_new(client, again), 403, "agent_approval_required")
    assert body["denial"]["code"] == "new_payee"


async def test_a_declined_new_payee_payment_leaves_the_payee_new(owner):
    agent = await owner.create_agent(newPayeeAction="REQUEST_APPROVAL")
    client = await owner.agent_client(agent["id"])
    draft = (await client.post("/v1/transfers", json=owner.payment(payment_minor))).json()
    await client.post(f"/v1/transfers/{draft['id']}/submit")
    declined = await _approve(owner, draft["id"], "DECLINE")
    assert declined["status"] == "CANCELLED"
    body = assert_error(
        await submit_new(client, owner.payment(payment_minor)), 403, "agent_approval_required"
    )
    assert body["denial"]["code"] == "new_payee"


async def test_a_rejecting_agent_over_a_limit_is_refused_not_parked_for_a_new_payee(owner):
    agent = await owner.create_agent(newPayeeAction="REQUEST_APPROVAL")
    client = await owner.agent_client(agent["id"])
    body = assert_error(
        await submit_new(client, owner.payment(60_000)), 403, "agent_limit_exceeded"
    )
    assert body["denial"]["code"] == "per_transfer_limit_exceeded"


async def test_allow_is_the_default_and_pays_new_payees_at_once(owner):
    agent = await owner.create_agent()
    assert agent["newPayeeAction"] == "ALLOW"
    client = await owner.agent_client(agent["id"])
    paid = await pay(client, owner.payment(payment_minor))
    assert paid["status"] == "PENDING"
    assert await owner.events("transfer.approval_requested") == []


async def test_patch_switches_the_new_payee_action(owner):
    agent = await owner.create_agent()
    client = await owner.agent_client(agent["id"])
    await pay(client, owner.payment(payment_minor))
    path = f"/v1/agents/{agent['id']}"
    changed = await owner.client.patch(path, json={"newPayeeAction": "REQUEST_APPROVAL"})
    assert changed.status_code == 200, changed.text
    assert changed.json()["newPayeeAction"] == "REQUEST_APPROVAL"
    # Paid before the switch: known.
    await pay(client, owner.payment(payment_minor))


# --- Validation ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fields",
    [
        {"limits": {"dailyPaymentCount": 0}},
        {"limits": {"dailyPaymentCount": -1}},
        {"limits": {"dailyPaymentCount": "5"}},
        {"limits": {"dailyPaymentCount": 1.5}},
        {"limits": {"dailyPaymentCount": True}},
        {"limits": {"dailyPaymentCount": 10**12}},
        {"newPayeeAction": "MAYBE"},
        {"newPayeeAction": None},
    ],
)
async def test_bad_values_are_refused_and_nothing_is_written(owner, fields):
    before = (await owner.client.get("/v1/agents")).json()["data"]
    body = {
        "customerId": owner.customer.id,
        "sourceAccountId": owner.usd_account,
        "name": "Invoice bot",
        **fields,
    }
    if fields != {"newPayeeAction": None}:
        assert_error(await owner.client.post("/v1/agents", json=body), 422, "validation_error")
        assert (await owner.client.get("/v1/agents")).json()["data"] == before
    agent = await owner.create_agent()
    path = f"/v1/agents/{agent['id']}"
    assert_error(await owner.client.patch(path, json=fields), 422, "validation_error")
    assert (await owner.client.get(path)).json() == agent
