"""Over-limit submits parked for an owner (spec 3.1, 3.2, 4.1, 7): the 403, the frozen
draft, the queue, APPROVE and DECLINE, and the refusals no approval can lift."""

from __future__ import annotations

from sqlalchemy import update

from corridor.models.transfer import Agent
from tests.agents.conftest import pay, submit_new
from tests.auth.credentials import bearer, console_token, key_secret
from tests.conftest import assert_error, client_for


async def _parked(owner, value: int = 60_000, **agent_fields):
    """An approval agent, its client, and a draft of `value` it submitted over its limit."""
    agent = await owner.create_agent(overLimitAction="REQUEST_APPROVAL", **agent_fields)
    client = await owner.agent_client(agent["id"])
    draft = (await client.post("/v1/transfers", json=owner.payment(value))).json()
    response = await client.post(f"/v1/transfers/{draft['id']}/submit")
    return agent, client, draft, response


async def test_over_limit_submit_parks_draft_for_approval(owner):
    agent, client, draft, response = await _parked(owner)
    body = assert_error(response, 403, "agent_approval_required")
    assert body["transferId"] == draft["id"]
    assert body["denial"] == {
        "code": "per_transfer_limit_exceeded",
        "message": body["denial"]["message"],
        "window": "transfer",
        "limit": "500.00",
        "attemptedAmount": "600.00",
        "currency": "USD",
    }
    assert f"/v1/transfers/{draft['id']}/agent-approval" in body["hint"]
    parked = (await client.get(f"/v1/transfers/{draft['id']}")).json()
    assert parked["status"] == "DRAFT" and parked["agentApprovalStatus"] == "PENDING"
    assert parked["agentId"] == agent["id"]
    requested = await owner.events("transfer.approval_requested")
    assert [event.data["id"] for event in requested] == [draft["id"]]
    assert requested[0].data["agentApprovalStatus"] == "PENDING"
    assert draft["id"] in requested[0].tags
    # Nothing is held while it waits.
    assert (await owner.customer.balance("USD"))["available"] == 100_000_000


async def test_daily_overrun_parks_with_the_daily_denial(owner):
    agent = await owner.create_agent(overLimitAction="REQUEST_APPROVAL", limits={"daily": "100000"})
    client = await owner.agent_client(agent["id"])
    await pay(client, owner.payment(90_000))
    body = assert_error(
        await submit_new(client, owner.payment(20_000)), 403, "agent_approval_required"
    )
    assert body["denial"]["code"] == "daily_limit_exceeded"
    assert body["denial"]["used"] == "900.00" and body["denial"]["remaining"] == "100.00"


async def test_the_queue_lists_pending_approvals(owner):
    _, _, draft, _ = await _parked(owner)
    queue = (await owner.client.get("/v1/transfers?agentApprovalStatus=PENDING")).json()
    assert [item["id"] for item in queue["data"]] == [draft["id"]]


async def test_parked_draft_cannot_be_edited_resubmitted_or_cancelled(owner):
    _, client, draft, _ = await _parked(owner)
    path = f"/v1/transfers/{draft['id']}"
    for response in (
        await client.patch(path, json={"remarks": "smaller please"}),
        await client.post(f"{path}/submit"),
        await owner.client.post(f"{path}/submit"),
        await client.post(f"{path}/cancel", json={}),
        await owner.client.patch(path, json={"amount": {"currency": "USD", "value": "100"}}),
    ):
        body = assert_error(response, 409, "invalid_state")
        assert "approval" in body["message"]
    assert (await client.get(path)).json()["agentApprovalStatus"] == "PENDING"


async def test_approve_submits_skipping_only_the_limits_and_counts_toward_spend(owner):
    agent, client, draft, _ = await _parked(owner, limits={"perTransfer": "50000"})
    approved = await owner.client.post(
        f"/v1/transfers/{draft['id']}/agent-approval", json={"decision": "APPROVE"}
    )
    assert approved.status_code == 200, approved.text
    body = approved.json()
    assert body["status"] == "PENDING" and body["agentApprovalStatus"] == "APPROVED"
    assert (await owner.customer.balance("USD"))["available"] == 100_000_000 - 60_000
    spend = (await client.get(f"/v1/agents/{agent['id']}/spend")).json()
    assert [window["used"] for window in spend["windows"]] == ["60000", "60000"]
    again = await owner.client.post(
        f"/v1/transfers/{draft['id']}/agent-approval", json={"decision": "APPROVE"}
    )
    assert_error(again, 409, "invalid_state")


