"""The pure window arithmetic of corridor.agents.spend: spans, order of the checks, and
properties that must hold for any time and any amounts."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from hypothesis import given
from hypothesis import strategies as st

from corridor.agents.errors import denial_body, limit_hint
from corridor.agents.spend import (
    DenialCode,
    Limits,
    Usage,
    Window,
    day_span,
    evaluate,
    month_span,
)

NOW = datetime(2026, 11, 18, 12, 0, tzinfo=UTC)
moments = st.datetimes(
    min_value=datetime(2000, 1, 1), max_value=datetime(2200, 12, 31), timezones=st.just(UTC)
)
minor_units = st.integers(min_value=0, max_value=10**17)
limits = st.one_of(st.none(), minor_units)


def test_day_span_is_the_utc_calendar_day():
    span = day_span(datetime(2026, 11, 18, 23, 59, 59, 999_999, tzinfo=UTC))
    assert span.start == datetime(2026, 11, 18, tzinfo=UTC)
    assert span.end == datetime(2026, 11, 19, tzinfo=UTC)
    assert day_span(datetime(2026, 11, 19, tzinfo=UTC)).start == span.end


def test_day_span_reads_other_zones_in_utc():
    tokyo = timezone(timedelta(hours=9))
    # 08:00 in Tokyo on the 19th is still the 18th in UTC.
    span = day_span(datetime(2026, 11, 19, 8, 0, tzinfo=tokyo))
    assert span.start == datetime(2026, 11, 18, tzinfo=UTC)


def test_month_spans_at_the_year_end_and_in_february():
    december = month_span(datetime(2026, 12, 31, 23, 59, 59, tzinfo=UTC))
    assert (december.start, december.end) == (
        datetime(2026, 12, 1, tzinfo=UTC),
        datetime(2027, 1, 1, tzinfo=UTC),
    )
    leap = month_span(datetime(2028, 2, 29, 12, tzinfo=UTC))
    assert leap.end == datetime(2028, 3, 1, tzinfo=UTC)


def test_per_transfer_comes_first_and_omits_usage():
    denial = evaluate(
        Limits(100, 50, 50), Usage(day_minor=50, month_minor=50), attempted_minor=101, now=NOW
    )
    assert denial is not None and denial.code == DenialCode.PER_TRANSFER
    assert denial.used_minor is None and denial.remaining_minor is None
    assert denial.resets_at is None
    body = denial_body(denial, "USD")
    assert body == {
        "code": "per_transfer_limit_exceeded",
        "message": body["message"],
        "window": "transfer",
        "limit": "1.00",
        "attemptedAmount": "1.01",
        "currency": "USD",
    }


def test_day_before_month():
    denial = evaluate(
        Limits(None, 100, 100), Usage(day_minor=90, month_minor=90), attempted_minor=20, now=NOW
    )
    assert denial is not None and denial.window == Window.DAY
    assert denial.resets_at == datetime(2026, 11, 19, tzinfo=UTC)


def test_decimal_strings_follow_the_currency_exponent():
    denial = evaluate(
        Limits(None, None, 5_000_000), Usage(0, 4_500_000), attempted_minor=600_000, now=NOW
    )
    assert denial is not None
    body = denial_body(denial, "USDC")
    assert (body["limit"], body["used"], body["remaining"], body["attemptedAmount"]) == (
        "5.000000",
        "4.500000",
        "0.500000",
        "0.600000",
    )
    assert denial_body(denial, "JPY")["limit"] == "5000000"
    assert "2026-12-01T00:00:00.000Z" in limit_hint(denial, "USDC")


@given(moments)
def test_every_moment_lies_in_its_day_and_its_month(at):
    day, month = day_span(at), month_span(at)
    assert day.start <= at < day.end and month.start <= at < month.end
    assert month.start <= day.start and day.end <= month.end
    assert day.end - day.start == timedelta(days=1)
    assert day.start.hour == day.start.minute == day.start.second == 0
    assert month.start.day == 1 and month.end.day == 1
    assert 28 <= (month.end - month.start).days <= 31


@given(moments)
def test_the_next_window_starts_where_this_one_ends(at):
    assert day_span(day_span(at).end).start == day_span(at).end
    assert month_span(month_span(at).end).start == month_span(at).end
    assert day_span(day_span(at).end - timedelta(microseconds=1)) == day_span(at)


@given(limits, limits, limits, minor_units, minor_units, st.integers(1, 10**17), moments)
def test_a_submit_is_admitted_exactly_when_it_fits_every_limit(
    per_transfer, daily, monthly, day_used, extra_month_used, attempted, at
):
    usage = Usage(day_minor=day_used, month_minor=day_used + extra_month_used)
    denial = evaluate(
        Limits(per_transfer, daily, monthly), usage, attempted_minor=attempted, now=at
    )
    fits = (
        (per_transfer is None or attempted <= per_transfer)
        and (daily is None or usage.day_minor + attempted <= daily)
        and (monthly is None or usage.month_minor + attempted <= monthly)
    )
    assert (denial is None) == fits
    if denial is not None and denial.window != Window.TRANSFER:
        assert denial.used_minor is not None and denial.remaining_minor is not None
        assert denial.remaining_minor == max(denial.limit_minor - denial.used_minor, 0)
        assert denial.used_minor + denial.attempted_minor > denial.limit_minor
        assert denial.resets_at is not None and denial.resets_at > at


@given(st.lists(st.integers(1, 10_000), max_size=60), st.integers(0, 200_000))
def test_admitting_in_sequence_never_passes_the_daily_limit(attempts, daily):
    used = 0
    for attempted in attempts:
        if (
            evaluate(
                Limits(None, daily, None), Usage(used, used), attempted_minor=attempted, now=NOW
            )
            is None
        ):
            used += attempted
    assert used <= daily
