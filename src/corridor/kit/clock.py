"""The clock services read the time from, so tests can fix it."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime: ...


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)


class FixedClock:
    """A clock that stands still until moved; for tests at exact times."""

    def __init__(self, at: datetime) -> None:
        assert at.tzinfo is not None, "FixedClock needs an aware datetime"
        self._now = at.astimezone(UTC)

    def now(self) -> datetime:
        return self._now

    def set(self, at: datetime) -> None:
        assert at.tzinfo is not None
        self._now = at.astimezone(UTC)

    def advance(self, **delta: float) -> None:
        self._now += timedelta(**delta)


def as_utc(value: datetime) -> datetime:
    """Datetimes read back from SQLite come without a zone; every stored time is UTC."""
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


# A resource shows the same few instants many times (a transfer's creation is its update,
# its legs' start, its events' time): each is written once. Equal datetimes are one instant
# (a naive one never equals an aware one), so they share their text.
@functools.lru_cache(maxsize=4096)
def isoformat_z(value: datetime) -> str:
    """ISO 8601 UTC with millisecond precision and a Z suffix (API.md section 1)."""
    return as_utc(value).isoformat(timespec="milliseconds").replace("+00:00", "Z")


# --- Sandbox clocks (API.md 9): an organization's own time ---------------------------------


@dataclass(frozen=True, slots=True)
class ClockShift:
    """How an organization's sandbox clock differs from the system's: running `offset`
    ahead of it, or standing still at `frozen_at`."""

    offset: timedelta = timedelta(0)
    frozen_at: datetime | None = None

    def at(self, system_now: datetime) -> datetime:
        return self.frozen_at if self.frozen_at is not None else system_now + self.offset


class ShiftedClock:
    """An organization's clock over the system clock (its sandbox clock)."""

    def __init__(self, base: Clock, shift: ClockShift) -> None:
        self._base, self.shift = base, shift

    def now(self) -> datetime:
        return self.shift.at(self._base.now())


@dataclass(frozen=True, slots=True)
class Moments:
    """ "Now" for every organization at one instant: the system's, except for the
    organizations whose sandbox clock was moved (`shifted`). Due-work queries compare each
    row against its own organization's moment (kit.db.due)."""

    default: datetime
    shifted: Mapping[str, datetime] = field(default_factory=dict)

    def of(self, organization_id: str) -> datetime:
        return self.shifted.get(organization_id, self.default)

    @classmethod
    def at(cls, system_now: datetime, shifts: Mapping[str, ClockShift]) -> Moments:
        return cls(system_now, {key: shift.at(system_now) for key, shift in shifts.items()})