async def test_approved_payments_count_against_the_next_submit(owner):
    agent = await owner.create_agent(overLimitAction="REQUEST_APPROVAL", limits={"daily": "100000"})
    client = await owner.agent_client(agent["id"])
    draft = (await client.post("/v1/transfers", json=owner.payment(150_000))).json()
    assert_error(
        await client.post(f"/v1/transfers/{draft['id']}/submit"), 403, "agent_approval_required"
    )
    await owner.client.post(
        f"/v1/transfers/{draft['id']}/agent-approval", json={"decision": "APPROVE"}
    )
    body = assert_error(
        await submit_new(client, owner.payment(100)), 403, "agent_approval_required"
    )
    assert body["denial"]["used"] == "1500.00" and body["denial"]["remaining"] == "0.00"


async def test_decline_cancels_with_the_reason(owner):
    _, client, draft, _ = await _parked(owner)
    declined = await owner.client.post(
        f"/v1/transfers/{draft['id']}/agent-approval",
        json={"decision": "DECLINE", "reason": "r" * 500},
    )
    assert declined.status_code == 200, declined.text
    body = declined.json()
    assert body["status"] == "CANCELLED" and body["agentApprovalStatus"] == "DECLINED"
    stored = (await client.get(f"/v1/transfers/{draft['id']}")).json()
    assert stored["status"] == "CANCELLED"
    assert [event.data["id"] for event in await owner.events("transfer.cancelled")] == [draft["id"]]


async def test_decline_reason_is_stored_on_the_cancellation(owner, app):
    from corridor.models.transfer import Transfer

    _, _, draft, _ = await _parked(owner)
    await owner.client.post(
        f"/v1/transfers/{draft['id']}/agent-approval",
        json={"decision": "DECLINE", "reason": "Not this supplier"},
    )
    async with app.state.database.session(write=False) as session:
        transfer = await session.get(Transfer, draft["id"])
        assert transfer.cancellation["reason"] == "Not this supplier"
        assert transfer.cancellation["actor"].startswith("key_")


async def test_reason_over_500_characters_and_unknown_decisions_are_422(owner):
    _, _, draft, _ = await _parked(owner)
    path = f"/v1/transfers/{draft['id']}/agent-approval"
    long = await owner.client.post(path, json={"decision": "DECLINE", "reason": "r" * 501})
    assert assert_error(long, 422, "validation_error")["errors"][0]["field"] == "reason"
    assert_error(await owner.client.post(path, json={"decision": "MAYBE"}), 422, "validation_error")
    assert_error(await owner.client.post(path, json={}), 422, "validation_error")


async def test_approval_needs_a_console_session_or_an_unrestricted_key(owner, app):
    _, client, draft, _ = await _parked(owner)
    path = f"/v1/transfers/{draft['id']}/agent-approval"
    assert_error(await client.post(path, json={"decision": "APPROVE"}), 403, "forbidden")
    restricted = client_for(
        app, bearer(await key_secret(owner.tenant, ["transfers:write", "agents:manage"]))
    )
    assert_error(await restricted.post(path, json={"decision": "DECLINE"}), 403, "forbidden")
    console = client_for(app, bearer(await console_token(owner.tenant)))
    approved = await console.post(path, json={"decision": "APPROVE"})
    assert approved.status_code == 200 and approved.json()["agentApprovalStatus"] == "APPROVED"


async def test_approval_is_refused_while_the_agent_is_paused(owner):
    agent, _, draft, _ = await _parked(owner)
    await owner.client.patch(f"/v1/agents/{agent['id']}", json={"status": "paused"})
    path = f"/v1/transfers/{draft['id']}/agent-approval"
    body = assert_error(
        await owner.client.post(path, json={"decision": "APPROVE"}), 409, "agent_approval_refused"
    )
    assert body["reason"] == "agent_paused"
    # Declining is always possible.
    declined = await owner.client.post(path, json={"decision": "DECLINE"})
    assert declined.json()["agentApprovalStatus"] == "DECLINED"


