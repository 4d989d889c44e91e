"""Money arriving: matching a deposit to the transfer awaiting it, or booking it unmatched.

A deposit matches when it arrives where the instructions (instructions.py) said, by the
rail they named, in the currency and for exactly the amount; anything else is an
unmatched deposit of the customer (booked RAIL_SETTLEMENT → SUSPENSE until someone routes
it). A deposit to a fixed route's own account makes the route's transfer instead (the
deposit-routing seam of transfers/plugins.py).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth.callers import Caller
from corridor.auth.scopes import Scope
from corridor.customers import service as customers
from corridor.kit.errors import NotFound, ValidationFailed
from corridor.kit.ids import new_id
from corridor.kit.pagination import Page, PageRequest, fetch_page
from corridor.models.transfer import Deposit, Transfer, TransferLeg, VirtualAccount
from corridor.transfers import events, lifecycle, repository
from corridor.transfers.deposits.instructions import VIRTUAL_BANK
from corridor.transfers.money import postings
from corridor.transfers.money.entries import RAIL_SETTLEMENT, SUSPENSE, Movement, Ref
from corridor.transfers.plugins import DepositRouter, TransferPlugins
from corridor.transfers.rules.states import ACCEPTING_FUNDS, LegStatus, TransferStatus

MATCHED, UNMATCHED = "MATCHED", "UNMATCHED"
ENTRY_UNMATCHED = "DEPOSIT_UNMATCHED"


# --- Funds arriving -----------------------------------------------------------------------


async def funds_arrived(
    session: AsyncSession,
    *,
    transfer: Transfer,
    legs: list[TransferLeg],
    from_balance_id: str | None,
    now: datetime,
) -> None:
    """The awaited source amount is in CLEARING: the funding leg completes, and a PENDING
    transfer moves on (one in review or awaiting authorization waits for its decision)."""
    await postings.receive_funds(
        session, transfer=transfer, from_balance_id=from_balance_id, now=now
    )
    if from_balance_id is not None:
        transfer.source_account_id = from_balance_id
    transfer.funds_received_at = now
    transfer.funding_needed = False
    transfer.deposit_instructions = None
    lifecycle.set_leg_status(session, transfer, legs, legs[0], LegStatus.COMPLETED, now=now)
    if transfer.status == TransferStatus.PENDING:
        await lifecycle.set_status(session, transfer, legs, TransferStatus.PROCESSING, now=now)
        transfer.next_step_at = now


def _awaiting(transfer: Transfer) -> bool:
    return transfer.funding_needed and transfer.status in ACCEPTING_FUNDS


def _mismatch(transfer: Transfer, *, rail: str, currency: str, amount: int) -> str | None:
    if not _awaiting(transfer):
        return f"transfer {transfer.id} is not waiting for funds"
    if rail != transfer.source.get("paymentRail"):
        return f"expected by {transfer.source.get('paymentRail')}, arrived by {rail}"
    if currency != transfer.source_currency:
        return f"expected {transfer.source_currency}, arrived in {currency}"
    if amount != transfer.source_amount:
        return f"expected {transfer.source_amount} minor units, arrived {amount}"
    return None


async def _destination(
    session: AsyncSession, caller: Caller, *, to_address: str | None, virtual_account_id: str | None
) -> VirtualAccount:
    if (to_address is None) == (virtual_account_id is None):
        raise ValidationFailed("toAddress", "send exactly one of toAddress or virtualAccountId")
    if to_address is not None:
        found = await repository.virtual_account_at(
            session, organization_id=caller.organization_id, address=to_address
        )
        missing = NotFound("deposit address", to_address)
    else:
        assert virtual_account_id is not None
        found = await repository.virtual_account(
            session, organization_id=caller.organization_id, virtual_account_id=virtual_account_id
        )
        if found is not None and found.type != VIRTUAL_BANK:
            found = None
        missing = NotFound("virtual account", virtual_account_id)
    if found is None or not caller.may_see_customer(found.customer_id):
        raise missing
    return found


async def _candidate(
    session: AsyncSession, virtual: VirtualAccount, reference: str | None
) -> Transfer | None:
    if virtual.transfer_id is not None:
        return await repository.transfer_by_id(session, virtual.transfer_id, for_update=True)
    if reference is None:
        return None
    found = await repository.transfer_awaiting_reference(
        session, organization_id=virtual.organization_id, reference=reference
    )
    if found is None or (found.deposit_instructions or {}).get("accountId") != virtual.id:
        return None
    return found


async def receive_deposit(
    session: AsyncSession,
    *,
    caller: Caller,
    payment_rail: str,
    currency: str,
    amount: int,
    to_address: str | None,
    virtual_account_id: str | None,
    from_address: str | None,
    reference: str | None,
    plugins: TransferPlugins,
    now: datetime,
) -> Deposit:
    """A deposit arrives (the sandbox stands in for the bank or chain)."""
    caller.require_scope(Scope.SANDBOX_WRITE)
    caller.require_customer_binding()
    if amount <= 0:
        raise ValidationFailed("amount.value", "must be greater than zero")
    virtual = await _destination(
        session, caller, to_address=to_address, virtual_account_id=virtual_account_id
    )
    return await deposit_arrived(
        session,
        virtual=virtual,
        payment_rail=payment_rail,
        currency=currency,
        amount=amount,
        to_address=to_address,
        from_address=from_address,
        reference=reference,
        router=plugins.deposit_router,
        now=now,
    )


async def deposit_arrived(
    session: AsyncSession,
    *,
    virtual: VirtualAccount,
    payment_rail: str,
    currency: str,
    amount: int,
    to_address: str | None,
    from_address: str | None,
    reference: str | None,
    router: DepositRouter,
    now: datetime,
) -> Deposit:
    """Money arrived at a virtual account (from the sandbox, or a chain's deposit scan):
    matched to the transfer waiting for exactly it, or booked unmatched."""
    routed = await router.route(
        session,
        virtual=virtual,
        payment_rail=payment_rail,
        currency=currency,
        amount=amount,
        from_address=from_address,
        now=now,
    )
    if routed is not None:
        # A fixed route's own account: its new transfer waits for exactly this deposit.
        transfer, reason = routed.transfer, routed.unmatched_reason
    else:
        transfer = await _candidate(session, virtual, reference)
        reason = (
            "no transfer is waiting for this deposit"
            if transfer is None
            else _mismatch(transfer, rail=payment_rail, currency=currency, amount=amount)
        )
    deposit = Deposit(
        id=new_id("inw"),
        organization_id=virtual.organization_id,
        customer_id=virtual.customer_id,
        virtual_account_id=virtual.id,
        transfer_id=transfer.id if transfer is not None and reason is None else None,
        status=MATCHED if reason is None else UNMATCHED,
        payment_rail=payment_rail,
        currency=currency,
        amount=amount,
        to_address=to_address or virtual.address,
        from_address=from_address,
        reference=reference,
        unmatched_reason=reason,
        received_at=now,
        created_at=now,
    )
    session.add(deposit)
    await session.flush()
    events.deposit_event(session, events.DEPOSIT_RECEIVED, deposit=deposit, now=now)
    if reason is None:
        assert transfer is not None
        legs = await repository.legs_of(session, transfer.id)
        await funds_arrived(session, transfer=transfer, legs=legs, from_balance_id=None, now=now)
        return deposit
    await _book_unmatched(session, deposit=deposit, now=now)
    return deposit


async def _book_unmatched(session: AsyncSession, *, deposit: Deposit, now: datetime) -> None:
    movement = Movement(
        Ref.system(RAIL_SETTLEMENT, deposit.currency),
        Ref.system(SUSPENSE, deposit.currency),
        deposit.amount,
        deposit.currency,
    )
    await postings.post_movements(
        session,
        organization_id=deposit.organization_id,
        transfer_id=None,
        movements=(movement,),
        kind=ENTRY_UNMATCHED,
        description=f"Unmatched deposit {deposit.id}",
        now=now,
    )
    events.deposit_event(session, events.DEPOSIT_UNMATCHED, deposit=deposit, now=now)


# --- Lists --------------------------------------------------------------------------------


async def unmatched_deposits(
    session: AsyncSession, *, caller: Caller, customer_id: str, page: PageRequest
) -> Page[Deposit]:
    caller.require_scope(Scope.TRANSFERS_READ)
    customer = await customers.get_customer(session, caller=caller, customer_id=customer_id)
    statement = repository.unmatched_deposits(
        organization_id=caller.organization_id, customer_id=customer.id
    )
    return await fetch_page(session, statement, Deposit.id, page)


async def simulate_matching_deposit(
    session: AsyncSession, *, transfer: Transfer, legs: list[TransferLeg], now: datetime
) -> Deposit:
    """The sandbox sends exactly what the instructions ask for (sandbox helpers)."""
    instructions = transfer.deposit_instructions or {}
    deposit = Deposit(
        id=new_id("inw"),
        organization_id=transfer.organization_id,
        customer_id=transfer.customer_id,
        virtual_account_id=instructions.get("accountId"),
        transfer_id=transfer.id,
        status=MATCHED,
        payment_rail=transfer.source["paymentRail"],
        currency=transfer.source_currency,
        amount=transfer.source_amount,
        to_address=instructions.get("toAddress"),
        from_address=transfer.source.get("fromAddress"),
        reference=instructions.get("reference"),
        unmatched_reason=None,
        received_at=now,
        created_at=now,
    )
    session.add(deposit)
    await session.flush()
    events.deposit_event(session, events.DEPOSIT_RECEIVED, deposit=deposit, now=now)
    await funds_arrived(session, transfer=transfer, legs=legs, from_balance_id=None, now=now)
    return deposit
