"""API times: ISO 8601 in UTC, milliseconds, a Z (API.md section 1), whatever zone came in."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from hypothesis import given
from hypothesis import strategies as st

from corridor.kit.clock import isoformat_z

zones = st.sampled_from([UTC, ZoneInfo("America/New_York"), ZoneInfo("Asia/Kolkata")])


def _written(value: datetime) -> str:
    utc = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    day = f"{utc.year:04d}-{utc.month:02d}-{utc.day:02d}"
    return f"{day}T{utc.hour:02d}:{utc.minute:02d}:{utc.second:02d}.{utc.microsecond // 1000:03d}Z"


@given(st.datetimes(timezones=st.none() | zones), zones)
def test_an_instant_is_written_in_utc_however_it_arrives_and_however_often(
    value: datetime, elsewhere: ZoneInfo
) -> None:
    # Twice each: the second answer comes from the written instants kept.
    for moment in (value, value, value.astimezone(elsewhere) if value.tzinfo else value):
        assert isoformat_z(moment) == _written(moment)


def test_a_naive_time_is_taken_as_utc_and_never_shares_an_aware_ones_text() -> None:
    naive = datetime(2026, 3, 8, 7, 30, 0, 123456)
    new_york = datetime(2026, 3, 8, 7, 30, 0, 123456, tzinfo=ZoneInfo("America/New_York"))
    assert isoformat_z(naive) == "2026-03-08T07:30:00.123Z"
    assert isoformat_z(new_york) == "2026-03-08T11:30:00.123Z"
    assert isoformat_z(naive) == "2026-03-08T07:30:00.123Z"
