"""Organizations' sandbox clocks (API.md 9, as Stripe's test clocks), and how the parts
that need "now" read them: a request's clock, and the workers' moments of due work.

A clock lives here, beside its table (as the outbox's `emit` beside events), because the
web edge and the workers below every domain both read it. An organization without a row
runs on the system clock; only the sandbox ever writes rows.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import BigInteger, ForeignKey, String, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Mapped, mapped_column

from corridor.kit.clock import Clock, ClockShift, Moments, ShiftedClock
from corridor.models.base import Base

# Due-work queries name each moved clock's organization (kit.db.due): a bound on how many.
shifted_clocks_max = 1000
# session.info's entry of `note_shift`.
_NOTED_SHIFTS = "clock_shifts"


class SandboxClock(Base):
    __tablename__ = "sandbox_clocks"

    organization_id: Mapped[str] = mapped_column(
        String(40), ForeignKey("organizations.id"), primary_key=True
    )
    # The organization's time minus the system's, while the clock runs.
    offset_ms: Mapped[int] = mapped_column(BigInteger)
    frozen_at: Mapped[datetime | None]
    updated_at: Mapped[datetime]

    @property
    def shift(self) -> ClockShift:
        return ClockShift(offset=timedelta(milliseconds=self.offset_ms), frozen_at=self.frozen_at)


def note_shift(session: AsyncSession, organization_id: str, row: SandboxClock | None) -> None:
    """What a read that joined the organization's clock row found (None: never moved), so
    `shift_of` in the same unit of work answers without a round trip of its own."""
    noted: dict[str, ClockShift | None] = session.info.setdefault(_NOTED_SHIFTS, {})
    noted[organization_id] = None if row is None else row.shift


async def shift_of(session: AsyncSession, organization_id: str) -> ClockShift | None:
    noted = session.info.get(_NOTED_SHIFTS)
    if noted is not None and organization_id in noted:
        return noted[organization_id]
    row = await session.get(SandboxClock, organization_id)
    return None if row is None else row.shift


async def clock_of(session: AsyncSession, organization_id: str, base: Clock) -> Clock:
    """The organization's clock: `base` itself unless its sandbox clock was moved."""
    shift = await shift_of(session, organization_id)
    return base if shift is None else ShiftedClock(base, shift)


async def shifts(
    session: AsyncSession, *, organization_id: str | None = None
) -> dict[str, ClockShift]:
    """Every moved clock (one organization's, when given): the workers read them once a
    pass and compute each organization's moment with `Moments.at`."""
    statement = select(SandboxClock).order_by(SandboxClock.updated_at.desc())
    if organization_id is not None:
        statement = statement.where(SandboxClock.organization_id == organization_id)
    rows = (await session.execute(statement.limit(shifted_clocks_max))).scalars()
    return {row.organization_id: row.shift for row in rows}


async def moments(
    session: AsyncSession, base: Clock, *, organization_id: str | None = None
) -> Moments:
    return Moments.at(base.now(), await shifts(session, organization_id=organization_id))
