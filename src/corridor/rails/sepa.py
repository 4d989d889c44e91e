"""SEPA credit transfers (SCT) and SEPA Instant (SCT Inst), EUR, on the TARGET calendar.

Timing (Europe/Berlin, approximate):
- SEPA: cutoff 15:00 CET/CEST, typical of PSPs submitting to the last same-day cycle of
  EBA STEP2 SCT; settles the next TARGET business day at 09:00, the latest execution
  time PSD2 allows (article 83: credited by the end of the next business day), since an
  estimate must not promise more than the rules guarantee.
- SEPA Instant: no cutoff, runs 24/7/365; the SCT Inst rulebook's maximum execution time
  is 10 seconds, used as the estimate.

After the cutoff, on weekends and on TARGET closing days (New Year, Good Friday, Easter
Monday, 1 May, 25 and 26 December) a SEPA payment rolls to the next business day.

Reference: an ISO 20022 end-to-end id of 35 characters ("SCT" or "INST", the date, a
serial derived from the leg); SEPA has no reference among the transfer's spec fields.
"""

from __future__ import annotations

from datetime import datetime, time
from zoneinfo import ZoneInfo

from corridor.rails.base import PaymentInstruction, RailName, Schedule
from corridor.rails.calendars import CutoffRule, CutoffWindow, Market
from corridor.rails.sandbox import (
    BatchRailAdapter,
    InstantRailAdapter,
    alphanumerics_of,
    leg_digest,
)

sepa_timezone = "Europe/Berlin"
sepa_cutoff_local = time(15, 0)
sepa_settlement_local = time(9, 0)
sepa_settlement_lag_business_days = 1
sepa_instant_settlement_s = 10
end_to_end_id_chars = 35

SEPA_RULE = CutoffRule(
    market=Market.TARGET,
    timezone=sepa_timezone,
    windows=(
        CutoffWindow(
            cutoff_local=sepa_cutoff_local,
            settlement_lag_business_days=sepa_settlement_lag_business_days,
            settlement_local=sepa_settlement_local,
        ),
    ),
)


def end_to_end_id(leg_id: str, *, scheme: str, created_at: datetime) -> str:
    created_on = created_at.astimezone(ZoneInfo(sepa_timezone)).strftime("%Y%m%d")
    prefix = scheme + created_on
    serial = alphanumerics_of(
        leg_digest(leg_id, "sepa-end-to-end"), end_to_end_id_chars - len(prefix)
    )
    return prefix + serial


class SepaAdapter(BatchRailAdapter):
    name = RailName.SEPA
    cutoff_rule = SEPA_RULE

    def references(
        self, instruction: PaymentInstruction, *, schedule: Schedule, now: datetime
    ) -> tuple[str, dict]:
        return end_to_end_id(instruction.leg_id, scheme="SCT", created_at=now), {}


class SepaInstantAdapter(InstantRailAdapter):
    name = RailName.SEPA_INSTANT
    settlement_ms = sepa_instant_settlement_s * 1000

    def references(
        self, instruction: PaymentInstruction, *, schedule: Schedule, now: datetime
    ) -> tuple[str, dict]:
        return end_to_end_id(instruction.leg_id, scheme="INST", created_at=now), {}
