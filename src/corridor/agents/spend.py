"""Spend-limit windows and the decision on one submit (spec 7, 8): pure arithmetic.

Windows are the UTC calendar day and the UTC calendar month, each half-open
[start, end). A transfer counts in the window its `submitted_at` falls in. Amounts are
integer minor units of the agent's limit currency; nothing here touches the web or the
database.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum

from corridor.transfers.rules.states import SPEND_UNCOUNTED


class Window(StrEnum):
    TRANSFER = "transfer"
    DAY = "day"
    MONTH = "month"


class DenialCode(StrEnum):
    PER_TRANSFER = "per_transfer_limit_exceeded"
    DAILY = "daily_limit_exceeded"
    MONTHLY = "monthly_limit_exceeded"
    DAILY_COUNT = "daily_count_exceeded"


DENIAL_CODES = {
    Window.TRANSFER: DenialCode.PER_TRANSFER,
    Window.DAY: DenialCode.DAILY,
    Window.MONTH: DenialCode.MONTHLY,
}

# Transfers in these states moved no money of the agent's, so they never count.
UNCOUNTED_STATUSES = frozenset(status.value for status in SPEND_UNCOUNTED)


@dataclass(frozen=True, slots=True)
class Limits:
    """Each limit in minor units; None means no limit in that window."""

    per_transfer_minor: int | None
    daily_minor: int | None
    monthly_minor: int | None
    # At most this many payments per UTC day (a count, not an amount).
    daily_payment_count: int | None = None


@dataclass(frozen=True, slots=True)
class Usage:
    """What the agent has already spent in the windows that contain `now`."""

    day_minor: int
    month_minor: int
    day_payments: int = 0


# Nothing spent yet: what a payment is held against to tell whether it breaks a limit on
# its own (the per-transfer limit, or a window's limit smaller than the payment).
NOTHING_SPENT = Usage(day_minor=0, month_minor=0, day_payments=0)


@dataclass(frozen=True, slots=True)
class Span:
    start: datetime
    end: datetime  # exclusive: when the window resets


@dataclass(frozen=True, slots=True)
class Denial:
    window: Window
    limit_minor: int
    attempted_minor: int
    # None for per-transfer denials (spec 7: they omit used and remaining).
    used_minor: int | None
    remaining_minor: int | None
    resets_at: datetime | None
    # A denial of the daily payment count: limit, used and remaining are payments, not
    # minor units (attempted is still the payment's amount).
    counts_payments: bool = False

    @property
    def code(self) -> DenialCode:
        return DenialCode.DAILY_COUNT if self.counts_payments else DENIAL_CODES[self.window]


def _utc(at: datetime) -> datetime:
    assert at.tzinfo is not None, "spend windows need an aware datetime"
    return at.astimezone(UTC)


def day_span(at: datetime) -> Span:
    start = _utc(at).replace(hour=0, minute=0, second=0, microsecond=0)
    return Span(start=start, end=start + timedelta(days=1))


def month_span(at: datetime) -> Span:
    start = _utc(at).replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    if start.month == 12:
        end = start.replace(year=start.year + 1, month=1)
    else:
        end = start.replace(month=start.month + 1)
    return Span(start=start, end=end)


def remaining(limit_minor: int | None, used_minor: int) -> int | None:
    if limit_minor is None:
        return None
    return max(limit_minor - used_minor, 0)


def evaluate(limits: Limits, usage: Usage, *, attempted_minor: int, now: datetime) -> Denial | None:
    """The first limit the attempt would exceed (per transfer, then day, then month, then
    the day's payment count), or None when it fits. Reaching a limit exactly is allowed;
    going over it is not."""
    assert attempted_minor > 0 and usage.day_minor >= 0 and usage.month_minor >= 0
    if limits.per_transfer_minor is not None and attempted_minor > limits.per_transfer_minor:
        return Denial(Window.TRANSFER, limits.per_transfer_minor, attempted_minor, None, None, None)
    windows = (
        (Window.DAY, limits.daily_minor, usage.day_minor, day_span(now)),
        (Window.MONTH, limits.monthly_minor, usage.month_minor, month_span(now)),
    )
    for window, limit_minor, used_minor, span in windows:
        if limit_minor is not None and used_minor + attempted_minor > limit_minor:
            return Denial(
                window,
                limit_minor,
                attempted_minor,
                used_minor,
                remaining(limit_minor, used_minor),
                span.end,
            )
    count = limits.daily_payment_count
    if count is not None and usage.day_payments + 1 > count:
        return Denial(
            Window.DAY,
            count,
            attempted_minor,
            usage.day_payments,
            remaining(count, usage.day_payments),
            day_span(now).end,
            counts_payments=True,
        )
    return None
