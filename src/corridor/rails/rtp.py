"""RTP: The Clearing House's real-time payments network, USD, open 24/7/365.

Timing: no cutoff, no business days; a payment settles within seconds of submission.
The estimate is 10 seconds, below the network's ~20-second response deadline and above
what most payments take.

Reference: an ISO 20022 message identification of 35 characters: "M", the creation date
(CCYYMMDD, Eastern), the sandbox participant id (11) and a serial (15) derived from the
leg. RTP has no reference among the transfer's spec fields, so the leg shows none.
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from corridor.rails.base import PaymentInstruction, RailName, Schedule
from corridor.rails.sandbox import InstantRailAdapter, alphanumerics_of, leg_digest

rtp_settlement_s = 10
rtp_timezone = "America/New_York"
sandbox_rtp_participant_id = "123456780CR"
message_id_chars = 35
message_serial_chars = 15


def message_id(leg_id: str, *, created_at: datetime) -> str:
    created_on = created_at.astimezone(ZoneInfo(rtp_timezone)).strftime("%Y%m%d")
    serial = alphanumerics_of(leg_digest(leg_id, "rtp-message"), message_serial_chars)
    text = "M" + created_on + sandbox_rtp_participant_id + serial
    assert len(text) == message_id_chars
    return text


class RtpAdapter(InstantRailAdapter):
    name = RailName.RTP
    settlement_ms = rtp_settlement_s * 1000

    def references(
        self, instruction: PaymentInstruction, *, schedule: Schedule, now: datetime
    ) -> tuple[str, dict]:
        return message_id(instruction.leg_id, created_at=now), {}
