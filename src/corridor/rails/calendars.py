"""Business days of payment markets, and the cutoff windows of batch rails (pure).

A business day is a weekday that is not a closing day of the market's financial calendar
in the `holidays` package: "FED" (the Federal Reserve Banks' holidays, for US rails) and
"TAR" (TARGET2 closing days, for SEPA). Each calendar is built once per market and year.

A batch rail runs in cutoff windows. A payment received before a window's cutoff (a local
time in the rail's market timezone, on a business day) goes out in that window; one
received at or after the day's last cutoff, or on a weekend or holiday, rolls to the first
window of the next business day. The window then settles a fixed number of business days
later, either at a fixed local settlement time (ACH, SEPA, SWIFT) or as soon as the
payment is released plus a processing delay (Fedwire). All arithmetic is done on local
dates and wall-clock times, then converted to UTC, so daylight-saving changes move the
UTC instants and never the local cutoff.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from enum import StrEnum
from zoneinfo import ZoneInfo

import holidays

# No market closes for weeks on end: a longer search for a business day is a bug.
business_day_search_days_max = 31
settlement_lag_business_days_max = 10
_SATURDAY = 5


class Market(StrEnum):
    """A financial calendar of the `holidays` package."""

    FED = "FED"
    TARGET = "TAR"


@functools.lru_cache(maxsize=64)
def _closing_days(market: Market, year: int) -> frozenset[date]:
    return frozenset(holidays.financial_holidays(market.value, years=year))


def is_business_day(day: date, *, market: Market) -> bool:
    return day.weekday() < _SATURDAY and day not in _closing_days(market, day.year)


def business_day_on_or_after(day: date, *, market: Market) -> date:
    for offset_days in range(business_day_search_days_max):
        candidate = day + timedelta(days=offset_days)
        if is_business_day(candidate, market=market):
            return candidate
    raise AssertionError(f"no {market} business day within a month of {day}")


def next_business_day(day: date, *, market: Market) -> date:
    """The first business day strictly after `day`."""
    return business_day_on_or_after(day + timedelta(days=1), market=market)


def add_business_days(day: date, count: int, *, market: Market) -> date:
    """`day` moved forward by `count` business days (`day` itself when count is 0)."""
    assert 0 <= count <= settlement_lag_business_days_max, count
    for _ in range(count):
        day = next_business_day(day, market=market)
    return day


@dataclass(frozen=True)
class CutoffWindow:
    """One cycle of a batch rail on each business day."""

    cutoff_local: time
    settlement_lag_business_days: int
    # A fixed local settlement time on the settlement day; None: the payment settles when
    # it is released (not before `opening_local`) plus `release_duration_s`.
    settlement_local: time | None = None
    opening_local: time = time(0, 0)
    release_duration_s: int = 0

    def __post_init__(self) -> None:
        lag_days = self.settlement_lag_business_days
        assert 0 <= lag_days <= settlement_lag_business_days_max, lag_days
        assert self.release_duration_s >= 0
        assert self.opening_local < self.cutoff_local
        if self.settlement_local is not None and lag_days == 0:
            # Settling before the cutoff could settle before a payment was received.
            assert self.settlement_local > self.cutoff_local


@dataclass(frozen=True)
class CutoffTiming:
    next_cutoff_at: datetime  # UTC
    estimated_settlement_at: datetime  # UTC


class _LastTiming:
    """A rule's last timing and the instants it holds for: [since, until). One tuple,
    replaced whole, so a thread reading it never sees half of an update."""

    __slots__ = ("kept",)

    def __init__(self) -> None:
        self.kept: tuple[datetime, datetime, CutoffTiming] | None = None


@dataclass(frozen=True)
class CutoffRule:
    """The cutoff windows of a batch rail, in its market's calendar and timezone."""

    market: Market
    timezone: str  # IANA name
    windows: tuple[CutoffWindow, ...]
    _last: _LastTiming = field(default_factory=_LastTiming, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        assert self.windows, "a batch rail has at least one window"
        cutoffs = [window.cutoff_local for window in self.windows]
        assert cutoffs == sorted(set(cutoffs)), "windows are in cutoff order, no repeats"
        ZoneInfo(self.timezone)  # an unknown timezone fails here, not on first use

    @property
    def cutoff_times_local(self) -> tuple[time, ...]:
        return tuple(window.cutoff_local for window in self.windows)

    def timing(self, *, at: datetime) -> CutoffTiming:
        """The cutoff a payment received at `at` makes, and when it then settles."""
        assert at.tzinfo is not None, "cutoffs need an aware datetime"
        at = at.astimezone(UTC)
        kept = self._last.kept
        if kept is not None and kept[0] <= at < kept[1]:
            return kept[2]
        timing, until = self._timing(at)
        if at < until:
            self._last.kept = (at, until, timing)
        return timing

    def _timing(self, at: datetime) -> tuple[CutoffTiming, datetime]:
        """The timing of `at`, and until when every later instant has the same one.

        Every instant from `at` up to the cutoff it makes lands on the same business day
        (the days between were no business days, or `at` would have made their cutoffs)
        and before the same window (the earlier ones had passed at `at` already): so it
        makes the same cutoff and settles alike, but for a window settling when released,
        which depends on the instant once the settlement day has opened."""
        zone = ZoneInfo(self.timezone)
        day = business_day_on_or_after(at.astimezone(zone).date(), market=self.market)
        window = self._first_open_window(day, at=at, zone=zone)
        if window is None:
            day = next_business_day(day, market=self.market)
            window = self.windows[0]
        next_cutoff_at = local_instant(day, window.cutoff_local, zone)
        until = next_cutoff_at
        if window.settlement_local is None:
            settlement_day = add_business_days(
                day, window.settlement_lag_business_days, market=self.market
            )
            until = min(until, local_instant(settlement_day, window.opening_local, zone))
        timing = CutoffTiming(
            next_cutoff_at=next_cutoff_at,
            estimated_settlement_at=self._settlement(window, day=day, at=at, zone=zone),
        )
        return timing, until

    def _first_open_window(self, day: date, *, at: datetime, zone: ZoneInfo) -> CutoffWindow | None:
        for window in self.windows:
            # A payment received exactly at the cutoff misses it.
            if at < local_instant(day, window.cutoff_local, zone):
                return window
        return None

    def _settlement(
        self, window: CutoffWindow, *, day: date, at: datetime, zone: ZoneInfo
    ) -> datetime:
        lag_days = window.settlement_lag_business_days
        settlement_day = add_business_days(day, lag_days, market=self.market)
        if window.settlement_local is not None:
            return local_instant(settlement_day, window.settlement_local, zone)
        released_at = max(at, local_instant(settlement_day, window.opening_local, zone))
        return released_at + timedelta(seconds=window.release_duration_s)


def local_instant(day: date, wall_time: time, zone: ZoneInfo) -> datetime:
    """A local date and wall-clock time in `zone`, as a UTC instant."""
    return datetime.combine(day, wall_time, tzinfo=zone).astimezone(UTC)
