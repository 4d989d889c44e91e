"""The sandbox clock's use cases: read it, advance it, reset it (API.md 9).

An organization's clock is the system's until it is advanced; then every part that asks
for "now" on its behalf (its requests, through the request context; the workers' due
work, through `models.clock.moments`) reads the organization's time. Reset goes back to
real time, and the only move backwards.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth.callers import Caller
from corridor.auth.scopes import Scope
from corridor.clocks import repository, rules
from corridor.clocks.errors import ClockBackwards, ClockNotFound
from corridor.clocks.schemas import ClockRead
from corridor.kit.clock import Clock, ClockShift
from corridor.models.clock import SandboxClock, clock_of, note_shift


def _read(shift: ClockShift, system_now: datetime) -> ClockRead:
    return ClockRead.of(
        shift.at(system_now),
        frozen=shift.frozen_at is not None,
        offset_seconds=int((shift.at(system_now) - system_now).total_seconds()),
    )


async def read_clock(
    session: AsyncSession, *, caller: Caller, sandbox: bool, system_now: datetime
) -> ClockRead:
    if not sandbox:
        raise ClockNotFound()
    row = await repository.clock_row(session, caller.organization_id, locked=False)
    return _read(row.shift if row is not None else ClockShift(), system_now)


async def advance_clock(
    session: AsyncSession,
    *,
    caller: Caller,
    sandbox: bool,
    system_now: datetime,
    seconds: int | None,
    to: datetime | None,
    freeze: bool | None,
) -> ClockRead:
    """Move the organization's clock forward by `seconds`, or to `to`."""
    if not sandbox:
        raise ClockNotFound()
    caller.require_scope(Scope.SANDBOX_WRITE)
    row = await repository.clock_row(session, caller.organization_id, locked=True)
    current = row.shift if row is not None else ClockShift()
    now = current.at(system_now)
    if to is None:
        assert seconds is not None
        target = now + timedelta(seconds=seconds)
    else:
        target = to
        if target < now:
            raise ClockBackwards(
                "to", f"the clock never goes backwards: it is already {now.isoformat()}"
            )
    if target - system_now > timedelta(seconds=rules.advance_s_max):
        raise ClockBackwards("to", f"at most {rules.advance_s_max} seconds ahead of real time")
    shift = rules.advanced(current, system_now=system_now, to=target, freeze=freeze)
    if row is None:
        row = SandboxClock(organization_id=caller.organization_id)
        session.add(row)
    row.offset_ms = rules.offset_ms(shift)
    row.frozen_at = shift.frozen_at
    row.updated_at = system_now
    note_shift(session, caller.organization_id, row)
    return _read(shift, system_now)


async def reset_clock(
    session: AsyncSession, *, caller: Caller, sandbox: bool, system_now: datetime
) -> ClockRead:
    """Back to real time, running."""
    if not sandbox:
        raise ClockNotFound()
    caller.require_scope(Scope.SANDBOX_WRITE)
    await repository.delete_clock(session, caller.organization_id)
    note_shift(session, caller.organization_id, None)
    return _read(ClockShift(), system_now)


async def clock_for(session: AsyncSession, *, caller: Caller, sandbox: bool, base: Clock) -> Clock:
    """The clock the caller's organization runs on: its sandbox clock when it was advanced,
    else `base` (the system's); production never reads one. What the API's request context
    reads (web/context.py), for callers outside it (the console's test mode)."""
    if not sandbox:
        return base
    return await clock_of(session, caller.organization_id, base)
