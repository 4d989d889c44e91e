"""The SDK's receipts: `transfers.receipts(id)` lists an agent payment's signed receipts,
and `corridor_client.receipts.verify` checks them offline against the server's JWKS."""

from __future__ import annotations

import httpx
import pytest

from corridor_client import Corridor
from corridor_client.receipts import ReceiptInvalid, verify
from tests.client.support import ach_payout, funded_payer
from tests.live_server import LiveServer


def test_an_agent_payment_has_a_receipt_that_verifies_offline(corridor: Corridor, live: LiveServer):
    payer = funded_payer(corridor)
    agent = corridor.agents.create(
        customer_id=payer.customer.id,
        source_account_id=payer.account.id,
        name="Invoice bot",
        limits={"per_transfer": "2000", "daily": "5000"},
        destination_allowlist=[{"type": "external_account", "id": payer.bank_account.id}],
    )
    secret = corridor.agents.keys.create(agent.id, name="bot").secret
    body = ach_payout(payer, "1500", confirm=True)
    del body["customer_id"]
    with Corridor(api_key=secret, base_url=live.base_url) as bot:
        paid = bot.transfers.create(body)
        listed = bot.transfers.receipts(paid.id)
    assert [receipt.kind for receipt in listed.data] == ["AUTHORIZED"]
    jwks = httpx.get(f"{live.base_url}/.well-known/jwks.json").json()
    payload = verify(listed.data[0].jws, jwks)
    assert payload["transferId"] == paid.id and payload["agentId"] == agent.id
    header, claims, signature = listed.data[0].jws.split(".")
    flipped = ("A" if signature[0] != "A" else "B") + signature[1:]
    with pytest.raises(ReceiptInvalid, match="bad signature"):
        verify(f"{header}.{claims}.{flipped}", jwks)
    with pytest.raises(ReceiptInvalid, match="unknown kid"):
        verify(listed.data[0].jws, {"keys": []})