async def test_approval_is_refused_once_the_agent_is_revoked(owner):
    agent, _, draft, _ = await _parked(owner)
    await owner.client.post(f"/v1/agents/{agent['id']}/revoke")
    body = assert_error(
        await owner.client.post(
            f"/v1/transfers/{draft['id']}/agent-approval", json={"decision": "APPROVE"}
        ),
        409,
        "agent_approval_refused",
    )
    assert body["reason"] == "agent_revoked"
    declined = await owner.client.post(
        f"/v1/transfers/{draft['id']}/agent-approval",
        json={"decision": "DECLINE", "reason": "agent retired"},
    )
    assert declined.status_code == 200 and declined.json()["status"] == "CANCELLED"


async def test_approval_is_refused_when_the_payee_left_the_allowlist(owner):
    agent, _, draft, _ = await _parked(owner)
    await owner.client.patch(f"/v1/agents/{agent['id']}", json={"destinationAllowlist": []})
    body = assert_error(
        await owner.client.post(
            f"/v1/transfers/{draft['id']}/agent-approval", json={"decision": "APPROVE"}
        ),
        409,
        "agent_approval_refused",
    )
    assert body["reason"] == "destination_not_allowed"
    still = (await owner.client.get(f"/v1/transfers/{draft['id']}")).json()
    assert still["status"] == "DRAFT" and still["agentApprovalStatus"] == "PENDING"


async def test_approval_is_refused_on_a_currency_mismatch(owner):
    agent, _, draft, _ = await _parked(owner)
    async with owner.app.state.database.session() as session, session.begin():
        await session.execute(update(Agent).where(Agent.id == agent["id"]).values(currency="EUR"))
    body = assert_error(
        await owner.client.post(
            f"/v1/transfers/{draft['id']}/agent-approval", json={"decision": "APPROVE"}
        ),
        409,
        "agent_approval_refused",
    )
    assert body["reason"] == "currency_mismatch"


async def test_approval_of_a_transfer_not_awaiting_it_is_409(owner):
    agent = await owner.create_agent()
    client = await owner.agent_client(agent["id"])
    draft = (await client.post("/v1/transfers", json=owner.payment(1_000))).json()
    response = await owner.client.post(
        f"/v1/transfers/{draft['id']}/agent-approval", json={"decision": "APPROVE"}
    )
    assert_error(response, 409, "invalid_state")
    unknown = await owner.client.post(
        "/v1/transfers/tfr_01jd3x0p6x9e3k2v1m8q4r7s5t/agent-approval", json={"decision": "APPROVE"}
    )
    assert_error(unknown, 404, "not_found")


async def test_confirm_true_over_the_limit_parks_the_new_draft(owner):
    agent = await owner.create_agent(overLimitAction="REQUEST_APPROVAL")
    client = await owner.agent_client(agent["id"])
    response = await client.post("/v1/transfers", json=owner.payment(60_000, confirm=True))
    body = assert_error(response, 403, "agent_approval_required")
    parked = (await client.get(f"/v1/transfers/{body['transferId']}")).json()
    assert parked["status"] == "DRAFT" and parked["agentApprovalStatus"] == "PENDING"


async def test_parking_replays_under_the_same_idempotency_key(owner):
    agent = await owner.create_agent(overLimitAction="REQUEST_APPROVAL")
    client = await owner.agent_client(agent["id"])
    headers = {"Idempotency-Key": "park-once"}
    body = owner.payment(60_000, confirm=True)
    first = await client.post("/v1/transfers", json=body, headers=headers)
    second = await client.post("/v1/transfers", json=body, headers=headers)
    assert first.status_code == second.status_code == 403
    assert second.headers["idempotent-replayed"] == "true"
    assert second.json()["transferId"] == first.json()["transferId"]
    assert len((await client.get("/v1/transfers")).json()["data"]) == 1
