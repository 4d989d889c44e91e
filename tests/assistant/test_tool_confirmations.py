"""The assistant's confirmation cards are tool confirmations (`tcf_…`, API.md 9), the record
kind MCP confirmations use: listed with the exact arguments, decided either in the thread
or through POST /v1/tool-confirmations/{id}/decision, each decision with who and when."""

from __future__ import annotations

from tests.agents.conftest import Owner
from tests.assistant.conftest import drive, start


def _send(owner: Owner, amount: str) -> str:
    return f"send {amount} USD to Müller Maschinenbau GmbH from {owner.usd_account}"


async def _records(owner: Owner, **params: str) -> list[dict]:
    listed = await owner.client.get("/v1/tool-confirmations", params=params)
    assert listed.status_code == 200, listed.text
    return listed.json()["data"]


async def test_a_card_is_a_pending_tool_confirmation_decided_in_the_thread(
    app, owner: Owner
) -> None:
    chat = await start(owner.client)
    sent = await chat.say(_send(owner, "25"))
    await drive(app)
    call = await chat.pending_call()
    [record] = await _records(owner, status="PENDING")
    assert (record["origin"], record["tool"]) == ("assistant", "create_transfer")
    assert record["summary"] == call["argsSummary"] and record["effect"] == call["preview"]
    assert record["arguments"]["amount"] == "25"
    assert record["expiresAt"] is None
    confirmed = await chat.confirm(sent["run"]["id"], call["toolCallId"], True)
    assert confirmed.status_code == 200, confirmed.text
    shown = (await owner.client.get(f"/v1/tool-confirmations/{record['id']}")).json()
    assert shown["status"] == "APPROVED" and shown["decidedVia"] == "assistant"
    assert shown["decidedBy"].startswith(("usr_", "key_")) and shown["decidedAt"]
    assert shown["executedAt"] and shown["outcome"]["result"]["status"] == "PENDING"
    again = await owner.client.post(
        f"/v1/tool-confirmations/{record['id']}/decision", json={"approved": True}
    )
    assert again.status_code == 409


async def test_deciding_a_card_through_the_tool_confirmations_api_runs_the_run_on(
    app, owner: Owner
) -> None:
    chat = await start(owner.client)
    sent = await chat.say(_send(owner, "30"))
    await drive(app)
    [record] = await _records(owner, status="PENDING")
    decided = await owner.client.post(
        f"/v1/tool-confirmations/{record['id']}/decision", json={"approved": False}
    )
    assert decided.status_code == 200, decided.text
    assert decided.json()["status"] == "REFUSED"
    assert decided.json()["executedAt"] is None
    await drive(app)
    assert (await chat.run(sent["run"]["id"]))["status"] == "completed"
    listed = await owner.client.get("/v1/transfers", params={"customerId": owner.customer.id})
    assert listed.json()["data"] == []


async def test_cancelling_the_run_refuses_its_card(app, owner: Owner) -> None:
    chat = await start(owner.client)
    sent = await chat.say(_send(owner, "31"))
    await drive(app)
    cancelled = await owner.client.post(f"/v1/assistant/runs/{sent['run']['id']}/cancel")
    assert cancelled.status_code == 200, cancelled.text
    [record] = await _records(owner)
    assert record["status"] == "REFUSED" and record["executedAt"] is None
