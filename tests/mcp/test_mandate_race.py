"""One mandate, paid against at once through its three doors: REST, MCP tool calls, and
assistant threads that act as the agent (issue 25). The consumption is one guarded write in
the submit's transaction whatever door the payment came in by, so the mixed race of 100
payments, in two API processes, admits exactly the mandate's uses, never more, and every
refusal names the mandate's code. `corridor serve` twice on one database (the second runs
the workers, which carry the assistant's runs), the official `mcp` client."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from pathlib import Path

import httpx

from tests.live_server import LiveServer, another_server
from tests.mcp.conftest import Shop, mcp_client

rest_racers = 40
mcp_sessions = 5
calls_per_session = 6
assistant_racers = 30
admitted = 17  # the mandate's maxUses (its budget would allow more)
# A bound on the worker reaching each run's confirmation, not a timing: a loaded machine
# imports the worker's process slowly.
proposal_wait_s_max = 300


async def _mandate(shop: Shop) -> dict:
    made = await shop.rest.patch(f"/v1/agents/{shop.agent_id}", json={"requireMandate": True})
    assert made.status_code == 200, made.text
    counterparty = (await shop.rest.get(f"/v1/external-accounts/{shop.payee_account_id}")).json()[
        "counterpartyId"
    ]
    created = await shop.rest.post(
        f"/v1/agents/{shop.agent_id}/mandates",
        json={
            "currency": "USD",
            "payees": [{"type": "counterparty", "id": counterparty}],
            "maxPerPayment": "100",
            "budget": {"amount": "100000", "recurrence": "NONE"},
            "maxUses": admitted,
            "notAfter": "2099-01-01T00:00:00Z",
            "purpose": "Race of REST and MCP",
        },
    )
    assert created.status_code == 201, created.text
    return created.json()


async def _proposals(client: httpx.AsyncClient, shop: Shop) -> list[tuple[str, str]]:
    """`assistant_racers` threads acting as the agent, each with a run waiting for the
    owner to confirm a payment to the mandate's payee: each thread's id and the
    confirmation URL to race."""
    runs = []
    for number in range(assistant_racers):
        thread = await client.post(
            "/v1/assistant/threads", json={"title": f"Parts {number}", "agentId": shop.agent_id}
        )
        assert thread.status_code == 201, thread.text
        text = f"send 1.00 USD to {shop.payee_account_id} from {shop.usd_account}"
        sent = await client.post(
            f"/v1/assistant/threads/{thread.json()['id']}/messages", json={"text": text}
        )
        assert sent.status_code == 201, sent.text
        runs.append((thread.json()["id"], sent.json()["run"]["id"]))
    deadline = time.monotonic() + proposal_wait_s_max
    urls = []
    for thread_id, run_id in runs:
        while (await client.get(f"/v1/assistant/runs/{run_id}")).json()[
            "status"
        ] != "awaiting_confirmation":
            assert time.monotonic() < deadline, f"run {run_id} never proposed its payment"
            await asyncio.sleep(0.1)
        messages = (await client.get(f"/v1/assistant/threads/{thread_id}/messages")).json()
        [call] = [
            part
            for message in messages["data"]
            for part in message["parts"]
            if part.get("status") == "pending_confirmation"
        ]
        assert call["tool"] == "create_transfer", call
        url = f"/v1/assistant/runs/{run_id}/tool-calls/{call['toolCallId']}/confirmation"
        urls.append((thread_id, url))
    return urls


async def test_rest_mcp_and_assistant_payments_at_once_admit_exactly_the_mandate(
    live: LiveServer, shop: Shop, tmp_path: Path
) -> None:
    mandate = await _mandate(shop)
    rest_body = {
        **{key: value for key, value in shop.payment("1.00").items() if key != "amount"},
        "amount": {"currency": "USD", "value": "100"},
        "confirm": True,
    }
    rest_body.pop("currency")
    headers = {"Authorization": f"Bearer {shop.agent_secret}"}

    async def by_rest(client: httpx.AsyncClient) -> tuple[str, dict]:
        answer = await client.post("/v1/transfers", json=rest_body, headers=headers)
        assert answer.status_code in (201, 403), answer.text
        body = answer.json()
        return ("ok" if answer.status_code == 201 else "refused"), body

    async def by_mcp(client) -> tuple[str, dict]:
        sent = await client.call_tool("create_transfer", shop.payment("1.00", submit=True))
        return ("refused" if sent.is_error else "ok"), sent.structured_content or {}

    async def by_assistant(client: httpx.AsyncClient, thread_id: str, url: str) -> tuple[str, dict]:
        answer = await client.post(url, json={"approved": True})
        assert answer.status_code == 200, answer.text
        # The confirmed call's result, as the thread's tool message holds it.
        messages = (await client.get(f"/v1/assistant/threads/{thread_id}/messages")).json()
        [result] = [
            json.loads(part["text"])
            for message in messages["data"]
            for part in message["parts"]
            if part["type"] == "tool_result"
        ]
        if "result" in result:
            return "ok", result["result"]
        return "refused", result["error"]

    # A second API process on the same database, running the workers: it carries the
    # assistant's runs, and takes half the REST payments and every confirmation.
    with another_server(live, tmp_path, workers=True) as second:
        async with contextlib.AsyncExitStack() as stack:
            other = await stack.enter_async_context(
                httpx.AsyncClient(
                    base_url=second.base_url,
                    headers={"Authorization": f"Bearer {second.api_key}"},
                    timeout=60,
                )
            )
            proposals = await _proposals(other, shop)
            # The MCP sessions are open before the race starts, so every door races.
            sessions = [
                await stack.enter_async_context(mcp_client(live, shop.agent_secret))
                for _ in range(mcp_sessions)
            ]
            calls = (
                [by_rest(shop.rest if n % 2 else other) for n in range(rest_racers)]
                + [by_mcp(session) for session in sessions for _ in range(calls_per_session)]
                + [by_assistant(other, thread_id, url) for thread_id, url in proposals]
            )
            answers = await asyncio.gather(*calls)
    assert len(answers) == 100
    paid = [body for outcome, body in answers if outcome == "ok"]
    refused = [body for outcome, body in answers if outcome == "refused"]
    for body in refused:
        assert body["code"] == "agent_limit_exceeded", body
        assert body["denial"]["code"] == "mandate_uses_exhausted", body
    after = (await shop.rest.get(f"/v1/agent-mandates/{mandate['id']}")).json()
    assert after["uses"] == admitted and after["status"] == "EXHAUSTED"
    assert after["used"] == str(admitted * 100)
    # Exactly `admitted` payments exist, each naming the mandate it consumed, whichever
    # door it came in by, and each is one a door was told it made.
    listed = await shop.rest.get(
        "/v1/transfers", params={"customerId": shop.customer_id, "limit": 100}
    )
    made = listed.json()["data"]
    assert len(made) == admitted, [item["status"] for item in made]
    assert all(item["mandateId"] == mandate["id"] for item in made)
    told = {body.get("id") or body.get("transfer", {}).get("id") for body in paid}
    assert told == {item["id"] for item in made}
    doors = ["REST"] * rest_racers + ["MCP"] * (mcp_sessions * calls_per_session)
    doors += ["assistant"] * assistant_racers
    tally = {
        door: sum(
            1
            for (outcome, _), at in zip(answers, doors, strict=True)
            if at == door and outcome == "ok"
        )
        for door in ("REST", "MCP", "assistant")
    }
    print(f"mixed race: paid by door {tally}, {len(refused)} refused (mandate_uses_exhausted)")
