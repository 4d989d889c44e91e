"""Where money that came in goes when its transfer stops before paying out.

This is the seam for refunds (REFUND_CRYPTO / REFUND_FIAT transfers with the `refund`
object of spec 2.6, a later issue). Until then:

- funded from a Corridor balance (the source balance, or `fund`): back to that balance;
- sent in from outside and a refund address is known (`source.refundAccountId`,
  `source.fromAddress`, or the bank account a pull came from): sent straight back
  (CLEARING → RAIL_SETTLEMENT) and noted in `systemRemark`; the refunds engineer turns this
  into a REFUND_* transfer that fills `refund`;
- otherwise credited to the customer's balance account in that currency ("the funds stay
  on the deposit wallet", which belongs to that balance); a customer without one gets an
  UNMATCHED deposit (booked to SUSPENSE) that support can route.

Callers first put the source amount back in CLEARING in the source currency (unwinding
any conversion); this module moves it out of CLEARING.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.kit.ids import new_id
from corridor.models.transfer import Deposit, Transfer
from corridor.transfers import events, postings, repository
from corridor.transfers.entries import RAIL_SETTLEMENT, SUSPENSE, Ref


class ReturnOutcome(StrEnum):
    TO_BALANCE = "TO_BALANCE"
    SENT_BACK = "SENT_BACK"
    PARKED = "PARKED"


def refund_address(transfer: Transfer) -> str | None:
    source = transfer.source
    return (
        source.get("refundAccountId")
        or source.get("fromAddress")
        or (source.get("externalAccountId") if source.get("direction") == "DEBIT" else None)
    )


async def return_received_funds(
    session: AsyncSession, *, transfer: Transfer, send_back: bool, now: datetime
) -> ReturnOutcome:
    amount = f"{transfer.source_amount} {transfer.source_currency} (minor units)"
    if transfer.source_account_id is not None:
        await postings.return_to_balance(
            session, transfer=transfer, account_id=transfer.source_account_id, now=now
        )
        transfer.system_remark = f"Funds returned to balance account {transfer.source_account_id}"
        return ReturnOutcome.TO_BALANCE
    address = refund_address(transfer)
    if send_back and address is not None:
        await postings.move_from_clearing(
            session,
            transfer=transfer,
            to=Ref.system(RAIL_SETTLEMENT, transfer.source_currency),
            description=f"funds sent back to {address}",
            now=now,
        )
        transfer.system_remark = f"Funds ({amount}) sent back to {address}"
        return ReturnOutcome.SENT_BACK
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
    await _park(session, transfer=transfer, now=now)
    transfer.system_remark = "Funds held as an unmatched deposit of the customer"
    return ReturnOutcome.PARKED


async def _park(session: AsyncSession, *, transfer: Transfer, now: datetime) -> None:
    await postings.move_from_clearing(
        session,
        transfer=transfer,
        to=Ref.system(SUSPENSE, transfer.source_currency),
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
        payment_rail=transfer.source.get("paymentRail") or "BOOK",
        currency=transfer.source_currency,
        amount=transfer.source_amount,
        to_address=None,
        from_address=transfer.source.get("fromAddress"),
        reference=None,
        unmatched_reason=f"returned by transfer {transfer.id}; no balance account in "
        f"{transfer.source_currency}",
        received_at=now,
        created_at=now,
    )
    session.add(deposit)
    await session.flush()
    events.deposit_event(session, events.DEPOSIT_UNMATCHED, deposit=deposit, now=now)
