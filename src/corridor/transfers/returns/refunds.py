"""Where money that came in goes when its transfer stops before paying out, and the
REFUND_CRYPTO / REFUND_FIAT transfers that send it back (spec 2.6 `refund`).

- Funded from a Corridor balance (the source balance, or `fund`): back to that balance.
- Sent in from outside with a usable refund target (`source.refundAccountId`,
  `source.fromAddress`, or the bank account a pull came from): a system-made child
  transfer (`parentTransferId`) with one REFUND leg on the rail the money came in on (a
  refund wallet on another chain: its own chain). The engine runs it like any transfer;
  the money waits in CLEARING until the leg settles (CLEARING → RAIL_SETTLEMENT). The
  parent carries `refund` (PENDING → PROCESSING → COMPLETED | FAILED), and every change
  of it emits `transfer.refund.updated` with the parent.
- A refund that fails: its money goes the third way below, from the child transfer.
- Otherwise: credited to the customer's balance account in that currency ("the funds
  stay on the deposit wallet", which belongs to that balance); a customer without one
  gets an UNMATCHED deposit (booked to SUSPENSE) that support can route.

Callers first put the source amount back in CLEARING in the source currency (unwinding
any conversion); this module moves it out of CLEARING.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.kit.clock import isoformat_z
from corridor.kit.errors import NotFound
from corridor.kit.ids import new_id
from corridor.models.transfer import Deposit, Transfer, TransferLeg
from corridor.parties import service as parties
from corridor.rails.base import rails_for_currency
from corridor.transfers import events, repository, system
from corridor.transfers.money import entries, postings
from corridor.transfers.money.entries import CLEARING, SUSPENSE, Movement, Ref
from corridor.transfers.rules.flows import BOOK, Flow, LegType, is_chain, is_stablecoin
from corridor.transfers.rules.states import LegStatus, RefundStatus, ReturnOutcome, TransferStatus

REFUND_UPDATED = "transfer.refund.updated"
REFUND_FLOWS = frozenset({Flow.REFUND_CRYPTO, Flow.REFUND_FIAT})
ACTIVE = "ACTIVE"
reason_chars_max = 500


@dataclass(frozen=True, slots=True)
class RefundTarget:
    """Where a refund goes: the child's flow, rail and destination object; `address` is
    what `refund.address` shows (an on-chain address, or the bank account's `ext_` id)."""

    flow: Flow
    rail: str
    address: str
    destination: dict[str, Any]


def refund_address(transfer: Transfer) -> str | None:
    source = transfer.source
    return (
        source.get("refundAccountId")
        or source.get("fromAddress")
        or (source.get("externalAccountId") if source.get("direction") == "DEBIT" else None)
    )


def is_refund(transfer: Transfer) -> bool:
    return transfer.flow in REFUND_FLOWS


# --- Where a refund can go ----------------------------------------------------------------


async def refund_target(session: AsyncSession, transfer: Transfer) -> RefundTarget | None:
    """The refund target of money that came in from outside, or None when there is none
    that can take it (closed, another currency, a rail that does not carry it)."""
    source, code = transfer.source, transfer.source_currency
    came_in = source.get("paymentRail")
    refund_account_id = source.get("refundAccountId")
    try:
        if refund_account_id and refund_account_id.startswith("ewa_"):
            return await _wallet_target(session, transfer, refund_account_id)
        if refund_account_id:
            return await _bank_target(session, transfer, refund_account_id, came_in)
    except NotFound:  # removed since: nothing to send to
        return None
    if source.get("fromAddress") and came_in is not None and is_chain(came_in):
        return _chain_target(code, came_in, source["fromAddress"], None, None)
    if source.get("direction") == "DEBIT" and source.get("externalAccountId"):
        return await _bank_target(session, transfer, source["externalAccountId"], came_in)
    return None


def _carries(rail: str | None, code: str) -> bool:
    return rail is not None and rail in {rail.value for rail in rails_for_currency(code)}


def _chain_target(
    code: str, chain: str, address: str, wallet_id: str | None, label: str | None
) -> RefundTarget | None:
    if not is_stablecoin(code) or not _carries(chain, code):
        return None
    destination = {
        "externalAccountId": wallet_id,
        "accountType": "EXTERNAL_WALLET",
        "currency": code,
        "paymentRail": chain,
        "toAddress": address,
        "accountName": label,
    }
    return RefundTarget(
        flow=Flow.REFUND_CRYPTO,
        rail=chain,
        address=address,
        destination={key: value for key, value in destination.items() if value is not None},
    )


async def _wallet_target(
    session: AsyncSession, transfer: Transfer, wallet_id: str
) -> RefundTarget | None:
    caller = system.system_caller(transfer.organization_id)
    wallet = await parties.get_external_wallet(session, caller=caller, external_wallet_id=wallet_id)
    if wallet.status != ACTIVE:
        return None
    return _chain_target(
        transfer.source_currency, wallet.chain, wallet.address, wallet.id, wallet.label
    )


async def _bank_target(
    session: AsyncSession, transfer: Transfer, account_id: str, came_in: str | None
) -> RefundTarget | None:
    caller = system.system_caller(transfer.organization_id)
    account = await parties.get_external_account(
        session, caller=caller, external_account_id=account_id
    )
    code = transfer.source_currency
    if account.status != ACTIVE or account.currency != code:
        return None
    supported = [rail for rail in account.supported_rails if _carries(rail, code)]
    rail = came_in if came_in in supported else (supported[0] if supported else None)
    if rail is None or is_chain(rail):
        return None
    destination = {
        "externalAccountId": account.id,
        "accountType": "EXTERNAL_BANK",
        "currency": code,
        "paymentRail": rail,
        "accountName": account.account_holder_name,
        "bankName": account.bank_name,
        "bankCountryCode": account.country,
    }
    return RefundTarget(
        flow=Flow.REFUND_FIAT,
        rail=rail,
        address=account.id,
        destination={key: value for key, value in destination.items() if value is not None},
    )


# --- The seam: money back out of CLEARING -------------------------------------------------


def _reason(transfer: Transfer, given: str | None) -> str:
    if given:
        return given[:reason_chars_max]
    if transfer.cancellation:
        said = transfer.cancellation.get("reason")
        return f"cancelled{': ' + said if said else ''}"[:reason_chars_max]
    if transfer.review and transfer.review.get("decision") == "REJECT":
        said = transfer.review.get("reason")
        return f"rejected in review{': ' + said if said else ''}"[:reason_chars_max]
    return "the transfer stopped before paying out"


async def return_received_funds(
    session: AsyncSession,
    *,
    transfer: Transfer,
    send_back: bool,
    now: datetime,
    reason: str | None = None,
) -> ReturnOutcome:
    if transfer.source_account_id is not None:
        await postings.return_to_balance(
            session, transfer=transfer, account_id=transfer.source_account_id, now=now
        )
        transfer.system_remark = f"Funds returned to balance account {transfer.source_account_id}"
        return ReturnOutcome.TO_BALANCE
    target = await refund_target(session, transfer) if send_back else None
    if target is not None:
        child = await start_refund(
            session, parent=transfer, target=target, reason=_reason(transfer, reason), now=now
        )
        amount = f"{transfer.source_amount} {transfer.source_currency} (minor units)"
        transfer.system_remark = (
            f"Refund of {amount} to {target.address} underway (transfer {child.id})"
        )
        return ReturnOutcome.REFUNDING
    return await credit_or_park(session, transfer=transfer, now=now)


async def credit_or_park(
    session: AsyncSession, *, transfer: Transfer, now: datetime
) -> ReturnOutcome:
    """CLEARING → the customer's balance in the source currency, else an unmatched deposit."""
    balance = await repository.customer_balance_account(
        session,
        organization_id=transfer.organization_id,
        customer_id=transfer.customer_id,
        currency=transfer.source_currency,
    )
    if balance is not None:
        await postings.return_to_balance(session, transfer=transfer, account_id=balance.id, now=now)
        transfer.system_remark = f"Funds credited to balance account {balance.id}"
        return ReturnOutcome.TO_BALANCE
    await park(
        session,
        transfer=transfer,
        origin=Ref.system(CLEARING, transfer.source_currency),
        amount=transfer.source_amount,
        currency=transfer.source_currency,
        reason=f"returned by transfer {transfer.id}; no balance account in "
        f"{transfer.source_currency}",
        now=now,
    )
    transfer.system_remark = "Funds held as an unmatched deposit of the customer"
    return ReturnOutcome.PARKED


async def park(
    session: AsyncSession,
    *,
    transfer: Transfer,
    origin: Ref,
    amount: int,
    currency: str,
    reason: str,
    now: datetime,
    payment_rail: str | None = None,
) -> Deposit:
    """Money of the customer with nowhere to go: SUSPENSE and an UNMATCHED deposit."""
    await postings.post(
        session,
        transfer=transfer,
        movements=(Movement(origin, Ref.system(SUSPENSE, currency), amount, currency),),
        kind=entries.ENTRY_REVERSAL,
        description="funds parked as an unmatched deposit",
        now=now,
    )
    deposit = Deposit(
        id=new_id("inw"),
        organization_id=transfer.organization_id,
        customer_id=transfer.customer_id,
        virtual_account_id=None,
        transfer_id=transfer.id,
        status="UNMATCHED",
        payment_rail=payment_rail or transfer.source.get("paymentRail") or BOOK,
        currency=currency,
        amount=amount,
        to_address=None,
        from_address=transfer.source.get("fromAddress"),
        reference=None,
        unmatched_reason=reason[:200],
        received_at=now,
        created_at=now,
    )
    session.add(deposit)
    await session.flush()
    events.deposit_event(session, events.DEPOSIT_UNMATCHED, deposit=deposit, now=now)
    return deposit


# --- REFUND_* transfers -------------------------------------------------------------------


async def start_refund(
    session: AsyncSession, *, parent: Transfer, target: RefundTarget, reason: str, now: datetime
) -> Transfer:
    """Create the REFUND_* child straight into PROCESSING (its money is already in
    CLEARING, as a FEE_CRYPTO's is in FEES) and put a PENDING `refund` on the parent
    (announced by the caller once the parent has moved: `announce_refund`)."""
    code, amount = parent.source_currency, parent.source_amount
    child, _leg = await system.start_system_transfer(
        session,
        parent=parent,
        flow=target.flow,
        leg_type=LegType.REFUND,
        input_rail=BOOK,
        output_rail=target.rail,
        source={
            "currency": code,
            "fundingCurrency": code,
            "paymentRail": target.rail,
            "accountType": CLEARING,
        },
        destination=target.destination,
        funds_received_at=now,
        system_remark=f"Refund of transfer {parent.id}: {reason}"[:reason_chars_max],
        source_amount=amount,
        now=now,
    )
    parent.refund = {
        "status": RefundStatus.PENDING.value,
        "reason": reason,
        "amount": {"currency": code, "value": str(amount)},
        "address": target.address,
        "initiatedAt": isoformat_z(now),
        "transferId": child.id,
    }
    parent.updated_at = now
    return child


def announce_refund(
    session: AsyncSession, *, transfer: Transfer, legs: list[TransferLeg], now: datetime
) -> None:
    """The first `transfer.refund.updated` (PENDING) of a transfer that has just ended,
    sent after its own status event so that its data shows the ended transfer."""
    if transfer.refund and transfer.refund.get("status") == RefundStatus.PENDING:
        events.transfer_event(session, REFUND_UPDATED, transfer=transfer, legs=legs, now=now)


def _refund_status(child: Transfer, legs: list[TransferLeg]) -> RefundStatus:
    if child.status == TransferStatus.COMPLETED:
        return RefundStatus.COMPLETED
    if child.status == TransferStatus.FAILED:
        return RefundStatus.FAILED
    if any(leg.status != LegStatus.PENDING for leg in legs):
        return RefundStatus.PROCESSING
    return RefundStatus.PENDING


async def refund_failed(session: AsyncSession, *, child: Transfer, now: datetime) -> None:
    """The refund's rail failed: its money (still in CLEARING) goes to the customer's
    balance in that currency, or is parked as an unmatched deposit."""
    await credit_or_park(session, transfer=child, now=now)


async def follow_refund(
    session: AsyncSession, *, child: Transfer, legs: list[TransferLeg], now: datetime
) -> None:
    """Bring the parent's `refund` up to date with its REFUND_* transfer; emit
    `transfer.refund.updated` when its status changed."""
    assert child.parent_transfer_id is not None
    parent = await repository.transfer_by_id(session, child.parent_transfer_id, for_update=True)
    if parent is None or not parent.refund:
        return
    status = _refund_status(child, legs)
    if parent.refund.get("status") == status.value:
        return
    refund = {**parent.refund, "status": status.value}
    if child.tx_hash:
        refund["txHash"] = child.tx_hash
    if status == RefundStatus.COMPLETED:
        refund["completedAt"] = isoformat_z(now)
        parent.system_remark = f"Refunded to {refund['address']} (transfer {child.id})"
    elif status == RefundStatus.FAILED:
        parent.system_remark = f"Refund failed; {child.system_remark or ''}"[:reason_chars_max]
    parent.refund = refund
    parent.updated_at = now
    parent_legs = await repository.legs_of(session, parent.id)
    events.transfer_event(session, REFUND_UPDATED, transfer=parent, legs=parent_legs, now=now)
