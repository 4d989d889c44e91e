"""The spend counters' one guarded upsert (transfers/spending.py `add`) against a model, on
the real database: random payments over a few days of one month, under random day, month
and payment-count limits. A payment is counted exactly when it fits every limit as the
counters stand; counted, both its day and its month hold it; refused, neither changed
(the window that took it in the statement gave it back)."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corridor.transfers import repository, spending

examples_max = 25
payments_max = 12

_limits = st.tuples(
    st.none() | st.integers(min_value=40, max_value=150),  # daily
    st.none() | st.integers(min_value=60, max_value=300),  # monthly
    st.none() | st.integers(min_value=1, max_value=4),  # payments a day
)
# (day of the month, amount): amounts stay within each limit on their own, as the guard's
# caller ensures (a payment over a limit by itself is refused before it is counted).
_payments = st.lists(
    st.tuples(st.integers(min_value=1, max_value=3), st.integers(min_value=1, max_value=40)),
    min_size=1,
    max_size=payments_max,
)


@settings(
    max_examples=examples_max,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(limits=_limits, payments=_payments)
async def test_counted_exactly_when_every_limit_fits_and_never_half(app, owner, limits, payments):
    agent_id = (await owner.create_agent())["id"]  # counters of its own
    daily, monthly, per_day = limits
    spent: dict[int, int] = {}
    counted: dict[int, int] = {}
    month_spent = 0
    database = app.state.database
    for day, amount in payments:
        at = datetime(2026, 5, day, 12, 0, tzinfo=UTC)
        fits = (
            (daily is None or spent.get(day, 0) + amount <= daily)
            and (monthly is None or month_spent + amount <= monthly)
            and (per_day is None or counted.get(day, 0) + 1 <= per_day)
        )
        async with database.session() as session, session.begin():
            added = await spending.add(
                session,
                agent_id=agent_id,
                currency="USD",
                amount=amount,
                at=at,
                now=at,
                day_limit=daily,
                month_limit=monthly,
                day_payments_limit=per_day,
            )
        assert added == fits, (day, amount, spent, month_spent, counted)
        if added:
            spent[day] = spent.get(day, 0) + amount
            counted[day] = counted.get(day, 0) + 1
            month_spent += amount
        async with database.session() as session:
            day_id, month_id = spending.window_ids(agent_id, "USD", at)
            held = await repository.spend_windows(session, [day_id, month_id])
        assert held.get(day_id, (0, 0)) == (spent.get(day, 0), counted.get(day, 0))
        assert held.get(month_id, (0, 0))[0] == month_spent
