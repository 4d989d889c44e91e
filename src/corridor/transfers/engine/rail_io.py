"""Talking to rails about a leg: the PaymentInstruction it sends, and what a Submission
leaves on the leg and the transfer (references, schedule).

Only the destination's payment references travel with an instruction; `remarks` and
`internalRemarks` never do.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.kit.clock import as_utc, isoformat_z
from corridor.models.party import ExternalAccount
from corridor.models.transfer import Transfer, TransferLeg
from corridor.parties import service as parties
from corridor.rails.base import PaymentInstruction, RailName, Schedule, Submission
from corridor.transfers.deposits.instructions import SANDBOX_BANK_NAME, SANDBOX_ROUTING_NUMBER
from corridor.transfers.planning.resolution import REFERENCE_FIELDS
from corridor.transfers.rules.flows import PAYOUT_LEGS, LegType
from corridor.transfers.system import system_caller

# The sandbox operating account fiat payouts leave from (`originatingAccount`).
ORIGINATING_ACCOUNT = {
    "bankName": SANDBOX_BANK_NAME,
    "routingNumber": SANDBOX_ROUTING_NUMBER,
    "accountNumber": "000111222333",
}
_LEG_REFERENCES = {
    "uetr": "uetr",
    "imad": "imad",
    "omad": "omad",
    "achTraceNumber": "ach_trace_number",
    "txHash": "tx_hash",
    "feeTxHash": "fee_tx_hash",
}
# Legs that send money out on their output rail: payouts, and a REFUND_* transfer's leg.
OUTGOING_LEGS = PAYOUT_LEGS | {LegType.REFUND}


def rail_of(leg: TransferLeg) -> RailName:
    """Payouts go out on the output rail; a pull comes in on the input rail."""
    rail = leg.output_rail if leg.type in OUTGOING_LEGS else leg.input_rail
    assert rail is not None, leg.type
    return RailName(rail)


def _bank_beneficiary(account: ExternalAccount) -> dict[str, Any]:
    found = {
        "name": account.account_holder_name,
        "account": account.account_number,
        "routing": account.routing_number,
        "iban": account.iban,
        "bic": account.bic,
        "sortCode": account.sort_code,
        "bankName": account.bank_name,
        "country": account.country,
    }
    return {key: value for key, value in found.items() if value}


async def _beneficiary(session: AsyncSession, transfer: Transfer, leg: TransferLeg) -> dict:
    caller = system_caller(transfer.organization_id)
    if leg.type == LegType.DEPOSIT_FIAT:  # a pull: the customer's own account is debited
        account = await parties.get_external_account(
            session, caller=caller, external_account_id=transfer.source["externalAccountId"]
        )
        return _bank_beneficiary(account)
    destination = transfer.destination
    to_bank = leg.type == LegType.REFUND and not destination.get("toAddress")
    if leg.type == LegType.PAYOUT_FIAT or to_bank:
        account = await parties.get_external_account(
            session, caller=caller, external_account_id=destination["externalAccountId"]
        )
        return _bank_beneficiary(account)
    found = {
        "name": destination.get("accountName") or "Wallet owner",
        "address": destination["toAddress"],
        "memo": destination.get("blockchainMemo"),
    }
    return {key: value for key, value in found.items() if value}


async def instruction_for(
    session: AsyncSession, *, transfer: Transfer, leg: TransferLeg, now: datetime
) -> PaymentInstruction:
    pull = leg.type == LegType.DEPOSIT_FIAT
    references = {
        key: transfer.destination[key] for key in REFERENCE_FIELDS if transfer.destination.get(key)
    }
    return PaymentInstruction(
        leg_id=leg.id,
        transfer_id=transfer.id,
        rail=rail_of(leg),
        currency=leg.input_currency if pull else leg.output_currency,
        amount_minor=leg.input_amount if pull else leg.output_amount,
        direction="DEBIT" if pull else "CREDIT",
        beneficiary=await _beneficiary(session, transfer, leg),
        references={} if pull else references,
        submitted_at=now,
    )


def stored_submission(submission: Submission) -> dict[str, Any]:
    schedule = submission.schedule
    return {
        "railReference": submission.rail_reference,
        "references": submission.references,
        "schedule": {
            "estimatedSettlementAt": isoformat_z(schedule.estimated_settlement_at),
            "nextCutoffAt": isoformat_z(schedule.next_cutoff_at)
            if schedule.next_cutoff_at
            else None,
            "cutoffTimezone": schedule.cutoff_timezone,
        },
    }


def _moment(text: str | None) -> datetime | None:
    return as_utc(datetime.fromisoformat(text.replace("Z", "+00:00"))) if text else None


def submission_of(stored: dict[str, Any]) -> Submission:
    schedule = stored["schedule"]
    estimated = _moment(schedule["estimatedSettlementAt"])
    assert estimated is not None
    return Submission(
        rail_reference=stored["railReference"],
        references=dict(stored["references"]),
        schedule=Schedule(
            estimated_settlement_at=estimated,
            next_cutoff_at=_moment(schedule["nextCutoffAt"]),
            cutoff_timezone=schedule["cutoffTimezone"],
        ),
    )


def record_submission(transfer: Transfer, leg: TransferLeg, submission: Submission) -> None:
    """The leg keeps the submission; a payout's references and schedule show on the transfer."""
    leg.rail_reference = submission.rail_reference[:128]
    leg.submission = stored_submission(submission)
    for key, column in _LEG_REFERENCES.items():
        value = submission.references.get(key)
        if isinstance(value, str):
            setattr(leg, column, value)
    if leg.type not in OUTGOING_LEGS:
        return
    for key, column in _LEG_REFERENCES.items():
        if key != "feeTxHash" and getattr(leg, column) is not None:
            setattr(transfer, column, getattr(leg, column))
    routing = submission.references.get("swiftRouting")
    if isinstance(routing, dict):
        transfer.metadata_ = {**(transfer.metadata_ or {}), "swiftRouting": routing}
    schedule = submission.schedule
    transfer.estimated_settlement_at = schedule.estimated_settlement_at
    transfer.next_cutoff_at = schedule.next_cutoff_at
    transfer.cutoff_timezone = schedule.cutoff_timezone
    if leg.type == LegType.PAYOUT_FIAT or transfer.flow == "REFUND_FIAT":
        transfer.originating_account = dict(ORIGINATING_ACCOUNT)
