"""Business days of the FED and TARGET calendars, and the generic cutoff rule (pure)."""

from __future__ import annotations

from datetime import date, time

import pytest

from corridor.rails.calendars import (
    CutoffRule,
    CutoffWindow,
    Market,
    add_business_days,
    business_day_on_or_after,
    is_business_day,
    local_instant,
    next_business_day,
)
from tests.rails.support import NEW_YORK, new_york, utc


@pytest.mark.parametrize(
    ("day", "expected"),
    [
        (date(2026, 11, 26), False),  # Thanksgiving
        (date(2026, 11, 27), True),  # the Fed is open the day after
        (date(2026, 12, 25), False),
        (date(2027, 1, 18), False),  # Martin Luther King Jr. Day
        (date(2026, 7, 3), True),  # July 4th on a Saturday: the Fed does not close Friday
        (date(2027, 3, 26), True),  # Good Friday is no Fed holiday
        (date(2026, 3, 21), False),  # a Saturday
        (date(2026, 3, 17), True),
    ],
)
def test_fed_business_days(day: date, expected: bool) -> None:
    assert is_business_day(day, market=Market.FED) is expected


@pytest.mark.parametrize(
    ("day", "expected"),
    [
        (date(2026, 12, 24), True),
        (date(2026, 12, 25), False),
        (date(2026, 12, 26), False),
        (date(2027, 1, 1), False),
        (date(2027, 3, 26), False),  # Good Friday
        (date(2027, 3, 29), False),  # Easter Monday
        (date(2026, 5, 1), False),  # Labour Day
        (date(2026, 11, 26), True),  # Thanksgiving is a TARGET business day
    ],
)
def test_target_business_days(day: date, expected: bool) -> None:
    assert is_business_day(day, market=Market.TARGET) is expected


def test_next_business_day_skips_weekend_and_new_year_across_years() -> None:
    assert next_business_day(date(2026, 12, 31), market=Market.FED) == date(2027, 1, 4)
    assert next_business_day(date(2026, 12, 24), market=Market.TARGET) == date(2026, 12, 28)


def test_business_day_on_or_after_keeps_a_business_day() -> None:
    assert business_day_on_or_after(date(2026, 3, 17), market=Market.FED) == date(2026, 3, 17)
    assert business_day_on_or_after(date(2026, 3, 21), market=Market.FED) == date(2026, 3, 23)


def test_add_business_days_counts_only_business_days() -> None:
    assert add_business_days(date(2026, 11, 25), 0, market=Market.FED) == date(2026, 11, 25)
    assert add_business_days(date(2026, 11, 25), 1, market=Market.FED) == date(2026, 11, 27)
    assert add_business_days(date(2026, 11, 25), 2, market=Market.FED) == date(2026, 11, 30)


def test_local_instant_follows_daylight_saving() -> None:
    assert local_instant(date(2026, 10, 30), time(14, 45), NEW_YORK) == utc(2026, 10, 30, 18, 45)
    assert local_instant(date(2026, 11, 2), time(14, 45), NEW_YORK) == utc(2026, 11, 2, 19, 45)


def test_windows_must_be_in_cutoff_order() -> None:
    late = CutoffWindow(cutoff_local=time(16, 0), settlement_lag_business_days=1)
    early = CutoffWindow(cutoff_local=time(10, 0), settlement_lag_business_days=1)
    with pytest.raises(AssertionError):
        CutoffRule(market=Market.FED, timezone="America/New_York", windows=(late, early))


def test_same_day_window_may_not_settle_before_its_cutoff() -> None:
    with pytest.raises(AssertionError):
        CutoffWindow(
            cutoff_local=time(14, 0), settlement_lag_business_days=0, settlement_local=time(9, 0)
        )


def test_cutoff_rule_needs_an_aware_time() -> None:
    window = CutoffWindow(cutoff_local=time(10, 0), settlement_lag_business_days=1)
    rule = CutoffRule(market=Market.FED, timezone="America/New_York", windows=(window,))
    with pytest.raises(AssertionError):
        rule.timing(at=new_york(2026, 3, 17, 9).replace(tzinfo=None))
