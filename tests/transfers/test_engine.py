"""The engine as a worker: registered with the runner, idle when nothing is due, and safe
when several run at once (no leg done twice, no money moved twice)."""

from __future__ import annotations

import asyncio

from corridor.transfers.engine.advance import advance_transfers
from corridor.workers.runner import TASKS
from tests.transfers.conftest import amount, assert_books_balance, create, fetch, make_customer


async def test_the_engine_runs_in_every_worker():
    assert "transfer_engine" in {task.name for task in TASKS}


async def test_an_idle_engine_takes_no_step(app, tenant):
    assert (
        await advance_transfers(
            app.state.database, app.state.clock, organization_id=tenant.organization_id
        )
        == 0
    )


async def test_concurrent_engines_carry_each_transfer_out_exactly_once(app, tenant, customer):
    receiver = await make_customer(tenant.client)
    await customer.fund("USD", 100_000)
    transfers = [
        await create(
            tenant.client,
            {
                "customerId": customer.id,
                "source": {"accountId": customer.accounts["USD"]},
                "destination": {"accountId": receiver.accounts["USD"]},
                "amount": amount("USD", 1_000 + index),
                "confirm": True,
            },
        )
        for index in range(12)
    ]

    async def worker() -> int:
        steps = 0
        for _ in range(20):
            steps += await advance_transfers(
                app.state.database, app.state.clock, organization_id=tenant.organization_id
            )
        return steps

    steps = await asyncio.gather(*(worker() for _ in range(4)))
    # Two legs, one step each (the transfer completes with its last leg): two steps per
    # transfer in all, so no step was taken twice.
    assert sum(steps) == 2 * len(transfers)
    for transfer in transfers:
        assert (await fetch(tenant.client, transfer["id"]))["status"] == "COMPLETED"
    sent = sum(1_000 + index for index in range(12))
    assert (await receiver.balance("USD"))["available"] == sent
    assert (await customer.balance("USD"))["available"] == 100_000 - sent
    await assert_books_balance(app, tenant.organization_id)
