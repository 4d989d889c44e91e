"""Each rail's schedule at fixed clock times: before and after cutoffs, Friday evenings,
bank holidays of its market, and daylight-saving changes (times checked in UTC)."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from corridor.rails.base import CHAIN_RAILS, RailName, Schedule
from corridor.rails.registry import adapter_for
from tests.rails.support import berlin, new_york, utc

NEW_YORK_NAME = "America/New_York"
BERLIN_NAME = "Europe/Berlin"


def schedule(rail: RailName, at: datetime) -> Schedule:
    return adapter_for(rail).schedule(at=at)


def assert_schedule(
    rail: RailName, at: datetime, *, cutoff: datetime, settles: datetime, timezone: str
) -> None:
    assert schedule(rail, at) == Schedule(
        estimated_settlement_at=settles, next_cutoff_at=cutoff, cutoff_timezone=timezone
    )


# ACH (standard): cutoff 14:45 ET, settles the next business day at 08:30 ET.


def test_ach_before_cutoff_on_a_tuesday_settles_wednesday_morning() -> None:
    assert_schedule(
        RailName.ACH,
        new_york(2026, 3, 17, 10),
        cutoff=utc(2026, 3, 17, 18, 45),
        settles=utc(2026, 3, 18, 12, 30),
        timezone=NEW_YORK_NAME,
    )


def test_ach_after_cutoff_on_a_tuesday_rolls_to_wednesday() -> None:
    assert_schedule(
        RailName.ACH,
        new_york(2026, 3, 17, 15),
        cutoff=utc(2026, 3, 18, 18, 45),
        settles=utc(2026, 3, 19, 12, 30),
        timezone=NEW_YORK_NAME,
    )


def test_ach_exactly_at_cutoff_misses_it() -> None:
    assert schedule(RailName.ACH, new_york(2026, 3, 17, 14, 45)).next_cutoff_at == utc(
        2026, 3, 18, 18, 45
    )
    just_before = new_york(2026, 3, 17, 14, 45) - timedelta(microseconds=1)
    assert schedule(RailName.ACH, just_before).next_cutoff_at == utc(2026, 3, 17, 18, 45)


def test_ach_friday_evening_rolls_to_monday_and_settles_tuesday() -> None:
    assert_schedule(
        RailName.ACH,
        new_york(2026, 3, 20, 18),
        cutoff=utc(2026, 3, 23, 18, 45),
        settles=utc(2026, 3, 24, 12, 30),
        timezone=NEW_YORK_NAME,
    )


def test_ach_friday_evening_before_martin_luther_king_day_rolls_to_tuesday() -> None:
    assert_schedule(
        RailName.ACH,
        new_york(2027, 1, 15, 18),
        cutoff=utc(2027, 1, 19, 19, 45),
        settles=utc(2027, 1, 20, 13, 30),
        timezone=NEW_YORK_NAME,
    )


def test_ach_before_thanksgiving_settles_after_it() -> None:
    assert_schedule(
        RailName.ACH,
        new_york(2026, 11, 25, 10),
        cutoff=utc(2026, 11, 25, 19, 45),
        settles=utc(2026, 11, 27, 13, 30),
        timezone=NEW_YORK_NAME,
    )


def test_ach_after_cutoff_before_thanksgiving_rolls_past_it() -> None:
    assert_schedule(
        RailName.ACH,
        new_york(2026, 11, 25, 16),
        cutoff=utc(2026, 11, 27, 19, 45),
        settles=utc(2026, 11, 30, 13, 30),
        timezone=NEW_YORK_NAME,
    )


def test_ach_on_thanksgiving_itself_waits_for_friday() -> None:
    assert schedule(RailName.ACH, new_york(2026, 11, 26, 12)).next_cutoff_at == utc(
        2026, 11, 27, 19, 45
    )


def test_ach_on_christmas_eve_after_cutoff_rolls_past_christmas_and_the_weekend() -> None:
    assert_schedule(
        RailName.ACH,
        new_york(2026, 12, 24, 15),
        cutoff=utc(2026, 12, 28, 19, 45),
        settles=utc(2026, 12, 29, 13, 30),
        timezone=NEW_YORK_NAME,
    )


def test_ach_runs_on_good_friday_which_is_no_fed_holiday() -> None:
    assert schedule(RailName.ACH, new_york(2027, 3, 25, 16)).next_cutoff_at == utc(
        2027, 3, 26, 18, 45
    )


def test_ach_across_the_end_of_daylight_saving_time() -> None:
    # 2026-11-01: New York falls back from UTC-4 to UTC-5.
    assert_schedule(
        RailName.ACH,
        new_york(2026, 10, 30, 10),
        cutoff=utc(2026, 10, 30, 18, 45),
        settles=utc(2026, 11, 2, 13, 30),
        timezone=NEW_YORK_NAME,
    )
    assert_schedule(
        RailName.ACH,
        new_york(2026, 10, 30, 16),
        cutoff=utc(2026, 11, 2, 19, 45),
        settles=utc(2026, 11, 3, 13, 30),
        timezone=NEW_YORK_NAME,
    )


def test_ach_across_the_start_of_daylight_saving_time() -> None:
    # 2027-03-14: New York springs forward from UTC-5 to UTC-4.
    assert_schedule(
        RailName.ACH,
        new_york(2027, 3, 12, 10),
        cutoff=utc(2027, 3, 12, 19, 45),
        settles=utc(2027, 3, 15, 12, 30),
        timezone=NEW_YORK_NAME,
    )
    # Submitted in the small hours of the changeover Sunday (03:30 EDT).
    assert schedule(RailName.ACH, utc(2027, 3, 14, 7, 30)).next_cutoff_at == utc(
        2027, 3, 15, 18, 45
    )


# Same-day ACH: windows 10:30, 14:45, 16:45 ET settling at 13:00, 17:00, 18:00 ET.


@pytest.mark.parametrize(
    ("local_hour", "cutoff", "settles"),
    [
        (9, utc(2026, 3, 17, 14, 30), utc(2026, 3, 17, 17)),
        (11, utc(2026, 3, 17, 18, 45), utc(2026, 3, 17, 21)),
        (15, utc(2026, 3, 17, 20, 45), utc(2026, 3, 17, 22)),
        (17, utc(2026, 3, 18, 14, 30), utc(2026, 3, 18, 17)),
    ],
)
def test_same_day_ach_windows(local_hour: int, cutoff: datetime, settles: datetime) -> None:
    assert_schedule(
        RailName.ACH_SAME_DAY,
        new_york(2026, 3, 17, local_hour),
        cutoff=cutoff,
        settles=settles,
        timezone=NEW_YORK_NAME,
    )


def test_same_day_ach_friday_evening_goes_in_mondays_first_window() -> None:
    assert_schedule(
        RailName.ACH_SAME_DAY,
        new_york(2026, 3, 20, 17),
        cutoff=utc(2026, 3, 23, 14, 30),
        settles=utc(2026, 3, 23, 17),
        timezone=NEW_YORK_NAME,
    )


def test_same_day_ach_on_christmas_goes_in_the_next_business_days_first_window() -> None:
    assert_schedule(
        RailName.ACH_SAME_DAY,
        new_york(2026, 12, 25, 9),
        cutoff=utc(2026, 12, 28, 15, 30),
        settles=utc(2026, 12, 28, 18),
        timezone=NEW_YORK_NAME,
    )


# Fedwire: cutoff 18:00 ET, released from 09:00 ET, settles 30 minutes after release.


def test_wire_during_business_hours_settles_the_same_day() -> None:
    assert_schedule(
        RailName.WIRE,
        new_york(2026, 3, 17, 10),
        cutoff=utc(2026, 3, 17, 22),
        settles=utc(2026, 3, 17, 14, 30),
        timezone=NEW_YORK_NAME,
    )


def test_wire_before_the_wire_room_opens_settles_after_it_opens() -> None:
    assert_schedule(
        RailName.WIRE,
        new_york(2026, 3, 17, 7),
        cutoff=utc(2026, 3, 17, 22),
        settles=utc(2026, 3, 17, 13, 30),
        timezone=NEW_YORK_NAME,
    )


def test_wire_after_cutoff_settles_the_next_business_morning() -> None:
    assert_schedule(
        RailName.WIRE,
        new_york(2026, 3, 17, 18, 30),
        cutoff=utc(2026, 3, 18, 22),
        settles=utc(2026, 3, 18, 13, 30),
        timezone=NEW_YORK_NAME,
    )


def test_wire_before_juneteenth_friday_rolls_to_monday() -> None:
    assert_schedule(
        RailName.WIRE,
        new_york(2026, 6, 18, 19),
        cutoff=utc(2026, 6, 22, 22),
        settles=utc(2026, 6, 22, 13, 30),
        timezone=NEW_YORK_NAME,
    )


# SWIFT: cutoff 15:00 ET, settles the next business day at 12:00 ET.


def test_swift_before_and_after_cutoff() -> None:
    assert_schedule(
        RailName.SWIFT,
        new_york(2026, 3, 17, 14),
        cutoff=utc(2026, 3, 17, 19),
        settles=utc(2026, 3, 18, 16),
        timezone=NEW_YORK_NAME,
    )
    assert_schedule(
        RailName.SWIFT,
        new_york(2026, 3, 17, 15, 30),
        cutoff=utc(2026, 3, 18, 19),
        settles=utc(2026, 3, 19, 16),
        timezone=NEW_YORK_NAME,
    )


# SEPA: cutoff 15:00 Berlin, settles the next TARGET business day at 09:00 Berlin.


def test_sepa_on_christmas_eve_before_cutoff_settles_after_christmas() -> None:
    assert_schedule(
        RailName.SEPA,
        berlin(2026, 12, 24, 10),
        cutoff=utc(2026, 12, 24, 14),
        settles=utc(2026, 12, 28, 8),
        timezone=BERLIN_NAME,
    )


def test_sepa_on_christmas_eve_after_cutoff_rolls_past_both_christmas_days() -> None:
    assert_schedule(
        RailName.SEPA,
        berlin(2026, 12, 24, 16),
        cutoff=utc(2026, 12, 28, 14),
        settles=utc(2026, 12, 29, 8),
        timezone=BERLIN_NAME,
    )


def test_sepa_on_new_years_eve_rolls_past_new_year() -> None:
    assert_schedule(
        RailName.SEPA,
        berlin(2026, 12, 31, 16),
        cutoff=utc(2027, 1, 4, 14),
        settles=utc(2027, 1, 5, 8),
        timezone=BERLIN_NAME,
    )


def test_sepa_over_easter_rolls_past_good_friday_and_easter_monday_into_summer_time() -> None:
    # Good Friday 2027-03-26, Easter Monday 2027-03-29; Berlin moves to UTC+2 on 2027-03-28.
    assert_schedule(
        RailName.SEPA,
        berlin(2027, 3, 25, 10),
        cutoff=utc(2027, 3, 25, 14),
        settles=utc(2027, 3, 30, 7),
        timezone=BERLIN_NAME,
    )
    assert_schedule(
        RailName.SEPA,
        berlin(2027, 3, 25, 16),
        cutoff=utc(2027, 3, 30, 13),
        settles=utc(2027, 3, 31, 7),
        timezone=BERLIN_NAME,
    )


def test_sepa_on_good_friday_itself_waits_for_tuesday() -> None:
    assert schedule(RailName.SEPA, berlin(2027, 3, 26, 11)).next_cutoff_at == utc(2027, 3, 30, 13)


def test_sepa_before_labour_day_rolls_past_it() -> None:
    # 2026-05-01 is a Friday; 2027-05-01 a Saturday.
    assert_schedule(
        RailName.SEPA,
        berlin(2026, 4, 30, 16),
        cutoff=utc(2026, 5, 4, 13),
        settles=utc(2026, 5, 5, 7),
        timezone=BERLIN_NAME,
    )
    assert schedule(RailName.SEPA, berlin(2027, 5, 1, 12)).next_cutoff_at == utc(2027, 5, 3, 13)


def test_sepa_runs_on_thanksgiving_which_is_no_target_holiday() -> None:
    assert schedule(RailName.SEPA, berlin(2026, 11, 25, 16)).next_cutoff_at == utc(2026, 11, 26, 14)


# Rails that run all the time.


def test_rtp_on_a_sunday_settles_in_seconds() -> None:
    at = utc(2026, 3, 15, 3)
    assert schedule(RailName.RTP, at) == Schedule(
        estimated_settlement_at=utc(2026, 3, 15, 3, 0, 10),
        next_cutoff_at=None,
        cutoff_timezone=None,
    )


def test_sepa_instant_on_christmas_settles_in_ten_seconds() -> None:
    at = berlin(2026, 12, 25, 12)
    assert schedule(RailName.SEPA_INSTANT, at) == Schedule(
        estimated_settlement_at=utc(2026, 12, 25, 11, 0, 10),
        next_cutoff_at=None,
        cutoff_timezone=None,
    )


def test_book_settles_at_submission() -> None:
    at = utc(2026, 12, 25, 23, 59)
    assert schedule(RailName.BOOK, at).estimated_settlement_at == at


@pytest.mark.parametrize(
    ("rail", "settles_after"),
    [
        (RailName.ETHEREUM, timedelta(seconds=64 * 12)),
        (RailName.BASE, timedelta(seconds=300 * 2)),
        (RailName.POLYGON, timedelta(seconds=128 * 2)),
        (RailName.SOLANA, timedelta(milliseconds=32 * 400)),
        (RailName.TRON, timedelta(seconds=19 * 3)),
    ],
)
def test_chains_have_no_cutoff_and_settle_after_their_confirmations(
    rail: RailName, settles_after: timedelta
) -> None:
    assert rail in CHAIN_RAILS
    at = utc(2026, 12, 25, 22, 15)  # a holiday evening means nothing to a chain
    assert schedule(rail, at) == Schedule(
        estimated_settlement_at=at + settles_after, next_cutoff_at=None, cutoff_timezone=None
    )
