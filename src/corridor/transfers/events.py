"""Transfer and deposit events (API.md §7), written to the outbox in the change's transaction.

Every event's data is the resource as the API returns it (a transfer never carries the
expanded counterparty); tags are the ids involved: the transfer, its customer, its
counterparty, and the leg for `transfer.leg.updated`.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.models.event import Event, emit, event_row
from corridor.models.transfer import Deposit, Transfer, TransferLeg
from corridor.transfers.schemas.deposits import DepositRead
from corridor.transfers.schemas.transfer import transfer_json

CREATED = "transfer.created"
UPDATED = "transfer.updated"
# An agent's over-limit submit parked for an owner's approval (corridor.agents).
APPROVAL_REQUESTED = "transfer.approval_requested"
LEG_UPDATED = "transfer.leg.updated"
DEPOSIT_RECEIVED = "deposit.received"
DEPOSIT_UNMATCHED = "deposit.unmatched"


def status_event(status: str) -> str:
    """`transfer.<status in lower case>`: transfer.pending, transfer.completed, …"""
    return f"transfer.{status.lower()}"


def transfer_event_row(
    event_type: str,
    *,
    transfer: Transfer,
    legs: list[TransferLeg],
    now: datetime,
    leg: TransferLeg | None = None,
    make: Callable[..., Event] = Event,
) -> Event:
    """The event's outbox row, the transfer as it is now (not yet added to a session)."""
    return event_row(
        make=make,
        organization_id=transfer.organization_id,
        event_type=event_type,
        data=transfer_json(transfer, legs),
        tags=[
            transfer.id,
            transfer.customer_id,
            transfer.counterparty_id or "",
            leg.id if leg is not None else "",
        ],
        at=now,
    )


def transfer_event(
    session: AsyncSession,
    event_type: str,
    *,
    transfer: Transfer,
    legs: list[TransferLeg],
    now: datetime,
    leg: TransferLeg | None = None,
) -> None:
    session.add(transfer_event_row(event_type, transfer=transfer, legs=legs, now=now, leg=leg))


def deposit_event(
    session: AsyncSession, event_type: str, *, deposit: Deposit, now: datetime
) -> None:
    emit(
        session,
        organization_id=deposit.organization_id,
        event_type=event_type,
        data=DepositRead.of(deposit).to_json_dict(),
        tags=[
            deposit.id,
            deposit.customer_id,
            deposit.transfer_id or "",
            deposit.virtual_account_id or "",
        ],
        at=now,
    )
