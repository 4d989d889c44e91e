"""The ledger side of transfers: holds on source balances, and the journal entries each
leg posts (entries.py says which accounts; this module finds them and posts).

Every function works in the caller's transaction, beside the state change and its event.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.ledger import rules
from corridor.ledger import service as ledger
from corridor.models.transfer import Transfer, TransferLeg
from corridor.transfers.money import entries
from corridor.transfers.money.entries import BALANCE, CLEARING, LegMoney, Movement, Ref
from corridor.transfers.rules.flows import Flow, LegType
from corridor.transfers.rules.states import LegStatus


async def account_of(
    session: AsyncSession, *, organization_id: str, ref: Ref, now: datetime
) -> str:
    if ref.kind == BALANCE:
        return ref.key
    account = await ledger.system_account(
        session, organization_id=organization_id, kind=ref.kind, currency=ref.key, now=now
    )
    return account.id


async def post_movements(
    session: AsyncSession,
    *,
    organization_id: str,
    transfer_id: str | None,
    movements: Sequence[Movement],
    kind: str,
    description: str,
    now: datetime,
) -> None:
    """One balanced journal entry made of these movements (nothing when there are none)."""
    if not movements:
        return
    lines: list[rules.Line] = []
    for movement in movements:
        debit = await account_of(
            session, organization_id=organization_id, ref=movement.debit, now=now
        )
        credit = await account_of(
            session, organization_id=organization_id, ref=movement.credit, now=now
        )
        lines.extend(
            rules.movement(
                debit_account_id=debit,
                credit_account_id=credit,
                amount=movement.amount,
                currency=movement.currency,
            )
        )
    await ledger.post_entry(
        session,
        organization_id=organization_id,
        kind=kind,
        description=description,
        lines=lines,
        transfer_id=transfer_id,
        now=now,
    )


async def post(
    session: AsyncSession,
    *,
    transfer: Transfer,
    movements: Sequence[Movement],
    kind: str,
    description: str,
    now: datetime,
) -> None:
    await post_movements(
        session,
        organization_id=transfer.organization_id,
        transfer_id=transfer.id,
        movements=movements,
        kind=kind,
        description=f"Transfer {transfer.id}: {description}",
        now=now,
    )


# --- Holds --------------------------------------------------------------------------------


def mark_hold(transfer: Transfer) -> None:
    """Record on the transfer the hold `place_hold` is about to place (so the transfer's
    row can be written before the hold takes the account's lock)."""
    assert transfer.source_account_id is not None and transfer.hold_amount is None
    transfer.hold_account_id = transfer.source_account_id
    transfer.hold_amount = transfer.source_amount


async def place_hold(session: AsyncSession, *, transfer: Transfer, now: datetime) -> None:
    """Reserve the source amount on the source balance (InsufficientFunds when short), as
    `mark_hold` recorded it on the transfer; the caller rolls back when it is refused."""
    assert transfer.hold_account_id is not None and transfer.hold_amount is not None
    await ledger.place_hold(
        session,
        organization_id=transfer.organization_id,
        account_id=transfer.hold_account_id,
        amount=transfer.hold_amount,
        now=now,
    )


async def release_hold(session: AsyncSession, *, transfer: Transfer, now: datetime) -> None:
    if transfer.hold_account_id is None or transfer.hold_amount is None:
        return
    await ledger.release_hold(
        session,
        organization_id=transfer.organization_id,
        account_id=transfer.hold_account_id,
        amount=transfer.hold_amount,
        now=now,
    )
    transfer.hold_account_id = None
    transfer.hold_amount = None


async def capture_hold(session: AsyncSession, *, transfer: Transfer, now: datetime) -> None:
    """DEBIT_BALANCE: the hold becomes a posted debit of the source balance into CLEARING."""
    assert transfer.hold_account_id is not None and transfer.hold_amount is not None
    clearing = await account_of(
        session,
        organization_id=transfer.organization_id,
        ref=Ref.system(CLEARING, transfer.source_currency),
        now=now,
    )
    await ledger.capture_hold(
        session,
        organization_id=transfer.organization_id,
        account_id=transfer.hold_account_id,
        amount=transfer.hold_amount,
        credit_account_id=clearing,
        kind=entries.ENTRY_FUNDING,
        description=f"Transfer {transfer.id}: debit of the source balance",
        transfer_id=transfer.id,
        now=now,
    )
    transfer.hold_account_id = None
    transfer.hold_amount = None


# --- Legs ---------------------------------------------------------------------------------


def leg_money(leg: TransferLeg) -> LegMoney:
    return LegMoney(
        type=LegType(leg.type),
        input_currency=leg.input_currency,
        output_currency=leg.output_currency,
        input_minor=leg.input_amount,
        output_minor=leg.output_amount,
        fee_minor=leg.developer_fee_amount or 0,
    )


async def receive_funds(
    session: AsyncSession,
    *,
    transfer: Transfer,
    from_balance_id: str | None,
    now: datetime,
) -> None:
    """The source amount arrives in CLEARING: from outside (a deposit, a settled pull) or
    from a customer balance (`fund`)."""
    await post(
        session,
        transfer=transfer,
        movements=entries.funding(
            amount=transfer.source_amount,
            currency=transfer.source_currency,
            from_balance_id=from_balance_id,
        ),
        kind=entries.ENTRY_FUNDING if from_balance_id else entries.ENTRY_DEPOSIT,
        description="funds received",
        now=now,
    )


_KINDS = {
    LegType.COLLECT_FEE: entries.ENTRY_FEE,
    LegType.CONVERT: entries.ENTRY_CONVERSION,
    LegType.CREDIT_BALANCE: entries.ENTRY_CREDIT,
    LegType.PAYOUT_FIAT: entries.ENTRY_PAYOUT,
    LegType.WITHDRAW_CRYPTO: entries.ENTRY_PAYOUT,
    LegType.REFUND: entries.ENTRY_REFUND,
}


async def complete_leg(
    session: AsyncSession, *, transfer: Transfer, leg: TransferLeg, now: datetime
) -> None:
    """Post what a completed (non-funding) leg moves."""
    money = leg_money(leg)
    movements = entries.completion(
        money,
        destination_balance_id=transfer.destination_account_id,
        pays_fees=transfer.flow == Flow.FEE_CRYPTO,
    )
    await post(
        session,
        transfer=transfer,
        movements=movements,
        kind=_KINDS.get(money.type, entries.ENTRY_CONVERSION),
        description=leg.type.lower().replace("_", " "),
        now=now,
    )


async def unwind(
    session: AsyncSession, *, transfer: Transfer, legs: list[TransferLeg], now: datetime
) -> None:
    """Reverse the completed legs after funding, so CLEARING holds the source amount again."""
    completed = [leg_money(leg) for leg in legs if leg.status == LegStatus.COMPLETED]
    await post(
        session,
        transfer=transfer,
        movements=entries.unwind(completed, destination_balance_id=transfer.destination_account_id),
        kind=entries.ENTRY_REVERSAL,
        description="reversal of completed legs",
        now=now,
    )


async def return_to_balance(
    session: AsyncSession, *, transfer: Transfer, account_id: str, now: datetime
) -> None:
    """CLEARING → a customer balance, the whole source amount."""
    movement = Movement(
        Ref.system(CLEARING, transfer.source_currency),
        Ref.balance(account_id),
        transfer.source_amount,
        transfer.source_currency,
    )
    await post(
        session,
        transfer=transfer,
        movements=(movement,),
        kind=entries.ENTRY_REVERSAL,
        description="funds returned to a balance",
        now=now,
    )


async def move_from_clearing(
    session: AsyncSession, *, transfer: Transfer, to: Ref, description: str, now: datetime
) -> None:
    """CLEARING → a system account (RAIL_SETTLEMENT when sent back, SUSPENSE when parked)."""
    movement = Movement(
        Ref.system(CLEARING, transfer.source_currency),
        to,
        transfer.source_amount,
        transfer.source_currency,
    )
    await post(
        session,
        transfer=transfer,
        movements=(movement,),
        kind=entries.ENTRY_REVERSAL,
        description=description,
        now=now,
    )


async def credit_return(
    session: AsyncSession,
    *,
    transfer: Transfer,
    amount: int,
    currency: str,
    account_id: str,
    now: datetime,
) -> None:
    """A returned payout: RAIL_SETTLEMENT → the customer balance that takes it back."""
    await post(
        session,
        transfer=transfer,
        movements=entries.returned(amount=amount, currency=currency, to_balance_id=account_id),
        kind=entries.ENTRY_RETURN,
        description="payout returned by the receiving side",
        now=now,
    )


async def take_back_pull(
    session: AsyncSession,
    *,
    transfer: Transfer,
    amount: int,
    currency: str,
    account_id: str | None,
    now: datetime,
) -> int:
    """A returned pull: `amount` goes back to the bank out of `account_id` (as much as it
    has available), the rest owed in SUSPENSE. Returns the part owed."""
    available = 0
    if account_id is not None:
        available = await ledger.available_balance(
            session, organization_id=transfer.organization_id, account_id=account_id
        )
    taken = max(0, min(amount, available))
    owed = amount - taken
    await post(
        session,
        transfer=transfer,
        movements=entries.pull_returned(
            taken=taken, owed=owed, currency=currency, from_balance_id=account_id
        ),
        kind=entries.ENTRY_RETURN,
        description="pull returned by the payer's bank",
        now=now,
    )
    return owed
