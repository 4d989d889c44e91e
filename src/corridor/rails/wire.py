"""Domestic USD wires over the Fedwire Funds Service, on the FED calendar.

Timing (America/New_York, approximate, from the Fedwire Funds Service operating hours):

- Cutoff 18:00 ET: Fedwire takes third-party (customer) transfers until 18:45 ET; the
  sandbox bank closes its customer window earlier to leave time to review and release.
- Settles the same business day, 30 minutes after release: Fedwire settles each transfer
  in real time once the bank releases it; the 30 minutes are the bank's review.
- Release starts at 09:00 ET. Fedwire opens at 21:00 ET the evening before, but the
  sandbox bank's wire room works business hours, so a wire received overnight settles
  at 09:30 ET.

After the cutoff, on weekends and on Fed holidays a wire rolls to the next business day.

References (Fedwire message tags {1520} and {1120}):
- `imad`, 22 characters: input cycle date (CCYYMMDD), input source (8), input sequence
  number (6).
- `omad`, 34 characters: output cycle date (CCYYMMDD), output destination (8), output
  sequence number (6), output date (MMDD), output time (HHMM, Eastern), output FRB
  application id (4).
The cycle date is the Fedwire business day the wire settles on.
"""

from __future__ import annotations

from datetime import datetime, time
from zoneinfo import ZoneInfo

from corridor.rails.base import PaymentInstruction, RailName, Schedule
from corridor.rails.calendars import CutoffRule, CutoffWindow, Market
from corridor.rails.sandbox import BatchRailAdapter, alphanumerics_of, digits_of, leg_digest

wire_timezone = "America/New_York"
wire_cutoff_local = time(18, 0)
wire_opening_local = time(9, 0)
wire_release_duration_s = 30 * 60

# The sandbox bank's FedLine input source, and the FRB application that delivers output.
sandbox_imad_input_source = "CRDRSB01"
sandbox_omad_frb_application = "FT01"
imad_chars = 22
omad_chars = 34
message_sequence_digits = 6
message_source_chars = 8

WIRE_RULE = CutoffRule(
    market=Market.FED,
    timezone=wire_timezone,
    windows=(
        CutoffWindow(
            cutoff_local=wire_cutoff_local,
            settlement_lag_business_days=0,
            opening_local=wire_opening_local,
            release_duration_s=wire_release_duration_s,
        ),
    ),
)


def imad(leg_id: str, *, settled_at: datetime) -> str:
    cycle_date = settled_at.astimezone(ZoneInfo(wire_timezone)).strftime("%Y%m%d")
    sequence = digits_of(leg_digest(leg_id, "imad-sequence"), message_sequence_digits)
    text = cycle_date + sandbox_imad_input_source + sequence
    assert len(text) == imad_chars
    return text


def omad(leg_id: str, *, receiving_bank: str, settled_at: datetime) -> str:
    local = settled_at.astimezone(ZoneInfo(wire_timezone))
    # The output destination belongs to the receiving bank: the same for all its wires.
    destination = alphanumerics_of(leg_digest(receiving_bank, "omad-destination"), 8)
    sequence = digits_of(leg_digest(leg_id, "omad-sequence"), message_sequence_digits)
    text = (
        local.strftime("%Y%m%d")
        + destination
        + sequence
        + local.strftime("%m%d%H%M")
        + sandbox_omad_frb_application
    )
    assert len(text) == omad_chars
    return text


class WireAdapter(BatchRailAdapter):
    name = RailName.WIRE
    cutoff_rule = WIRE_RULE

    def references(
        self, instruction: PaymentInstruction, *, schedule: Schedule, now: datetime
    ) -> tuple[str, dict]:
        settled_at = schedule.estimated_settlement_at
        receiving_bank = str(instruction.beneficiary.get("routing") or instruction.leg_id)
        input_data = imad(instruction.leg_id, settled_at=settled_at)
        output_data = omad(instruction.leg_id, receiving_bank=receiving_bank, settled_at=settled_at)
        return input_data, {"imad": input_data, "omad": output_data}
