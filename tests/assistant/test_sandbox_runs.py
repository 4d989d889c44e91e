"""End to end through HTTP with the built-in sandbox provider: a message starts a run,
reads run at once, a payment waits for the user's confirmation of exactly what was
previewed, and nothing moves without it."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from corridor.config import Environment
from corridor.models.transfer import Transfer
from tests.agents.conftest import Owner
from tests.assistant.conftest import drive, start
from tests.conftest import built_app, client_for


async def _transfers(app, owner: Owner) -> int:
    async with app.state.database.session(write=False) as session:
        return await session.scalar(
            select(func.count())
            .select_from(Transfer)
            .where(Transfer.organization_id == owner.tenant.organization_id)
        )


def _send(owner: Owner, amount: str = "25") -> str:
    return f"send {amount} USD to Müller Maschinenbau GmbH from {owner.usd_account}"


async def test_balance_question_is_answered_with_decimals(app, owner: Owner) -> None:
    chat = await start(owner.client)
    sent = await chat.say(f"What is the balance of {owner.usd_account}?")
    assert sent["message"]["role"] == "user"
    assert sent["run"]["status"] == "queued"
    assert sent["run"]["provider"] == "sandbox"
    await drive(app)
    run = await chat.run(sent["run"]["id"])
    assert run["status"] == "completed", run
    assert run["provider"] == "sandbox"
    assert run["costUsd"] == "0"
    assert run["tokensIn"] > 0 and run["tokensOut"] > 0
    assert await chat.last_text() == (
        f"Account {owner.usd_account} has 1000000.00 USD available (0.00 USD pending)."
    )


async def test_unknown_requests_get_what_the_sandbox_can_do(app, owner: Owner) -> None:
    chat = await start(owner.client)
    sent = await chat.say("Write me a poem about ledgers")
    await drive(app)
    assert (await chat.run(sent["run"]["id"]))["status"] == "completed"
    assert "balance of acc_" in await chat.last_text()


async def test_payment_waits_for_confirmation_then_runs_exactly_as_previewed(
    app, owner: Owner
) -> None:
    chat = await start(owner.client)
    before = await _transfers(app, owner)
    sent = await chat.say(_send(owner))
    run_id = sent["run"]["id"]
    await drive(app)
    run = await chat.run(run_id)
    assert run["status"] == "awaiting_confirmation"
    call = await chat.pending_call()
    assert call["tool"] == "create_transfer"
    assert call["argsSummary"] == (
        # The payee's bank account is held by Ada Lovelace (tests.parties.helpers).
        f"Send 25.00 USD from {owner.usd_account} to Ada Lovelace ({owner.payee_account_id}) by ACH"
    )
    assert "Fees: " in call["preview"] and "Recipient gets: 25.00 USD" in call["preview"]
    assert await _transfers(app, owner) == before, "the preview wrote nothing"

    confirmed = await chat.confirm(run_id, call["toolCallId"], True)
    assert confirmed.status_code == 200, confirmed.text
    assert confirmed.json() == {"ok": True}
    assert await _transfers(app, owner) == before + 1
    listed = await owner.client.get("/v1/transfers", params={"customerId": owner.customer.id})
    transfer = listed.json()["data"][0]
    assert transfer["status"] == "PENDING"
    assert transfer["sourceAmount"]["value"] == "2500"
    assert transfer["destination"]["externalAccountId"] == owner.payee_account_id

    await drive(app)
    assert (await chat.run(run_id))["status"] == "completed"
    assert await chat.last_text() == f"Sent: transfer {transfer['id']} of 25.00 USD is PENDING."
    again = await chat.confirm(run_id, call["toolCallId"], True)
    assert again.status_code == 409
    assert await _transfers(app, owner) == before + 1


async def test_refused_payment_never_runs_and_the_run_answers(app, owner: Owner) -> None:
    chat = await start(owner.client)
    before = await _transfers(app, owner)
    sent = await chat.say(_send(owner))
    await drive(app)
    call = await chat.pending_call()
    refused = await chat.confirm(sent["run"]["id"], call["toolCallId"], False)
    assert refused.status_code == 200, refused.text
    await drive(app)
    assert (await chat.run(sent["run"]["id"]))["status"] == "completed"
    assert await chat.last_text() == "Understood: I did not do it."
    assert await _transfers(app, owner) == before


async def test_cancelling_an_awaiting_run_means_the_write_never_runs(app, owner: Owner) -> None:
    chat = await start(owner.client)
    before = await _transfers(app, owner)
    sent = await chat.say(_send(owner))
    run_id = sent["run"]["id"]
    await drive(app)
    call = await chat.pending_call()
    cancelled = await owner.client.post(f"/v1/assistant/runs/{run_id}/cancel")
    assert cancelled.status_code == 200, cancelled.text
    assert cancelled.json()["status"] == "cancelled"
    assert cancelled.json()["cancelRequestedAt"] is not None
    late = await chat.confirm(run_id, call["toolCallId"], True)
    assert late.status_code == 409
    await drive(app)
    assert await _transfers(app, owner) == before
    assert (await chat.run(run_id))["status"] == "cancelled"


async def test_confirmation_survives_a_server_restart(app, database_url, owner: Owner) -> None:
    chat = await start(owner.client)
    before = await _transfers(app, owner)
    sent = await chat.say(_send(owner, "10.50"))
    await drive(app)
    call = await chat.pending_call()
    async with built_app(database_url, Environment.SANDBOX) as restarted:
        async with client_for(restarted, owner.tenant.headers()) as client:
            confirmed = await client.post(
                f"/v1/assistant/runs/{sent['run']['id']}/tool-calls/{call['toolCallId']}"
                "/confirmation",
                json={"approved": True},
            )
            assert confirmed.status_code == 200, confirmed.text
            await drive(restarted)
            run = await client.get(f"/v1/assistant/runs/{sent['run']['id']}")
    assert run.json()["status"] == "completed"
    assert await _transfers(app, owner) == before + 1


async def test_transfers_awaiting_approval_are_listed(app, owner: Owner) -> None:
    agent = await owner.create_agent(overLimitAction="REQUEST_APPROVAL")
    agent_client = await owner.agent_client(agent["id"])
    created = await agent_client.post("/v1/transfers", json=owner.payment(60_000))
    parked = await agent_client.post(f"/v1/transfers/{created.json()['id']}/submit")
    assert parked.status_code == 403
    await agent_client.aclose()
    chat = await start(owner.client)
    await chat.say("show transfers awaiting approval")
    await drive(app)
    text = await chat.last_text()
    assert text.startswith("1 transfer(s) await an owner's approval")
    assert f"{created.json()['id']}: 600.00 USD by agent {agent['id']}" in text


@pytest.mark.parametrize("words", ["send 25.001 USD to Müller Maschinenbau GmbH from "])
async def test_amount_the_currency_cannot_carry_is_refused_not_rounded(
    app, owner: Owner, words: str
) -> None:
    chat = await start(owner.client)
    before = await _transfers(app, owner)
    sent = await chat.say(words + owner.usd_account)
    await drive(app)
    call = await chat.pending_call()
    assert "Would be refused" in call["preview"]
    assert "amounts are never rounded" in call["preview"]
    await chat.confirm(sent["run"]["id"], call["toolCallId"], True)
    await drive(app)
    assert "That did not work" in await chat.last_text()
    assert await _transfers(app, owner) == before
