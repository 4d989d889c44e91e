"""Returned payouts: a payout that settled and then came back from the receiving side.

The transfer goes COMPLETED → REVERSED (API.md §6) and the returned amount is credited,
in the currency it came back in (the payout leg's output), to a customer balance:
the source balance when it is in that currency, else the customer's balance account in
that currency (`returnedToAccountId`). No conversion is unwound: a CRYPTO_TO_FIAT payout
of USD that comes back is USD on the customer's USD balance, never USDC at a new rate,
so nobody carries a rate risk on a return; the developer fee was earned and stays. A
customer with no balance in that currency gets an UNMATCHED deposit (SUSPENSE) and
`returnedToAccountId` stays null. Ledger: RAIL_SETTLEMENT → customer balance, dated
`returnedAt`, in the same transaction as the status change and `transfer.reversed`.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.kit.money import CURRENCIES, to_decimal_string
from corridor.models.transfer import Transfer, TransferLeg
from corridor.transfers import lifecycle, repository
from corridor.transfers.money import postings
from corridor.transfers.money.entries import RAIL_SETTLEMENT, Ref
from corridor.transfers.returns import refunds
from corridor.transfers.rules.flows import PAYOUT_LEGS, SYSTEM_FLOWS, LegType
from corridor.transfers.rules.states import LegStatus, TransferStatus

reason_chars_max = 500


def returnable_problem(transfer: Transfer, leg: TransferLeg) -> str | None:
    """Why this leg cannot be returned, or None when it can."""
    if transfer.flow in SYSTEM_FLOWS:
        return f"a {transfer.flow} transfer is made by Corridor and cannot be returned"
    if leg.type not in PAYOUT_LEGS and leg.type != LegType.DEPOSIT_FIAT:
        return (
            f"leg {leg.id} is {leg.type}; only a payout leg (PAYOUT_FIAT or "
            "WITHDRAW_CRYPTO) or a pull (DEPOSIT_FIAT) can be returned"
        )
    return None


async def _return_account(session: AsyncSession, transfer: Transfer, currency: str) -> str | None:
    if transfer.source_account_id is not None and transfer.source_currency == currency:
        return transfer.source_account_id
    balance = await repository.customer_balance_account(
        session,
        organization_id=transfer.organization_id,
        customer_id=transfer.customer_id,
        currency=currency,
    )
    return balance.id if balance is not None else None


async def reverse_completed(
    session: AsyncSession,
    transfer: Transfer,
    legs: list[TransferLeg],
    leg: TransferLeg,
    *,
    reason: str,
    now: datetime,
) -> None:
    """COMPLETED → REVERSED: credit the returned payout back to the customer."""
    assert leg.status == LegStatus.COMPLETED and leg.type in PAYOUT_LEGS
    lifecycle.require_status(transfer, {TransferStatus.COMPLETED}, "reversed by a return")
    amount, currency = leg.output_amount, leg.output_currency
    account_id = await _return_account(session, transfer, currency)
    shown = f"{amount} {currency} (minor units)"
    if account_id is not None:
        await postings.credit_return(
            session,
            transfer=transfer,
            amount=amount,
            currency=currency,
            account_id=account_id,
            now=now,
        )
        where = f"credited to balance account {account_id}"
    else:
        await refunds.park(
            session,
            transfer=transfer,
            origin=Ref.system(RAIL_SETTLEMENT, currency),
            amount=amount,
            currency=currency,
            reason=f"payout of transfer {transfer.id} returned; no balance account in {currency}",
            payment_rail=leg.output_rail,
            now=now,
        )
        where = "held as an unmatched deposit of the customer"
    transfer.returned_to_account_id = account_id
    transfer.returned_at = now
    transfer.system_remark = f"Payout returned ({reason}): {shown} {where}"[:reason_chars_max]
    await lifecycle.set_status(session, transfer, legs, TransferStatus.REVERSED, now=now)


async def reverse_pull(
    session: AsyncSession,
    transfer: Transfer,
    legs: list[TransferLeg],
    leg: TransferLeg,
    *,
    reason: str,
    now: datetime,
) -> None:
    """COMPLETED → REVERSED for a settled pull the payer's bank returned (R01, R02, …):
    the pulled amount never arrived, so it leaves the balance it was credited to (the
    destination when in that currency, else the customer's balance in it); what that
    balance no longer has is owed by the customer (SUSPENSE), said in `systemRemark`.
    `returnedToAccountId` stays null: nothing came back to a balance."""
    assert leg.status == LegStatus.COMPLETED and leg.type == LegType.DEPOSIT_FIAT
    lifecycle.require_status(transfer, {TransferStatus.COMPLETED}, "reversed by a return")
    amount, currency = leg.input_amount, leg.input_currency
    if transfer.destination_account_id is not None and transfer.destination_currency == currency:
        account_id: str | None = transfer.destination_account_id
    else:
        account_id = await _return_account(session, transfer, currency)
    owed = await postings.take_back_pull(
        session, transfer=transfer, amount=amount, currency=currency, account_id=account_id, now=now
    )
    exponent = CURRENCIES[currency].exponent
    shown = f"{to_decimal_string(amount, exponent)} {currency}"
    where = f"taken back from balance account {account_id}" if account_id else "taken back"
    if owed:
        where += (
            f"; {to_decimal_string(owed, exponent)} {currency} it no longer had is owed (SUSPENSE)"
        )
    transfer.returned_at = now
    transfer.system_remark = f"Pull returned ({reason}): {shown} {where}"[:reason_chars_max]
    await lifecycle.set_status(session, transfer, legs, TransferStatus.REVERSED, now=now)
