"""Agent mandates (issue 25, API.md §9): creation and its validation, consumption by an
agent's payments in the submit's own transaction, each refusal, the budget period's reset
with the sandbox clock, revocation, expiry, and an owner's approval of a parked draft."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

import pytest

from corridor.agents.mandates import service as mandate_service
from tests.agents.conftest import Owner, pay, submit_new
from tests.conftest import assert_error
from tests.parties.helpers import create_account, create_counterparty

WEDNESDAY_NOON = datetime(2026, 11, 18, 12, 0, tzinfo=UTC)


def mandate_body(owner: Owner, **overrides: Any) -> dict:
    body: dict[str, Any] = {
        "currency": "USD",
        "payees": [{"type": "counterparty", "id": owner.counterparty_id}],
        "maxPerPayment": "5000",
        "budget": {"amount": "12000", "recurrence": "NONE"},
        "maxUses": 10,
        "notAfter": "2027-06-01T00:00:00Z",
        "purpose": "Cloud hosting invoices",
    }
    body.update(overrides)
    return body


async def create_mandate(owner: Owner, agent_id: str, **overrides: Any) -> dict:
    response = await owner.client.post(
        f"/v1/agents/{agent_id}/mandates", json=mandate_body(owner, **overrides)
    )
    assert response.status_code == 201, response.text
    return response.json()


async def get_mandate(owner: Owner, mandate_id: str) -> dict:
    response = await owner.client.get(f"/v1/agent-mandates/{mandate_id}")
    assert response.status_code == 200, response.text
    return response.json()


async def mandated_agent(owner: Owner, **overrides: Any) -> dict:
    return await owner.create_agent(requireMandate=True, **overrides)


def denial(response) -> dict:
    body = assert_error(response, 403, "agent_limit_exceeded")
    assert body["denial"]["window"] == "mandate"
    assert body["hint"]
    return body["denial"]


# --- Creating, reading, the agent setting -------------------------------------------------


async def test_create_read_and_list_a_mandate(owner):
    agent = await mandated_agent(owner)
    assert agent["requireMandate"] is True
    mandate = await create_mandate(owner, agent["id"], maxUses=None)
    assert mandate["id"].startswith("mdt_")
    assert mandate["agentId"] == agent["id"]
    assert mandate["status"] == "ACTIVE" and mandate["used"] == "0" and mandate["uses"] == 0
    assert mandate["budget"] == {"amount": "12000", "recurrence": "NONE"}
    assert mandate["maxUses"] is None and mandate["periodResetsAt"] is None
    assert mandate["notBefore"] == "2026-11-18T12:00:00.000Z"
    assert await get_mandate(owner, mandate["id"]) == mandate
    listed = (await owner.client.get(f"/v1/agents/{agent['id']}/mandates")).json()["data"]
    assert [item["id"] for item in listed] == [mandate["id"]]
    created = await owner.events("agent.mandate.created")
    assert [event.data["id"] for event in created] == [mandate["id"]]

    async with await owner.agent_client(agent["id"]) as bot:
        # The agent sees its own mandates, but cannot make or revoke one.
        mine = (await bot.get(f"/v1/agents/{agent['id']}/mandates")).json()["data"]
        assert [item["id"] for item in mine] == [mandate["id"]]
        assert (await bot.get(f"/v1/agent-mandates/{mandate['id']}")).status_code == 200
        response = await bot.post(f"/v1/agents/{agent['id']}/mandates", json=mandate_body(owner))
        assert_error(response, 403, "forbidden")
        response = await bot.post(f"/v1/agent-mandates/{mandate['id']}/revoke")
        assert_error(response, 403, "forbidden")
    other = await owner.create_agent()
    assert other["requireMandate"] is False
    async with await owner.agent_client(other["id"]) as stranger:
        response = await stranger.get(f"/v1/agent-mandates/{mandate['id']}")
        assert_error(response, 404, "not_found")


async def test_require_mandate_is_changed_with_patch(owner):
    agent = await owner.create_agent()
    response = await owner.client.patch(f"/v1/agents/{agent['id']}", json={"requireMandate": True})
    assert response.status_code == 200, response.text
    assert response.json()["requireMandate"] is True
    response = await owner.client.patch(f"/v1/agents/{agent['id']}", json={"requireMandate": None})
    assert_error(response, 422, "validation_error")
    response = await owner.client.patch(f"/v1/agents/{agent['id']}", json={"requireMandate": "y"})
    assert_error(response, 422, "validation_error")


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"maxPerPayment": "0"}, "maxPerPayment"),
        ({"maxPerPayment": "-5"}, "maxPerPayment"),
        ({"maxPerPayment": 5000}, "maxPerPayment"),
        ({"maxPerPayment": "1.5"}, "maxPerPayment"),
        ({"maxPerPayment": "99999999999999999999"}, "maxPerPayment"),
        ({"budget": {"amount": "0", "recurrence": "NONE"}}, "budget.amount"),
        ({"budget": {"amount": "100", "recurrence": "YEARLY"}}, "budget.recurrence"),
        ({"maxPerPayment": "12001"}, "maxPerPayment"),
        ({"currency": "EUR"}, "currency"),
        ({"maxUses": 0}, "maxUses"),
        ({"maxUses": "3"}, "maxUses"),
        ({"notAfter": "2026-11-18T11:00:00Z"}, "notAfter"),
        ({"notAfter": "2026-11-18T12:00:00"}, "notAfter"),
        ({"notBefore": "2027-07-01T00:00:00Z"}, "notBefore"),
        ({"purpose": ""}, "purpose"),
        ({"purpose": "x" * 501}, "purpose"),
        ({"payees": []}, "payees"),
        (
            {"payees": [{"type": "counterparty", "id": "ext_01jd3x0p6x9e3k2v1m8q4r7s5t"}]},
            "payees.0.id",
        ),
        ({"payees": [{"type": "address"}]}, "payees.0.address"),
        ({"payees": [{"type": "phone", "id": "x"}]}, "payees.0.type"),
    ],
)
async def test_invalid_mandates_are_refused_and_nothing_is_written(owner, overrides, field):
    agent = await owner.create_agent()
    response = await owner.client.post(
        f"/v1/agents/{agent['id']}/mandates", json=mandate_body(owner, **overrides)
    )
    body = assert_error(response, 422, "validation_error")
    assert any(error["field"].startswith(field) for error in body["errors"]), body
    listed = (await owner.client.get(f"/v1/agents/{agent['id']}/mandates")).json()["data"]
    assert listed == []
    assert await owner.events("agent.mandate.created") == []


async def test_payees_of_another_organization_or_customer_are_refused(owner, make_tenant):
    agent = await owner.create_agent()
    stranger = await make_tenant()
    from tests.transfers.conftest import make_customer

    customer = await make_customer(stranger.client, ("USD",))
    foreign = await create_counterparty(stranger.client, customer.id)
    response = await owner.client.post(
        f"/v1/agents/{agent['id']}/mandates",
        json=mandate_body(owner, payees=[{"type": "counterparty", "id": foreign["id"]}]),
    )
    assert_error(response, 404, "not_found")
    listed = (await owner.client.get(f"/v1/agents/{agent['id']}/mandates")).json()["data"]
    assert listed == []


async def test_overlapping_mandates_for_one_payee_are_refused(owner):
    agent = await owner.create_agent()
    first = await create_mandate(owner, agent["id"], notAfter="2027-01-01T00:00:00Z")
    response = await owner.client.post(
        f"/v1/agents/{agent['id']}/mandates",
        json=mandate_body(owner, notBefore="2026-12-01T00:00:00Z"),
    )
    body = assert_error(response, 409, "mandate_overlap")
    assert body["mandateId"] == first["id"]
    # A later, disjoint window is fine; so is the same window once the first is revoked.
    await create_mandate(
        owner, agent["id"], notBefore="2027-01-01T00:00:00Z", notAfter="2027-02-01T00:00:00Z"
    )
    revoked = await owner.client.post(f"/v1/agent-mandates/{first['id']}/revoke")
    assert revoked.status_code == 200 and revoked.json()["status"] == "REVOKED"
    await create_mandate(owner, agent["id"], notAfter="2026-12-31T00:00:00Z")


# --- Consumption and refusals -------------------------------------------------------------


async def test_payments_consume_the_mandate_and_record_it(owner):
    agent = await mandated_agent(owner)
    mandate = await create_mandate(owner, agent["id"])
    async with await owner.agent_client(agent["id"]) as bot:
        paid = await pay(bot, owner.payment(5_000))
        assert paid["mandateId"] == mandate["id"]
        await pay(bot, owner.payment(5_000))
        refused = await submit_new(bot, owner.payment(3_000))
        body = denial(refused)
        assert body["code"] == "mandate_budget_exceeded" and body["mandateId"] == mandate["id"]
        assert body["limit"] == "120.00" and body["used"] == "100.00"
        assert body["remaining"] == "20.00"
        last = await pay(bot, owner.payment(2_000))
        assert last["mandateId"] == mandate["id"]
    after = await get_mandate(owner, mandate["id"])
    assert after["used"] == "12000" and after["uses"] == 3 and after["status"] == "EXHAUSTED"
    consumed = await owner.events("agent.mandate.consumed")
    assert len(consumed) == 3 and consumed[-1].data["used"] == "12000"
    assert [event.data["id"] for event in await owner.events("agent.mandate.exhausted")] == [
        mandate["id"]
    ]
    owner_paid = (await owner.client.get(f"/v1/transfers/{paid['id']}")).json()
    assert owner_paid["mandateId"] == mandate["id"]


async def test_each_refusal_code(owner, clock):
    agent = await mandated_agent(owner)
    async with await owner.agent_client(agent["id"]) as bot:
        assert denial(await submit_new(bot, owner.payment(1_000)))["code"] == "mandate_required"

        other = await create_counterparty(owner.client, owner.customer.id)
        await create_mandate(
            owner, agent["id"], payees=[{"type": "counterparty", "id": other["id"]}]
        )
        body = denial(await submit_new(bot, owner.payment(1_000)))
        assert body["code"] == "payee_not_in_mandate" and body["mandateId"] is None

        later = await create_mandate(owner, agent["id"], notBefore="2026-12-01T00:00:00Z")
        body = denial(await submit_new(bot, owner.payment(1_000)))
        assert body["code"] == "mandate_not_yet_valid" and body["mandateId"] == later["id"]
        await owner.client.post(f"/v1/agent-mandates/{later['id']}/revoke")
        assert denial(await submit_new(bot, owner.payment(1_000)))["code"] == "mandate_revoked"

        mandate = await create_mandate(
            owner, agent["id"], maxUses=1, notAfter="2026-11-19T00:00:00Z"
        )
        body = denial(await submit_new(bot, owner.payment(5_001)))
        assert body["code"] == "mandate_max_per_payment_exceeded" and body["limit"] == "50.00"
        await pay(bot, owner.payment(1_000))
        body = denial(await submit_new(bot, owner.payment(1_000)))
        assert body["code"] == "mandate_uses_exhausted" and body["mandateId"] == mandate["id"]

        fresh = await create_mandate(
            owner, agent["id"], notBefore="2026-11-19T00:00:00Z", notAfter="2026-11-20T00:00:00Z"
        )
        clock.set(datetime(2026, 11, 20, 0, 0, tzinfo=UTC))
        assert (await get_mandate(owner, fresh["id"]))["status"] == "EXPIRED"
        body = denial(await submit_new(bot, owner.payment(1_000)))
        assert body["code"] in ("mandate_expired", "mandate_uses_exhausted")
        assert body["mandateId"] in (fresh["id"], mandate["id"])
    # Nothing of the refused payments was written to any mandate.
    assert (await get_mandate(owner, mandate["id"]))["uses"] == 1


async def test_expired_mandate_refuses_and_is_persisted_by_the_next_write(owner, clock):
    agent = await mandated_agent(owner)
    mandate = await create_mandate(owner, agent["id"], notAfter="2026-11-19T00:00:00Z")
    clock.set(datetime(2026, 11, 19, 0, 0, tzinfo=UTC))
    async with await owner.agent_client(agent["id"]) as bot:
        body = denial(await submit_new(bot, owner.payment(1_000)))
        assert body["code"] == "mandate_expired" and body["mandateId"] == mandate["id"]
    assert (await get_mandate(owner, mandate["id"]))["status"] == "EXPIRED"
    # The next mandate created for the agent persists it, with its event.
    await create_mandate(owner, agent["id"], notAfter="2027-01-01T00:00:00Z")
    expired = await owner.events("agent.mandate.expired")
    assert [event.data["id"] for event in expired] == [mandate["id"]]
    response = await owner.client.post(f"/v1/agent-mandates/{mandate['id']}/revoke")
    assert_error(response, 409, "invalid_state")


async def test_without_require_mandate_a_matching_mandate_still_binds(owner):
    agent = await owner.create_agent()
    other = await create_counterparty(owner.client, owner.customer.id)
    other_payee = await create_account(owner.client, {"counterpartyId": other["id"]})
    await owner.client.patch(
        f"/v1/agents/{agent['id']}",
        json={
            "destinationAllowlist": [
                {"type": "counterparty", "id": owner.counterparty_id},
                {"type": "counterparty", "id": other["id"]},
            ]
        },
    )
    mandate = await create_mandate(owner, agent["id"])
    async with await owner.agent_client(agent["id"]) as bot:
        paid = await pay(bot, owner.payment(4_000))
        assert paid["mandateId"] == mandate["id"]
        body = denial(await submit_new(bot, owner.payment(6_000)))
        assert body["code"] == "mandate_max_per_payment_exceeded"
        # A payee under no mandate pays as before, unbound.
        unbound = owner.payment(6_000)
        unbound["destination"]["externalAccountId"] = other_payee["id"]
        assert (await pay(bot, unbound))["mandateId"] is None
        # Revoked, the mandate no longer concerns the payee.
        await owner.client.post(f"/v1/agent-mandates/{mandate['id']}/revoke")
        assert (await pay(bot, owner.payment(6_000)))["mandateId"] is None
    revoked = await owner.events("agent.mandate.revoked")
    assert [event.data["status"] for event in revoked] == ["REVOKED"]


async def test_agent_limits_still_apply_and_refusals_consume_nothing(owner):
    agent = await mandated_agent(owner, limits={"perTransfer": "3000"})
    mandate = await create_mandate(owner, agent["id"])
    async with await owner.agent_client(agent["id"]) as bot:
        refused = await submit_new(bot, owner.payment(4_000))
        body = assert_error(refused, 403, "agent_limit_exceeded")
        assert body["denial"]["code"] == "per_transfer_limit_exceeded"
    after = await get_mandate(owner, mandate["id"])
    assert after["used"] == "0" and after["uses"] == 0


async def test_revoke_then_pay_is_refused(owner):
    agent = await mandated_agent(owner)
    mandate = await create_mandate(owner, agent["id"])
    async with await owner.agent_client(agent["id"]) as bot:
        await pay(bot, owner.payment(1_000))
        response = await owner.client.post(
            f"/v1/agent-mandates/{mandate['id']}/revoke", json={"reason": "vendor changed"}
        )
        assert response.status_code == 200, response.text
        assert response.json()["deactivatedReason"] == "vendor changed"
        body = denial(await submit_new(bot, owner.payment(1_000)))
        assert body["code"] == "mandate_revoked"
    again = await owner.client.post(f"/v1/agent-mandates/{mandate['id']}/revoke")
    assert again.status_code == 200 and again.json()["status"] == "REVOKED"
    assert len(await owner.events("agent.mandate.revoked")) == 1


# --- Budget periods -----------------------------------------------------------------------


async def test_a_daily_budget_resets_at_midnight_utc_with_the_sandbox_clock(owner, clock):
    agent = await mandated_agent(owner)
    mandate = await create_mandate(
        owner, agent["id"], budget={"amount": "8000", "recurrence": "DAILY"}, maxUses=None
    )
    assert mandate["periodResetsAt"] == "2026-11-19T00:00:00.000Z"
    async with await owner.agent_client(agent["id"]) as bot:
        await pay(bot, owner.payment(5_000))
        body = denial(await submit_new(bot, owner.payment(5_000)))
        assert body["code"] == "mandate_budget_exceeded"
        assert body["resetsAt"] == "2026-11-19T00:00:00.000Z"
        response = await owner.client.post(
            "/v1/sandbox/clock/advance", json={"to": "2026-11-19T00:00:00Z"}
        )
        assert response.status_code == 200, response.text
        read = await get_mandate(owner, mandate["id"])
        assert read["used"] == "0" and read["status"] == "ACTIVE"
        assert read["periodResetsAt"] == "2026-11-20T00:00:00.000Z"
        await pay(bot, owner.payment(5_000))
    read = await get_mandate(owner, mandate["id"])
    assert read["used"] == "5000" and read["uses"] == 2


async def test_a_weekly_budget_starts_on_monday(owner, clock):
    agent = await mandated_agent(owner)
    mandate = await create_mandate(
        owner, agent["id"], budget={"amount": "8000", "recurrence": "WEEKLY"}, maxUses=None
    )
    # Wednesday 18 November 2026: the week began Monday 16th and resets Monday 23rd.
    assert mandate["periodResetsAt"] == "2026-11-23T00:00:00.000Z"
    async with await owner.agent_client(agent["id"]) as bot:
        await pay(bot, owner.payment(5_000))
        await owner.client.post("/v1/sandbox/clock/advance", json={"to": "2026-11-22T23:59:59Z"})
        assert denial(await submit_new(bot, owner.payment(5_000)))["code"] == (
            "mandate_budget_exceeded"
        )
        await owner.client.post("/v1/sandbox/clock/advance", json={"to": "2026-11-23T00:00:00Z"})
        await pay(bot, owner.payment(5_000))


async def test_a_monthly_budget_resets_on_the_first(owner, clock):
    agent = await mandated_agent(owner)
    mandate = await create_mandate(
        owner,
        agent["id"],
        maxPerPayment="8000",
        budget={"amount": "8000", "recurrence": "MONTHLY"},
        maxUses=None,
    )
    assert mandate["periodResetsAt"] == "2026-12-01T00:00:00.000Z"
    async with await owner.agent_client(agent["id"]) as bot:
        await pay(bot, owner.payment(8_000))
        assert denial(await submit_new(bot, owner.payment(1)))["code"] == "mandate_budget_exceeded"
        await owner.client.post("/v1/sandbox/clock/advance", json={"to": "2026-12-01T00:00:00Z"})
        await pay(bot, owner.payment(8_000))
    assert (await get_mandate(owner, mandate["id"]))["status"] == "ACTIVE"


# --- Approval of a parked draft -----------------------------------------------------------


async def _parked(owner: Owner) -> tuple[dict, dict, str]:
    agent = await mandated_agent(
        owner, overLimitAction="REQUEST_APPROVAL", limits={"perTransfer": "2000"}
    )
    mandate = await create_mandate(owner, agent["id"])
    async with await owner.agent_client(agent["id"]) as bot:
        response = await submit_new(bot, owner.payment(4_000))
    body = assert_error(response, 403, "agent_approval_required")
    transfer = (await owner.client.get(f"/v1/transfers/{body['transferId']}")).json()
    assert transfer["mandateId"] == mandate["id"]
    assert (await get_mandate(owner, mandate["id"]))["uses"] == 0
    return agent, mandate, transfer["id"]


async def test_approval_consumes_the_parked_drafts_mandate(owner):
    _, mandate, transfer_id = await _parked(owner)
    response = await owner.client.post(
        f"/v1/transfers/{transfer_id}/agent-approval", json={"decision": "APPROVE"}
    )
    assert response.status_code == 200, response.text
    assert response.json()["mandateId"] == mandate["id"]
    after = await get_mandate(owner, mandate["id"])
    assert after["used"] == "4000" and after["uses"] == 1


async def test_approval_of_a_draft_whose_mandate_was_revoked_is_refused(owner):
    _, mandate, transfer_id = await _parked(owner)
    await owner.client.post(f"/v1/agent-mandates/{mandate['id']}/revoke")
    response = await owner.client.post(
        f"/v1/transfers/{transfer_id}/agent-approval", json={"decision": "APPROVE"}
    )
    body = assert_error(response, 409, "agent_approval_refused")
    assert body["reason"] == "mandate_revoked"
    transfer = (await owner.client.get(f"/v1/transfers/{transfer_id}")).json()
    assert transfer["status"] == "DRAFT" and transfer["agentApprovalStatus"] == "PENDING"
    balance = await owner.customer.balance("USD")
    assert balance["available"] == 100_000_000


async def _sweep(owner) -> int:
    state = owner.app.state
    return await mandate_service.expire_task(state.database, state.clock)


async def test_the_workers_sweep_expires_a_mandate_once_its_window_ends(owner, clock):
    agent = await mandated_agent(owner)
    ending = await create_mandate(owner, agent["id"], notAfter="2026-11-19T00:00:00Z")
    lasting = await create_mandate(
        owner,
        agent["id"],
        payees=[{"type": "external_account", "id": owner.payee_account_id}],
        notBefore="2026-11-19T00:00:00Z",
        notAfter="2027-01-01T00:00:00Z",
    )
    # The sweep covers every organization of the database (other tests' too): what it did
    # to this one is read from this organization's events.
    await _sweep(owner)
    assert await owner.events("agent.mandate.expired") == [], "nothing ended yet"
    clock.set(datetime(2026, 11, 19, 0, 0, tzinfo=UTC))
    assert await _sweep(owner) >= 1
    await _sweep(owner)  # nothing more: expired once
    stored = await get_mandate(owner, ending["id"])
    assert stored["status"] == "EXPIRED" and stored["deactivatedReason"] == "notAfter passed"
    assert (await get_mandate(owner, lasting["id"]))["status"] == "ACTIVE"
    expired = await owner.events("agent.mandate.expired")
    assert [event.data["id"] for event in expired] == [ending["id"]]
    assert expired[0].data["status"] == "EXPIRED"


async def test_the_sweep_goes_by_the_organizations_sandbox_clock(owner):
    agent = await mandated_agent(owner)
    mandate = await create_mandate(owner, agent["id"], notAfter="2026-11-19T00:00:00Z")
    moved = await owner.client.post("/v1/sandbox/clock/advance", json={"seconds": 86_400})
    assert moved.status_code == 200, moved.text
    assert await _sweep(owner) >= 1
    assert (await get_mandate(owner, mandate["id"]))["status"] == "EXPIRED"
    expired = await owner.events("agent.mandate.expired")
    assert [event.data["id"] for event in expired] == [mandate["id"]]


async def test_two_sweeps_at_once_expire_each_mandate_once(owner, clock):
    agent = await mandated_agent(owner)
    mandates = [
        await create_mandate(
            owner,
            agent["id"],
            payees=[{"type": "counterparty", "id": owner.counterparty_id}],
            notBefore=f"2026-11-{18 + index}T12:00:00Z",
            notAfter=f"2026-11-{19 + index}T00:00:00Z",
        )
        for index in range(2)
    ]
    clock.set(datetime(2026, 11, 21, 0, 0, tzinfo=UTC))
    done = await asyncio.gather(_sweep(owner), _sweep(owner), _sweep(owner))
    assert sum(done) >= 2  # (other organizations' mandates may end in the same sweeps)
    expired = await owner.events("agent.mandate.expired")
    assert sorted(event.data["id"] for event in expired) == sorted(m["id"] for m in mandates)
