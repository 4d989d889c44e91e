"""treasury.balance_history: the organization's posted customer balances at the end of each
UTC day, walked back from today's balances through the ledger's postings."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from corridor.treasury import service as treasury
from tests.tools.support import caller_of
from tests.transfers.conftest import make_customer


def _at(day: int, hour: int = 12) -> datetime:
    return datetime(2026, 11, day, hour, 0, tzinfo=UTC)


async def _history(app, tenant, days: int) -> dict[str, list[tuple[date, int]]]:
    caller = await caller_of(app, tenant.secret)
    async with app.state.database.session(write=False) as session:
        found = await treasury.balance_history(
            session, caller=caller, now=app.state.clock.now(), days=days
        )
    return {item.currency: [(point.day, point.posted) for point in item.days] for item in found}


def _expected(first: date, values: list[int]) -> list[tuple[date, int]]:
    return [(first + timedelta(days=index), value) for index, value in enumerate(values)]


async def test_each_days_end_balance_per_currency(app, tenant, make_tenant, clock):
    clock.set(_at(10, 9))
    customer = await make_customer(tenant.client, currencies=("USD", "EUR"))
    await customer.fund("USD", 10_000)
    clock.set(_at(12, 23))  # late in the day: still Nov 12 in UTC
    await customer.fund("USD", 2_500)
    await customer.fund("EUR", 700)
    clock.set(_at(13, 0))
    second = await make_customer(tenant.client, currencies=("USD", "EUR"))
    await second.fund("USD", 1)
    other = await make_tenant()  # another organization's money never shows
    other_customer = await make_customer(other.client, currencies=("USD",))
    await other_customer.fund("USD", 999_999)
    clock.set(_at(18))

    history = await _history(app, tenant, days=10)

    assert list(history) == ["EUR", "USD"]
    # Nov 9 … Nov 18
    assert history["USD"] == _expected(
        date(2026, 11, 9),
        [0, 10_000, 10_000, 12_500, 12_501, 12_501, 12_501, 12_501, 12_501, 12_501],
    )
    assert history["EUR"] == _expected(
        date(2026, 11, 9), [0, 0, 0, 700, 700, 700, 700, 700, 700, 700]
    )
    # Today's end is the balance now, whatever the window.
    short = await _history(app, tenant, days=2)
    assert short["USD"] == _expected(date(2026, 11, 17), [12_501, 12_501])


async def test_a_new_organization_has_no_history(app, tenant, clock):
    clock.set(_at(18))
    assert await _history(app, tenant, days=30) == {}
