"""Concurrent submits debiting one account (issue 12, the hot account): the hold is the
submit's last write, so its row lock is held only to the commit; under that lock each
submit still gets an exact answer. N at once against a balance that covers exactly K of
them: K are accepted, N - K refused with insufficient_funds, nothing overspent, and the
books balance. On PostgreSQL the row lock serialises them; on SQLite the write queue."""

from __future__ import annotations

import asyncio

from tests.conftest import assert_error
from tests.transfers.conftest import (
    amount,
    assert_books_balance,
    fetch,
    make_customer,
    settle,
)

racers = 24
covered = 9
payment_minor = 1_000


async def test_concurrent_submits_on_one_account_accept_exactly_what_the_balance_covers(
    app, tenant, customer
):
    receiver = await make_customer(tenant.client)
    await customer.fund("USD", covered * payment_minor)
    body = {
        "customerId": customer.id,
        "source": {"accountId": customer.accounts["USD"]},
        "destination": {"accountId": receiver.accounts["USD"]},
        "amount": amount("USD", payment_minor),
        "confirm": True,
    }
    answers = await asyncio.gather(
        *(tenant.client.post("/v1/transfers", json=body) for _ in range(racers))
    )
    accepted = [answer.json() for answer in answers if answer.status_code == 201]
    for answer in answers:
        if answer.status_code != 201:
            assert_error(answer, 409, "insufficient_funds")
    assert len(accepted) == covered
    assert {transfer["status"] for transfer in accepted} == {"PENDING"}
    assert (await customer.balance("USD"))["available"] == 0
    # A refused submit left nothing behind: only the accepted transfers exist.
    listed = (await tenant.client.get("/v1/transfers", params={"limit": 100})).json()["data"]
    assert sorted(item["id"] for item in listed) == sorted(item["id"] for item in accepted)
    await assert_books_balance(app, tenant.organization_id)
    # Carried out, the holds become exactly the money the receiver gets.
    await settle(app, tenant.organization_id)
    for transfer in accepted:
        assert (await fetch(tenant.client, transfer["id"]))["status"] == "COMPLETED"
    assert (await receiver.balance("USD"))["available"] == covered * payment_minor
    assert (await customer.balance("USD")) == {"available": 0, "pending": 0, "total": 0}
    await assert_books_balance(app, tenant.organization_id)
