"""Agent spend counters (issue 24): what each agent has spent in each UTC calendar day and
month, per currency, as rows a submit adds to in its own transaction.

A submit of an agent's transfer adds the transfer's amount to its day's and its month's
window (`add`, one statement for both): when the agent itself submits, each row's add is
guarded by its period's limit in the statement (an upsert whose update applies only while
the sum stays within it), so concurrent submits in any number of processes never
overspend together: each waits on the window's row lock only from its add to its commit,
as a hold waits on its balance.
A transfer that stops counting (cancelled, failed, reversed: `states.SPEND_UNCOUNTED`)
takes its amount back off the windows its submit fell in (`take_back`). What an agent
spent is then two rows by id (`spent`), never a sum over its transfers. Each window also
counts its payments (`payments`, one per add, given back with the amount), guarded in the
same statement by the agent's `dailyPaymentCount` on the day window.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.models.transfer import Transfer
from corridor.transfers import repository
from corridor.transfers.rules.states import SPEND_UNCOUNTED

DAY = repository.SPEND_DAY
MONTH = repository.SPEND_MONTH


def counts(status: str) -> bool:
    """Whether a transfer in this status counts toward its agent's spend (once submitted)."""
    return status not in SPEND_UNCOUNTED


def _starts(at: datetime) -> tuple[datetime, datetime]:
    """The UTC day and the UTC month `at` falls in (their first instants)."""
    day = at.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    return day, day.replace(day=1)


def _window_id(agent_id: str, currency: str, period: str, starts_at: datetime) -> str:
    return f"{agent_id} {currency} {period} {starts_at.date().isoformat()}"


def window_ids(agent_id: str, currency: str, at: datetime) -> tuple[str, str]:
    """The ids of the day and the month window `at` falls in."""
    day, month = _starts(at)
    return _window_id(agent_id, currency, DAY, day), _window_id(agent_id, currency, MONTH, month)


async def spent(
    session: AsyncSession, *, agent_id: str, currency: str, at: datetime
) -> tuple[int, int, int]:
    """What the agent spent in `currency` in the UTC day and the UTC month of `at`, and
    how many payments counted in that day."""
    day_id, month_id = window_ids(agent_id, currency, at)
    found = await repository.spend_windows(session, [day_id, month_id])
    day_spent, day_payments = found.get(day_id, (0, 0))
    return day_spent, found.get(month_id, (0, 0))[0], day_payments


async def _take_from(session: AsyncSession, window_id: str, amount: int, *, now: datetime) -> None:
    await repository.take_from_spend_window(session, window_id, amount, now=now)


async def add(
    session: AsyncSession,
    *,
    agent_id: str,
    currency: str,
    amount: int,
    at: datetime,
    now: datetime,
    day_limit: int | None = None,
    month_limit: int | None = None,
    day_payments_limit: int | None = None,
) -> bool:
    """Count a submitted transfer of `amount` (submitted `at`) toward the agent's day and
    month (its amount and one payment), both in one statement. With limits (the agent's own
    submit), all or nothing: False, having changed nothing, when either window would go over
    a limit as the database holds it now (the one that took the amount gives it back)."""
    assert amount > 0
    assert all(limit is None or amount <= limit for limit in (day_limit, month_limit))
    day, month = _starts(at)
    windows = [
        (_window_id(agent_id, currency, DAY, day), day),
        (_window_id(agent_id, currency, MONTH, month), month),
    ]
    added = await repository.add_to_spend_windows(
        session,
        agent_id=agent_id,
        currency=currency,
        amount=amount,
        day=windows[0],
        month=windows[1],
        now=now,
        day_limit=day_limit,
        month_limit=month_limit,
        day_payments_limit=day_payments_limit,
    )
    if len(added) == len(windows):
        return True
    for window_id in sorted(added):
        await _take_from(session, window_id, amount, now=now)
    return False


async def take_back(session: AsyncSession, *, transfer: Transfer, now: datetime) -> None:
    """A submitted agent transfer stopped counting: its amount leaves the day and the month
    its submit fell in."""
    assert transfer.agent_id is not None and transfer.submitted_at is not None
    day_id, month_id = window_ids(
        transfer.agent_id, transfer.source_currency, transfer.submitted_at
    )
    for window_id in (day_id, month_id):
        await _take_from(session, window_id, transfer.source_amount, now=now)
