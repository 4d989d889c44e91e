"""One mandate, paid against at once through REST and through MCP tool calls (issue 25):
the consumption is one guarded write in the submit's transaction whatever door the payment
came in by, so the mixed race admits exactly the mandate's uses, never more, and every
refusal names the mandate's code. A served `corridor serve`, the official `mcp` client."""

from __future__ import annotations

import asyncio
import contextlib

from tests.live_server import LiveServer
from tests.mcp.conftest import Shop, mcp_client

rest_racers = 30
mcp_sessions = 5
calls_per_session = 6
admitted = 17  # the mandate's maxUses (its budget would allow more)


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


async def test_rest_and_mcp_payments_at_once_admit_exactly_the_mandate(
    live: LiveServer, shop: Shop
) -> None:
    mandate = await _mandate(shop)
    rest_body = {
        **{key: value for key, value in shop.payment("1.00").items() if key != "amount"},
        "amount": {"currency": "USD", "value": "100"},
        "confirm": True,
    }
    rest_body.pop("currency")
    headers = {"Authorization": f"Bearer {shop.agent_secret}"}

    async def by_rest() -> tuple[str, dict]:
        answer = await shop.rest.post("/v1/transfers", json=rest_body, headers=headers)
        assert answer.status_code in (201, 403), answer.text
        body = answer.json()
        return ("ok" if answer.status_code == 201 else "refused"), body

    async def by_mcp(client) -> tuple[str, dict]:
        sent = await client.call_tool("create_transfer", shop.payment("1.00", submit=True))
        return ("refused" if sent.is_error else "ok"), sent.structured_content or {}

    async with contextlib.AsyncExitStack() as stack:
        # The MCP sessions are open before the race starts, so both doors race.
        sessions = [
            await stack.enter_async_context(mcp_client(live, shop.agent_secret))
            for _ in range(mcp_sessions)
        ]
        calls = [by_rest() for _ in range(rest_racers)] + [
            by_mcp(session) for session in sessions for _ in range(calls_per_session)
        ]
        answers = await asyncio.gather(*calls)
    assert len(answers) == rest_racers + mcp_sessions * calls_per_session
    paid = [body for outcome, body in answers if outcome == "ok"]
    refused = [body for outcome, body in answers if outcome == "refused"]
    assert len(paid) == admitted, (len(paid), refused[:3])
    for body in refused:
        assert body["code"] == "agent_limit_exceeded", body
        assert body["denial"]["code"] == "mandate_uses_exhausted", body
    after = (await shop.rest.get(f"/v1/agent-mandates/{mandate['id']}")).json()
    assert after["uses"] == admitted and after["status"] == "EXHAUSTED"
    assert after["used"] == str(admitted * 100)
    # Each payment, whichever door it came in by, names the mandate it consumed.
    ids = [body.get("id") or body.get("transfer", {}).get("id") for body in paid]
    assert all(ids), paid[:2]
    for transfer_id in ids:
        shown = (await shop.rest.get(f"/v1/transfers/{transfer_id}")).json()
        assert shown["mandateId"] == mandate["id"]
