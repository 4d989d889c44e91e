"""A thread that acts as an agent (issue 25): the assistant is one more door to an agent's
authority, beside REST and MCP. Its tool calls run as the agent (its newest live key), so a
confirmed payment meets the agent's allowlist, limits and mandates and consumes the mandate
in the submit's own write; the person still confirms every write."""

from __future__ import annotations

from typing import Any

from tests.agents.conftest import Owner, make_owner
from tests.agents.test_mandates import create_mandate
from tests.assistant.conftest import Conversation, drive, start
from tests.conftest import assert_error


async def _mandated_agent(owner: Owner, **mandate: Any) -> tuple[dict, dict]:
    agent = await owner.create_agent(requireMandate=True)
    await owner.agent_key(agent["id"])
    return agent, await create_mandate(owner, agent["id"], **mandate)


def _send(owner: Owner, amount: str) -> str:
    return f"send {amount} USD to {owner.payee_account_id} from {owner.usd_account}"


async def _proposed(app, chat: Conversation, text: str) -> tuple[str, dict]:
    """The run of `text` once it waits for the person, and the call it proposes."""
    run_id = (await chat.say(text))["run"]["id"]
    await drive(app)
    assert (await chat.run(run_id))["status"] == "awaiting_confirmation"
    return run_id, await chat.pending_call()


async def _transfers(owner: Owner) -> list[dict]:
    listed = await owner.client.get("/v1/transfers", params={"customerId": owner.customer.id})
    assert listed.status_code == 200, listed.text
    return listed.json()["data"]


async def test_a_confirmed_payment_runs_as_the_agent_and_consumes_its_mandate(app, owner):
    agent, mandate = await _mandated_agent(owner, maxUses=1)
    chat = await start(owner.client, agentId=agent["id"])
    thread = (await owner.client.get(f"/v1/assistant/threads/{chat.thread_id}")).json()
    assert thread["agentId"] == agent["id"]

    run_id, call = await _proposed(app, chat, _send(owner, "25"))
    assert call["tool"] == "create_transfer"
    confirmed = await chat.confirm(run_id, call["toolCallId"], True)
    assert confirmed.status_code == 200, confirmed.text
    [paid] = await _transfers(owner)
    assert paid["agentId"] == agent["id"] and paid["mandateId"] == mandate["id"]
    assert paid["status"] == "PENDING"
    after = (await owner.client.get(f"/v1/agent-mandates/{mandate['id']}")).json()
    assert (after["uses"], after["used"], after["status"]) == (1, "2500", "EXHAUSTED")
    await drive(app)
    assert await chat.last_text() == f"Sent: transfer {paid['id']} of 25.00 USD is PENDING."

    # The mandate is used up: the next confirmed payment is refused by it, as a REST or
    # MCP payment of the agent would be, and the model is told why.
    run_id, call = await _proposed(app, chat, _send(owner, "10"))
    refused = await chat.confirm(run_id, call["toolCallId"], True)
    assert refused.status_code == 200, refused.text
    await drive(app)
    assert "(agent_limit_exceeded)" in await chat.last_text()
    assert len(await _transfers(owner)) == 1

    # The audit chain names the agent for both confirmations and the mandate's refusal.
    audit = await owner.client.get("/v1/audit-events", params={"agentId": agent["id"]})
    kinds = [item["kind"] for item in audit.json()["data"]]
    assert kinds.count("tool.call.confirmed") == 2, kinds
    assert kinds.count("agent.mandate.consumed") == 1, kinds
    confirmed_by = {
        item["detail"]["caller"]["type"]
        for item in audit.json()["data"]
        if item["kind"] == "tool.call.confirmed"
    }
    assert confirmed_by == {"agent_key"}
    denied = [item for item in audit.json()["data"] if item["outcome"] == "denied"]
    assert [item["detail"]["code"] for item in denied] == ["mandate_uses_exhausted"], denied


async def test_a_payment_outside_the_mandate_is_refused_and_nothing_moves(app, owner):
    agent, _ = await _mandated_agent(owner)
    chat = await start(owner.client, agentId=agent["id"])
    run_id, call = await _proposed(app, chat, _send(owner, "75"))  # over maxPerPayment
    assert (await chat.confirm(run_id, call["toolCallId"], True)).status_code == 200
    await drive(app)
    assert "(agent_limit_exceeded)" in await chat.last_text()
    assert await _transfers(owner) == []


async def test_an_agent_paused_after_the_proposal_fails_the_call(app, owner):
    agent, mandate = await _mandated_agent(owner)
    chat = await start(owner.client, agentId=agent["id"])
    run_id, call = await _proposed(app, chat, _send(owner, "25"))
    paused = await owner.client.patch(f"/v1/agents/{agent['id']}", json={"status": "paused"})
    assert paused.status_code == 200, paused.text
    assert (await chat.confirm(run_id, call["toolCallId"], True)).status_code == 200
    await drive(app)
    assert "PAUSED" in await chat.last_text()
    assert await _transfers(owner) == []
    after = (await owner.client.get(f"/v1/agent-mandates/{mandate['id']}")).json()
    assert after["uses"] == 0


async def test_a_thread_that_acts_as_an_agent_is_refused_clearly(app, owner, make_tenant):
    async def refused(agent_id: str, status: int, code: str) -> dict:
        answer = await owner.client.post(
            "/v1/assistant/threads", json={"title": "As the agent", "agentId": agent_id}
        )
        return assert_error(answer, status, code)

    body = await refused("cus_01jd3x0p6x9e3k2v1m8q4r7s5t", 422, "validation_error")
    assert body["errors"][0]["field"] == "agentId"
    await refused("agt_01jd3x0p6x9e3k2v1m8q4r7s5t", 404, "not_found")
    keyless = await owner.create_agent(name="No key yet")
    await refused(keyless["id"], 409, "invalid_state")
    # Another organization's agent is not found, and nothing is made.
    other = await make_tenant()
    foreign = await (await make_owner(app, other)).create_agent(name="Theirs")
    await refused(foreign["id"], 404, "not_found")
    threads = (await owner.client.get("/v1/assistant/threads")).json()["data"]
    assert threads == []
