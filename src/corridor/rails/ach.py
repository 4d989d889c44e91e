"""ACH: standard (next-day) and same-day ACH through the sandbox ODFI, on the FED calendar.

Timing (America/New_York, approximate, from the Federal Reserve's FedACH processing
schedule; the ODFI's own deadlines sit at or before the Fed's):

- Standard ACH: one cutoff at 14:45 ET (the sandbox ODFI sends next-day entries with its
  afternoon file, the Fed's second same-day deposit deadline); settles the next business
  day at 08:30 ET, when FedACH settles next-day forward items.
- Same-day ACH: the three FedACH same-day windows, deposit deadlines 10:30, 14:45 and
  16:45 ET, settling the same business day at 13:00, 17:00 and 18:00 ET.

After the last cutoff, on weekends and on Fed holidays a payment rolls to the first
window of the next business day.

References: `achTraceNumber`, 15 digits: the first 8 digits of the ODFI's routing number
and a 7-digit entry sequence (NACHA entry detail record, field 11).
"""

from __future__ import annotations

from datetime import datetime, time

from corridor.rails.base import PaymentInstruction, RailName, Schedule
from corridor.rails.calendars import CutoffRule, CutoffWindow, Market
from corridor.rails.sandbox import BatchRailAdapter, digits_of, leg_digest

ach_timezone = "America/New_York"
ach_cutoff_local = time(14, 45)
ach_settlement_local = time(8, 30)
ach_settlement_lag_business_days = 1

same_day_ach_first_cutoff_local = time(10, 30)
same_day_ach_first_settlement_local = time(13, 0)
same_day_ach_second_cutoff_local = time(14, 45)
same_day_ach_second_settlement_local = time(17, 0)
same_day_ach_third_cutoff_local = time(16, 45)
same_day_ach_third_settlement_local = time(18, 0)

# The sandbox ODFI: a routing number with a valid ABA checksum, not a real bank's.
sandbox_odfi_routing_number = "123456780"
trace_number_digits = 15
trace_sequence_digits = 7

ACH_RULE = CutoffRule(
    market=Market.FED,
    timezone=ach_timezone,
    windows=(
        CutoffWindow(
            cutoff_local=ach_cutoff_local,
            settlement_lag_business_days=ach_settlement_lag_business_days,
            settlement_local=ach_settlement_local,
        ),
    ),
)

SAME_DAY_ACH_RULE = CutoffRule(
    market=Market.FED,
    timezone=ach_timezone,
    windows=tuple(
        CutoffWindow(
            cutoff_local=cutoff_local,
            settlement_lag_business_days=0,
            settlement_local=settlement_local,
        )
        for cutoff_local, settlement_local in (
            (same_day_ach_first_cutoff_local, same_day_ach_first_settlement_local),
            (same_day_ach_second_cutoff_local, same_day_ach_second_settlement_local),
            (same_day_ach_third_cutoff_local, same_day_ach_third_settlement_local),
        )
    ),
)


def trace_number(leg_id: str) -> str:
    """The ODFI routing prefix (8 digits) and a 7-digit sequence derived from the leg."""
    sequence = digits_of(leg_digest(leg_id, "ach-trace"), trace_sequence_digits)
    number = sandbox_odfi_routing_number[:8] + sequence
    assert len(number) == trace_number_digits
    return number


class _AchAdapter(BatchRailAdapter):
    def references(
        self, instruction: PaymentInstruction, *, schedule: Schedule, now: datetime
    ) -> tuple[str, dict]:
        number = trace_number(instruction.leg_id)
        return number, {"achTraceNumber": number}


class AchAdapter(_AchAdapter):
    name = RailName.ACH
    cutoff_rule = ACH_RULE


class SameDayAchAdapter(_AchAdapter):
    name = RailName.ACH_SAME_DAY
    cutoff_rule = SAME_DAY_ACH_RULE
