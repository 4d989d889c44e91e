"""transfers.daily_volume: transfers created each UTC day, counted, with their source
amounts per currency; drafts and cancelled transfers left out."""

from __future__ import annotations

from datetime import UTC, date, datetime

from corridor.transfers import service as transfers
from tests.tools.support import caller_of
from tests.transfers.conftest import act, amount, create, make_customer


def _at(day: int, hour: int = 12) -> datetime:
    return datetime(2026, 11, day, hour, 0, tzinfo=UTC)


async def test_count_and_amounts_per_day(app, tenant, clock):
    clock.set(_at(14))
    payer = await make_customer(tenant.client, currencies=("USD", "EUR"))
    payee = await make_customer(tenant.client, currencies=("USD", "EUR"))
    await payer.fund("USD", 100_000)
    await payer.fund("EUR", 100_000)

    async def send(currency: str, value: int, *, confirm: bool = True) -> dict:
        return await create(
            tenant.client,
            {
                "customerId": payer.id,
                "source": {"accountId": payer.accounts[currency]},
                "destination": {"accountId": payee.accounts[currency]},
                "amount": amount(currency, value),
                "confirm": confirm,
            },
        )

    await send("USD", 1_000)
    await send("USD", 250)
    await send("EUR", 70)
    clock.set(_at(16, 23))
    await send("USD", 5)
    await send("USD", 999, confirm=False)  # a draft: no money moved
    cancelled = await send("USD", 888, confirm=False)
    await act(tenant.client, cancelled["id"], "cancel", {"reason": "typo"})
    clock.set(_at(17, 8))

    caller = await caller_of(app, tenant.secret)
    async with app.state.database.session(write=False) as session:
        found = await transfers.daily_volume(
            session, caller=caller, now=app.state.clock.now(), days=5
        )

    assert [(day.day, day.count, day.amounts) for day in found] == [
        (date(2026, 11, 13), 0, {}),
        (date(2026, 11, 14), 3, {"EUR": 70, "USD": 1_250}),
        (date(2026, 11, 15), 0, {}),
        (date(2026, 11, 16), 1, {"USD": 5}),
        (date(2026, 11, 17), 0, {}),
    ]
    async with app.state.database.session(write=False) as session:
        today_only = await transfers.daily_volume(
            session, caller=caller, now=app.state.clock.now(), days=1
        )
    assert [(day.day, day.count) for day in today_only] == [(date(2026, 11, 17), 0)]
