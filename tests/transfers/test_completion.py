"""A transfer completes in the same transaction as its last leg (API.md §6)."""

from __future__ import annotations

from sqlalchemy import select

from corridor.models.ledger import LedgerAccount
from tests.support import active_customer


async def _payout_of_one_cent(client) -> dict:
    customer = await active_customer(client)
    accounts = (await client.get(f"/v1/customers/{customer['id']}/accounts")).json()["data"]
    usd = next(account["id"] for account in accounts if account["currency"] == "USD")
    funding = {"amount": {"currency": "USD", "value": "100"}}
    assert (await client.post(f"/v1/sandbox/accounts/{usd}/fund", json=funding)).status_code == 200
    external = await client.post(
        "/v1/external-accounts",
        json={
            "customerId": customer["id"],
            "currency": "USD",
            "country": "US",
            "accountHolderName": "Grace Hopper",
            "accountNumber": "000123456789",
            "routingNumber": "021000021",
        },
    )
    created = await client.post(
        "/v1/transfers",
        json={
            "customerId": customer["id"],
            "source": {"accountId": usd},
            "destination": {
                "externalAccountId": external.json()["id"],
                "paymentRail": "ACH",
                "currency": "USD",
            },
            "amount": {"currency": "USD", "value": "1"},
            "confirm": True,
        },
    )
    assert created.status_code == 201, created.text
    return created.json()


async def test_forcing_the_last_leg_completes_the_transfer_at_once(tenant, app):
    """Found by the stateful test: the last leg settled but the transfer stayed PROCESSING
    (with nothing left to do and its money already out of CLEARING) until the engine ran."""
    transfer = await _payout_of_one_cent(tenant.client)
    answers = []
    for _ in transfer["legs"]:
        current = (await tenant.client.get(f"/v1/transfers/{transfer['id']}")).json()
        leg = current["legs"][current["currentLegIndex"]]["id"]
        forced = await tenant.client.post(
            f"/v1/sandbox/transfers/{transfer['id']}/legs/{leg}/status",
            json={"status": "COMPLETED"},
        )
        assert forced.status_code == 200, forced.text
        answers.append(forced.json())
    assert [answer["status"] for answer in answers] == ["PROCESSING", "COMPLETED"]
    assert answers[-1]["currentLegIndex"] is None
    async with app.state.database.session(write=False) as session:
        clearing = (
            await session.execute(
                select(LedgerAccount.posted_balance).where(
                    LedgerAccount.organization_id == tenant.organization_id,
                    LedgerAccount.kind == "CLEARING",
                )
            )
        ).scalar_one()
    assert clearing == 0
