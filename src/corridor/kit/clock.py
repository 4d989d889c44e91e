"""The clock services read the time from, so tests can fix it."""

from __future__ import annotations

import functools
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
