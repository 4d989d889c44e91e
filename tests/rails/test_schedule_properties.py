"""Properties of every rail's schedule over generated submission times (pure)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from hypothesis import given, settings
from hypothesis import strategies as st

from corridor.rails.base import RailName
from corridor.rails.calendars import (
    CutoffRule,
    business_day_on_or_after,
    is_business_day,
    local_instant,
)
from corridor.rails.registry import adapter_for
from corridor.rails.sandbox import BatchRailAdapter
from corridor.rails.wire import WIRE_RULE

BATCH_RAILS = [rail for rail in RailName if isinstance(adapter_for(rail), BatchRailAdapter)]

instants = st.datetimes(
    min_value=datetime(2025, 1, 1),
    max_value=datetime(2030, 12, 31),
    timezones=st.sampled_from(
        [UTC, ZoneInfo("America/New_York"), ZoneInfo("Europe/Berlin"), ZoneInfo("Asia/Tokyo")]
    ),
)
rails = st.sampled_from(list(RailName))
# No timing threshold: the first schedule in a year builds that year's holiday calendar.
no_deadline = settings(deadline=None)
batch_rails = st.sampled_from(BATCH_RAILS)


def rule_of(rail: RailName) -> CutoffRule:
    adapter = adapter_for(rail)
    assert isinstance(adapter, BatchRailAdapter)
    return adapter.cutoff_rule


def test_batch_rails_are_the_ones_with_cutoffs() -> None:
    assert set(BATCH_RAILS) == {
        RailName.ACH,
        RailName.ACH_SAME_DAY,
        RailName.WIRE,
        RailName.SWIFT,
        RailName.SEPA,
    }


@no_deadline
@given(rail=rails, at=instants)
def test_settlement_is_never_before_submission(rail: RailName, at: datetime) -> None:
    assert adapter_for(rail).schedule(at=at).estimated_settlement_at >= at


@no_deadline
@given(rail=batch_rails, at=instants)
def test_next_cutoff_is_after_submission_on_a_business_day_at_a_cutoff_time(
    rail: RailName, at: datetime
) -> None:
    rule = rule_of(rail)
    planned = adapter_for(rail).schedule(at=at)
    assert planned.next_cutoff_at is not None
    assert planned.next_cutoff_at > at
    assert planned.cutoff_timezone == rule.timezone
    local = planned.next_cutoff_at.astimezone(ZoneInfo(rule.timezone))
    assert local.time() in rule.cutoff_times_local
    assert is_business_day(local.date(), market=rule.market)


@no_deadline
@given(rail=batch_rails, at=instants)
def test_batch_rails_settle_on_a_business_day(rail: RailName, at: datetime) -> None:
    rule = rule_of(rail)
    settles = adapter_for(rail).schedule(at=at).estimated_settlement_at
    assert is_business_day(settles.astimezone(ZoneInfo(rule.timezone)).date(), market=rule.market)


@no_deadline
@given(rail=batch_rails, at=instants)
def test_a_cutoff_holds_until_it_passes(rail: RailName, at: datetime) -> None:
    adapter = adapter_for(rail)
    cutoff = adapter.schedule(at=at).next_cutoff_at
    assert cutoff is not None
    assert adapter.schedule(at=cutoff - timedelta(microseconds=1)).next_cutoff_at == cutoff
    later = adapter.schedule(at=cutoff).next_cutoff_at
    assert later is not None and later > cutoff


@no_deadline
@given(
    rail=rails,
    at=instants,
    delay=st.timedeltas(min_value=timedelta(0), max_value=timedelta(days=9)),
)
def test_a_later_submission_never_settles_earlier(
    rail: RailName, at: datetime, delay: timedelta
) -> None:
    adapter = adapter_for(rail)
    earlier = adapter.schedule(at=at).estimated_settlement_at
    # Added in UTC: local-time arithmetic would count wall-clock hours across DST changes.
    later_at = at.astimezone(UTC) + delay
    assert adapter.schedule(at=later_at).estimated_settlement_at >= earlier


@no_deadline
@given(rail=rails, at=instants)
def test_schedules_are_in_utc(rail: RailName, at: datetime) -> None:
    planned = adapter_for(rail).schedule(at=at)
    assert planned.estimated_settlement_at.utcoffset() == timedelta(0)
    if planned.next_cutoff_at is not None:
        assert planned.next_cutoff_at.utcoffset() == timedelta(0)


# A rule keeps its last timing for the instants that share it (the express create+submit
# asks once a request): what it answers from there must be what working it out answers.
nearby = st.one_of(
    st.timedeltas(min_value=timedelta(0), max_value=timedelta(hours=2)),
    st.timedeltas(min_value=timedelta(0), max_value=timedelta(days=9)),
)


@no_deadline
@given(rail=batch_rails, at=instants, delays=st.lists(nearby, min_size=1, max_size=6))
def test_a_kept_timing_is_the_timing_worked_out_afresh(
    rail: RailName, at: datetime, delays: list[timedelta]
) -> None:
    rule = replace(rule_of(rail))  # a copy keeps nothing of the original's last timing
    start = at.astimezone(UTC)
    for moment in [start, *(start + delay for delay in delays)]:
        assert rule.timing(at=moment) == replace(rule).timing(at=moment)


@no_deadline
@given(rail=batch_rails, at=instants)
def test_a_kept_timing_ends_at_its_cutoff_and_at_a_release_window_opening(
    rail: RailName, at: datetime
) -> None:
    rule = replace(rule_of(rail))
    cutoff = rule.timing(at=at).next_cutoff_at
    for moment in (cutoff - timedelta(microseconds=1), cutoff):
        assert rule.timing(at=moment) == replace(rule).timing(at=moment)
    released = WIRE_RULE.windows[0]
    assert released.settlement_local is None  # wires settle when released
    wire = replace(WIRE_RULE)
    opens = local_instant(
        business_day_on_or_after(at.astimezone(ZoneInfo(wire.timezone)).date(), market=wire.market),
        released.opening_local,
        ZoneInfo(wire.timezone),
    )
    for moment in (opens - timedelta(hours=1), opens, opens + timedelta(minutes=7)):
        assert wire.timing(at=moment) == replace(wire).timing(at=moment)
