"""SWIFT: cross-border payments in any fiat currency through Corridor's sandbox US bank.

Timing (America/New_York, FED calendar, approximate): cutoff 15:00 ET, about when USD
correspondents stop taking cross-border payments for value today (CHIPS closes at
17:00 ET and banks keep time for sanctions screening); settles the next business day at
12:00 ET, as most gpi payments reach the beneficiary bank within a day. Only the sending
market's holidays are modelled, not the receiving market's.

References:
- `uetr`: the gpi end-to-end reference, a UUID version 4 (derived from the leg id).
- `swiftRouting`: display data for the transfer's metadata: the sending bank, one
  correspondent (the one the payer named, else a sandbox correspondent in the
  currency's country) and the beneficiary bank, each with its BIC, name and status.
"""

from __future__ import annotations

import uuid
from datetime import datetime, time

from schwifty import BIC
from schwifty.exceptions import SchwiftyException

from corridor.kit.clock import isoformat_z
from corridor.rails.base import PaymentInstruction, RailName, Schedule
from corridor.rails.calendars import CutoffRule, CutoffWindow, Market
from corridor.rails.sandbox import BatchRailAdapter, leg_digest

swift_timezone = "America/New_York"
swift_cutoff_local = time(15, 0)
swift_settlement_local = time(12, 0)
swift_settlement_lag_business_days = 1

# Sandbox banks use test BICs: a "0" as the second character of the location code marks
# a test-and-training BIC, which never routes real money.
sandbox_sender_bic = "CRDRUS30"
sandbox_sender_bank_name = "Corridor Sandbox Bank, New York"
sandbox_correspondent_bank_code = "CRDC"
sandbox_correspondent_location = "30"
uetr_bytes = 16

SWIFT_RULE = CutoffRule(
    market=Market.FED,
    timezone=swift_timezone,
    windows=(
        CutoffWindow(
            cutoff_local=swift_cutoff_local,
            settlement_lag_business_days=swift_settlement_lag_business_days,
            settlement_local=swift_settlement_local,
        ),
    ),
)


def uetr(leg_id: str) -> str:
    return str(uuid.UUID(bytes=leg_digest(leg_id, "uetr", size_bytes=uetr_bytes), version=4))


def _bank_name(bic: str) -> str:
    try:
        names = BIC(bic).bank_names
    except SchwiftyException:
        # A correspondent the payer named is display data here, not a reason to fail.
        names = []
    return names[0] if names else f"Bank {bic[:4]} ({bic[4:6]})"


def _correspondent(currency: str, *, receiver_bic: str, references: dict) -> tuple[str, str]:
    named_bic = references.get("correspondentBankSwiftCode")
    if named_bic:
        named_name = references.get("correspondentBankName") or _bank_name(named_bic)
        return str(named_bic), str(named_name)
    # A currency code starts with its country's code, except the euro and the
    # supranational X-currencies (XOF, XAF): clear those in Frankfurt or the receiver's.
    if currency == "EUR":
        country = "DE"
    elif currency.startswith("X"):
        country = receiver_bic[4:6]
    else:
        country = currency[:2]
    bic = sandbox_correspondent_bank_code + country + sandbox_correspondent_location
    return bic, f"Corridor Sandbox Correspondent ({country})"


def swift_routing(
    *, currency: str, receiver_bic: str, references: dict, checked_at: datetime
) -> dict:
    correspondent_bic, correspondent_name = _correspondent(
        currency, receiver_bic=receiver_bic, references=references
    )
    steps = [
        ("Sending bank", sandbox_sender_bic, sandbox_sender_bank_name, "COMPLETED"),
        ("Correspondent bank", correspondent_bic, correspondent_name, "IN_PROGRESS"),
        ("Beneficiary bank", receiver_bic, _bank_name(receiver_bic), "PENDING"),
    ]
    return {
        "source": "SANDBOX",
        "senderBic": sandbox_sender_bic,
        "receiverBic": receiver_bic,
        "checkedAt": isoformat_z(checked_at),
        "steps": [
            {"label": label, "bic": bic, "bankName": bank_name, "status": status}
            for label, bic, bank_name, status in steps
        ],
    }


class SwiftAdapter(BatchRailAdapter):
    name = RailName.SWIFT
    cutoff_rule = SWIFT_RULE

    def references(
        self, instruction: PaymentInstruction, *, schedule: Schedule, now: datetime
    ) -> tuple[str, dict]:
        reference = uetr(instruction.leg_id)
        routing = swift_routing(
            currency=instruction.currency,
            receiver_bic=str(instruction.beneficiary["bic"]).upper(),
            references=instruction.references,
            checked_at=now,
        )
        return reference, {"uetr": reference, "swiftRouting": routing}
