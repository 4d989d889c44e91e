"""Pure rules of the sandbox clock: where an advance leaves it."""

from __future__ import annotations

from datetime import datetime, timedelta

from corridor.kit.clock import ClockShift

# An advance moves at most this far at once (about ten years): far enough for any test of
# a month's statement or a year's holidays, and no overflow of a datetime.
advance_s_max = 10 * 366 * 24 * 3600


def advanced(
    current: ClockShift, *, system_now: datetime, to: datetime, freeze: bool | None
) -> ClockShift:
    """The clock at `to` (never earlier than its own now): frozen there when `freeze` is
    true (or it was frozen and `freeze` is not said), else running from there."""
    frozen = current.frozen_at is not None if freeze is None else freeze
    if frozen:
        return ClockShift(offset=to - system_now, frozen_at=to)
    return ClockShift(offset=to - system_now, frozen_at=None)


def offset_ms(shift: ClockShift) -> int:
    return int(shift.offset / timedelta(milliseconds=1))
