"""Spend limits at submit (spec 7, 8): per transfer, UTC day, UTC month; the denial body
field by field; the allowlist and currency refusals; what counts toward spend."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import update

from corridor.models.transfer import Agent
from tests.agents.conftest import pay, submit_new
from tests.conftest import assert_error
from tests.transfers.conftest import amount


def at(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)


async def test_submit_within_limits_succeeds_and_carries_the_agent(owner):
    agent = await owner.create_agent()
    client = await owner.agent_client(agent["id"])
    draft = (await client.post("/v1/transfers", json=owner.payment(40_000))).json()
    assert draft["agentId"] == agent["id"] and draft["agentApprovalStatus"] is None
    submitted = (await client.post(f"/v1/transfers/{draft['id']}/submit")).json()
    assert submitted["status"] == "PENDING"
    assert submitted["agentId"] == agent["id"] and submitted["agentApprovalStatus"] is None


async def test_reaching_a_limit_exactly_is_allowed(owner):
    agent = await owner.create_agent(limits={"perTransfer": "50000", "daily": "100000"})
    client = await owner.agent_client(agent["id"])
    await pay(client, owner.payment(50_000))
    await pay(client, owner.payment(50_000))
    assert_error(await submit_new(client, owner.payment(1)), 403, "agent_limit_exceeded")


async def test_per_transfer_denial_omits_used_and_remaining(owner):
    agent = await owner.create_agent()
    client = await owner.agent_client(agent["id"])
    body = assert_error(
        await submit_new(client, owner.payment(50_001)), 403, "agent_limit_exceeded"
    )
    assert body["message"] == "Per-transfer limit exceeded"
    denial = body["denial"]
    assert set(denial) == {"code", "message", "window", "limit", "attemptedAmount", "currency"}
    assert denial["code"] == "per_transfer_limit_exceeded"
    assert denial["window"] == "transfer"
    assert denial["limit"] == "500.00"
    assert denial["attemptedAmount"] == "500.01"
    assert denial["currency"] == "USD"
    assert "500.01 USD" in denial["message"] and "500.00 USD" in denial["message"]
    assert "500.00 USD" in body["hint"] and "per-transfer limit" in body["hint"]


async def test_refused_submit_leaves_the_draft_as_it_was(owner):
    agent = await owner.create_agent()
    client = await owner.agent_client(agent["id"])
    draft = (await client.post("/v1/transfers", json=owner.payment(60_000))).json()
    assert_error(
        await client.post(f"/v1/transfers/{draft['id']}/submit"), 403, "agent_limit_exceeded"
    )
    after = (await client.get(f"/v1/transfers/{draft['id']}")).json()
    assert after["status"] == "DRAFT" and after["agentApprovalStatus"] is None
    assert (await owner.customer.balance("USD"))["available"] == 100_000_000


async def test_daily_denial_body_field_by_field_just_before_midnight(owner, clock):
    agent = await owner.create_agent(limits={"daily": "100000"})
    client = await owner.agent_client(agent["id"])
    clock.set(at(2026, 11, 18, 0, 0, 0))
    await pay(client, owner.payment(45_000))
    clock.set(at(2026, 11, 18, 23, 59, 59))
    await pay(client, owner.payment(50_000))
    body = assert_error(
        await submit_new(client, owner.payment(10_000)), 403, "agent_limit_exceeded"
    )
    assert body["message"] == "Daily limit exceeded"
    assert body["denial"] == {
        "code": "daily_limit_exceeded",
        "message": body["denial"]["message"],
        "window": "day",
        "limit": "1000.00",
        "used": "950.00",
        "remaining": "50.00",
        "attemptedAmount": "100.00",
        "currency": "USD",
    }
    assert "1050.00 USD" in body["denial"]["message"]
    assert "daily limit" in body["hint"] and "00:00 UTC" in body["hint"]
    assert "2026-11-19T00:00:00.000Z" in body["hint"] and "50.00 USD" in body["hint"]


async def test_a_new_utc_day_starts_at_midnight_exactly(owner, clock):
    agent = await owner.create_agent(limits={"daily": "100000"})
    client = await owner.agent_client(agent["id"])
    clock.set(at(2026, 11, 18, 23, 59, 59, 999_000))
    await pay(client, owner.payment(100_000))
    assert_error(await submit_new(client, owner.payment(1)), 403, "agent_limit_exceeded")
    clock.set(at(2026, 11, 19, 0, 0, 0))
    await pay(client, owner.payment(100_000))
    spend = (await client.get(f"/v1/agents/{agent['id']}/spend")).json()
    assert spend["windows"][0] == {
        "window": "day",
        "limit": "100000",
        "used": "100000",
        "remaining": "0",
        "resetsAt": "2026-11-20T00:00:00.000Z",
    }
    assert spend["windows"][1]["used"] == "200000"


async def test_monthly_limit_counts_every_day_of_the_month_and_resets_on_the_first(owner, clock):
    agent = await owner.create_agent(limits={"daily": "100000", "monthly": "250000"})
    client = await owner.agent_client(agent["id"])
    clock.set(at(2026, 11, 1, 0, 0, 0))
    await pay(client, owner.payment(100_000))
    clock.set(at(2026, 11, 15, 9, 30))
    await pay(client, owner.payment(100_000))
    clock.set(at(2026, 11, 30, 23, 59, 59))
    body = assert_error(
        await submit_new(client, owner.payment(60_000)), 403, "agent_limit_exceeded"
    )
    assert body["message"] == "Monthly limit exceeded"
    assert body["denial"] == {
        "code": "monthly_limit_exceeded",
        "message": body["denial"]["message"],
        "window": "month",
        "limit": "2500.00",
        "used": "2000.00",
        "remaining": "500.00",
        "attemptedAmount": "600.00",
        "currency": "USD",
    }
    assert "monthly limit" in body["hint"] and "2026-12-01T00:00:00.000Z" in body["hint"]
    # The day's counter took the refused payment in the same statement the month refused
    # it, and gave it back: the day shows nothing spent.
    spend = (await client.get(f"/v1/agents/{agent['id']}/spend")).json()
    assert spend["windows"][0]["used"] == "0"
    assert spend["windows"][1]["used"] == "200000"
    clock.set(at(2026, 12, 1, 0, 0, 0))
    await pay(client, owner.payment(60_000))
    spend = (await client.get(f"/v1/agents/{agent['id']}/spend")).json()
    assert spend["windows"][1] == {
        "window": "month",
        "limit": "250000",
        "used": "60000",
        "remaining": "190000",
        "resetsAt": "2027-01-01T00:00:00.000Z",
    }


async def test_a_day_over_the_month_boundary_keeps_each_in_its_month(owner, clock):
    agent = await owner.create_agent(limits={"monthly": "100000"})
    client = await owner.agent_client(agent["id"])
    clock.set(at(2026, 12, 31, 23, 59, 59))
    await pay(client, owner.payment(100_000))
    assert_error(await submit_new(client, owner.payment(1)), 403, "agent_limit_exceeded")
    clock.set(at(2027, 1, 1, 0, 0, 0))
    await pay(client, owner.payment(100_000))


async def test_cancelled_transfers_do_not_count(owner):
    agent = await owner.create_agent(limits={"daily": "100000"})
    client = await owner.agent_client(agent["id"])
    first = await pay(client, owner.payment(100_000))
    assert_error(await submit_new(client, owner.payment(1)), 403, "agent_limit_exceeded")
    cancelled = await client.post(f"/v1/transfers/{first['id']}/cancel", json={"reason": "oops"})
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "CANCELLED"
    await pay(client, owner.payment(100_000))


async def test_failed_transfers_do_not_count(owner):
    agent = await owner.create_agent(limits={"daily": "100000"})
    client = await owner.agent_client(agent["id"])
    first = await pay(client, owner.payment(100_000))
    forced = await owner.client.post(
        f"/v1/sandbox/transfers/{first['id']}/legs/{first['legs'][0]['id']}/status",
        json={"status": "FAILED"},
    )
    assert forced.status_code == 200 and forced.json()["status"] == "FAILED", forced.text
    await pay(client, owner.payment(100_000))


async def test_reversed_transfers_do_not_count_and_completed_ones_do(owner):
    agent = await owner.create_agent(limits={"daily": "100000"})
    client = await owner.agent_client(agent["id"])
    first = await pay(client, owner.payment(60_000))
    completed = await owner.client.post(f"/v1/sandbox/transfers/{first['id']}/complete")
    assert completed.json()["status"] == "COMPLETED", completed.text
    assert_error(await submit_new(client, owner.payment(50_000)), 403, "agent_limit_exceeded")
    # A returned payout ends REVERSED (the returns package's move), and stops counting.
    payout = next(leg for leg in completed.json()["legs"] if leg["type"] == "PAYOUT_FIAT")
    returned = await owner.client.post(
        f"/v1/sandbox/transfers/{first['id']}/legs/{payout['id']}/status",
        json={"status": "RETURNED"},
    )
    assert returned.json()["status"] == "REVERSED", returned.text
    await pay(client, owner.payment(100_000))


async def test_drafts_do_not_count(owner):
    agent = await owner.create_agent(limits={"daily": "100000"})
    client = await owner.agent_client(agent["id"])
    for _ in range(3):
        created = await client.post("/v1/transfers", json=owner.payment(50_000))
        assert created.status_code == 201
    spend = (await client.get(f"/v1/agents/{agent['id']}/spend")).json()
    assert spend["windows"][0]["used"] == "0"
    await pay(client, owner.payment(100_000))


async def test_a_limit_change_applies_from_the_next_transfer(owner):
    agent = await owner.create_agent(limits={"daily": "100000"})
    client = await owner.agent_client(agent["id"])
    await pay(client, owner.payment(80_000))
    lowered = await owner.client.patch(
        f"/v1/agents/{agent['id']}", json={"limits": {"daily": "50000"}}
    )
    assert lowered.status_code == 200, lowered.text
    # What was submitted stays; the next transfer meets the new limit.
    body = assert_error(await submit_new(client, owner.payment(1_000)), 403, "agent_limit_exceeded")
    assert body["denial"]["used"] == "800.00" and body["denial"]["remaining"] == "0.00"
    raised = await owner.client.patch(f"/v1/agents/{agent['id']}", json={"limits": {"daily": None}})
    assert raised.json()["limits"]["daily"] is None
    await pay(client, owner.payment(40_000))


async def test_payee_outside_the_allowlist_is_refused(owner):
    agent = await owner.create_agent()
    client = await owner.agent_client(agent["id"])
    own_account = await owner.customer.bank_account()
    body = {
        "source": {"accountId": owner.usd_account},
        "destination": {
            "externalAccountId": own_account,
            "paymentRail": "ACH",
            "currency": "USD",
        },
        "amount": amount("USD", 1_000),
    }
    refused = assert_error(await submit_new(client, body), 403, "agent_destination_not_allowed")
    assert "destinationAllowlist" in refused["hint"]
    await owner.client.patch(
        f"/v1/agents/{agent['id']}",
        json={
            "destinationAllowlist": [
                {"type": "counterparty", "id": owner.counterparty_id},
                {"type": "external_account", "id": own_account},
            ]
        },
    )
    await pay(client, body)


async def test_an_empty_allowlist_admits_no_payee(owner):
    agent = await owner.create_agent(destinationAllowlist=[])
    client = await owner.agent_client(agent["id"])
    assert_error(
        await submit_new(client, owner.payment(1_000)), 403, "agent_destination_not_allowed"
    )


async def test_allowlisted_external_account_admits_only_that_account(owner):
    agent = await owner.create_agent(
        destinationAllowlist=[{"type": "external_account", "id": owner.payee_account_id}]
    )
    client = await owner.agent_client(agent["id"])
    await pay(client, owner.payment(1_000))


async def test_transfer_in_another_currency_than_the_limits_is_refused(owner):
    agent = await owner.create_agent()
    client = await owner.agent_client(agent["id"])
    # The limits' currency is fixed to the funding account's at creation; an agent row
    # whose currency differs (as data written before that rule would be) is still guarded.
    async with owner.app.state.database.session() as session, session.begin():
        await session.execute(update(Agent).where(Agent.id == agent["id"]).values(currency="EUR"))
    body = assert_error(
        await submit_new(client, owner.payment(1_000)), 403, "agent_currency_mismatch"
    )
    assert "EUR" in body["message"] and "USD" in body["message"]


async def test_paused_agent_cannot_submit_and_resumes(owner):
    agent = await owner.create_agent()
    client = await owner.agent_client(agent["id"])
    paused = await owner.client.patch(f"/v1/agents/{agent['id']}", json={"status": "paused"})
    assert paused.json()["status"] == "PAUSED"
    body = assert_error(await submit_new(client, owner.payment(1_000)), 403, "agent_inactive")
    assert "PAUSED" in body["message"]
    # Reading still works while paused.
    assert (await client.get(f"/v1/agents/{agent['id']}")).status_code == 200
    resumed = await owner.client.patch(f"/v1/agents/{agent['id']}", json={"status": "ACTIVE"})
    assert resumed.json()["status"] == "ACTIVE"
    await pay(client, owner.payment(1_000))


async def test_confirm_true_by_an_agent_is_checked_too(owner):
    agent = await owner.create_agent()
    client = await owner.agent_client(agent["id"])
    refused = await client.post("/v1/transfers", json=owner.payment(60_000, confirm=True))
    assert_error(refused, 403, "agent_limit_exceeded")
    listed = (await client.get("/v1/transfers")).json()["data"]
    assert listed == []  # all or nothing: no draft was made
    created = await client.post("/v1/transfers", json=owner.payment(1_000, confirm=True))
    assert created.status_code == 201 and created.json()["status"] == "PENDING"


async def test_organization_key_submits_are_not_limited_but_agent_drafts_count(owner):
    agent = await owner.create_agent(limits={"daily": "100000"})
    client = await owner.agent_client(agent["id"])
    draft = (await client.post("/v1/transfers", json=owner.payment(100_000))).json()
    submitted = await owner.client.post(f"/v1/transfers/{draft['id']}/submit")
    assert submitted.status_code == 200
    big = await owner.client.post(
        "/v1/transfers", json={**owner.payment(500_000), "customerId": owner.customer.id}
    )
    assert (await owner.client.post(f"/v1/transfers/{big.json()['id']}/submit")).status_code == 200
    spend = (await client.get(f"/v1/agents/{agent['id']}/spend")).json()
    assert spend["windows"][0]["used"] == "100000"
