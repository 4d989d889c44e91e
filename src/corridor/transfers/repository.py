"""Queries of transfers, legs, virtual accounts and deposits, filtered to what the caller
may see; the engine's claim of due work."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Select, delete, func, or_, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth.callers import Caller
from corridor.kit import db
from corridor.kit.clock import Moments
from corridor.kit.db import get_kept
from corridor.ledger.rules import CUSTOMER_BALANCE
from corridor.models.customer import Customer
from corridor.models.evm import EvmDepositAddress, EvmDepositLog, EvmScanCursor
from corridor.models.ledger import LedgerAccount
from corridor.models.organization import Organization
from corridor.models.transfer import Deposit, FixedRoute, Transfer, TransferLeg, VirtualAccount
from corridor.organizations.repository import organizations_in_scope

# --- Transfers ----------------------------------------------------------------------------


def visible_transfers(caller: Caller) -> Select[Transfer]:
    """The caller's organization's transfers; only its customer's, or its accounts', when
    the caller is bound to one."""
    statement = select(Transfer).where(Transfer.organization_id == caller.organization_id)
    if caller.customer_id is not None:
        statement = statement.where(Transfer.customer_id == caller.customer_id)
    if caller.account_ids is not None:
        allowed = sorted(caller.account_ids)
        statement = statement.where(
            or_(
                Transfer.source_account_id.in_(allowed),
                Transfer.destination_account_id.in_(allowed),
                Transfer.returned_to_account_id.in_(allowed),
            )
        )
    return statement


@dataclass(frozen=True, slots=True)
class TransferFilters:
    status: str | None = None
    agent_approval_status: str | None = None
    customer_id: str | None = None
    flow: str | None = None
    client_reference_id: str | None = None
    created_after: datetime | None = None  # inclusive
    created_before: datetime | None = None  # exclusive
    account_id: str | None = None  # the source, destination or returned-to balance account
    # The caller's organization and every organization below it (an operator's view).
    include_child_organizations: bool = False


def filtered_transfers(caller: Caller, filters: TransferFilters) -> Select[Transfer]:
    if filters.include_child_organizations:
        assert caller.customer_id is None and caller.account_ids is None
        in_scope = organizations_in_scope(caller.organization_id).with_only_columns(Organization.id)
        statement = select(Transfer).where(Transfer.organization_id.in_(in_scope))
    else:
        statement = visible_transfers(caller)
    equalities = (
        (Transfer.status, filters.status),
        (Transfer.agent_approval_status, filters.agent_approval_status),
        (Transfer.customer_id, filters.customer_id),
        (Transfer.flow, filters.flow),
        (Transfer.client_reference_id, filters.client_reference_id),
    )
    for column, value in equalities:
        if value is not None:
            statement = statement.where(column == value)
    if filters.created_after is not None:
        statement = statement.where(Transfer.created_at >= filters.created_after)
    if filters.created_before is not None:
        statement = statement.where(Transfer.created_at < filters.created_before)
    if filters.account_id is not None:
        statement = statement.where(
            or_(
                Transfer.source_account_id == filters.account_id,
                Transfer.destination_account_id == filters.account_id,
                Transfer.returned_to_account_id == filters.account_id,
            )
        )
    return statement


async def count_filtered(
    session: AsyncSession, caller: Caller, filters: TransferFilters, *, cap: int
) -> int:
    matching = filtered_transfers(caller, filters).with_only_columns(Transfer.id).limit(cap)
    counted = select(func.count()).select_from(matching.subquery())
    return int((await session.execute(counted)).scalar_one())


@dataclass(frozen=True, slots=True)
class DayVolume:
    day: str  # YYYY-MM-DD, UTC
    currency: str  # the source currency
    count: int
    amount: int  # minor units of `currency`


async def volume_per_day(
    session: AsyncSession, caller: Caller, *, since: datetime, excluded_statuses: Sequence[str]
) -> list[DayVolume]:
    """Transfers created since `since`, counted and summed per UTC day and source currency
    (one grouped query)."""
    day = db.utc_day(Transfer.created_at)
    statement = (
        filtered_transfers(caller, TransferFilters(created_after=since))
        .where(Transfer.status.not_in(list(excluded_statuses)))
        .with_only_columns(
            day, Transfer.source_currency, func.count(Transfer.id), func.sum(Transfer.source_amount)
        )
        .group_by(day, Transfer.source_currency)
    )
    return [
        DayVolume(text, currency, int(count), int(total))
        for text, currency, count, total in await session.execute(statement)
    ]


async def transfer_by_id(
    session: AsyncSession, transfer_id: str, *, for_update: bool = False
) -> Transfer | None:
    """Without a caller: for the engine and for system-made transfers."""
    statement = select(Transfer).where(Transfer.id == transfer_id)
    if for_update:
        statement = db.for_update(session, statement)
    return (await session.execute(statement)).scalar_one_or_none()


def _due(now: datetime | Moments, organization_id: str | None) -> Select[Transfer]:
    """Transfers whose next step has come, by their organization's clock (`Moments`: a
    sandbox clock that was advanced, API.md 9)."""
    statement = select(Transfer).where(
        Transfer.next_step_at.is_not(None),
        db.due(Transfer.next_step_at, Transfer.organization_id, now),
    )
    if organization_id is not None:
        statement = statement.where(Transfer.organization_id == organization_id)
    return statement


async def any_due(
    session: AsyncSession, *, now: datetime | Moments, organization_id: str | None = None
) -> bool:
    statement = _due(now, organization_id).with_only_columns(Transfer.id).limit(1)
    return (await session.execute(statement)).first() is not None


async def claim_due_transfer(
    session: AsyncSession, *, now: datetime | Moments, organization_id: str | None = None
) -> Transfer | None:
    """The transfer the engine should advance next, locked; others' claims are skipped."""
    statement = _due(now, organization_id).order_by(Transfer.next_step_at, Transfer.id).limit(1)
    statement = db.for_update(session, statement, skip_locked=True)
    return (await session.execute(statement)).scalar_one_or_none()


async def legs_of(session: AsyncSession, transfer_id: str) -> list[TransferLeg]:
    statement = (
        select(TransferLeg)
        .where(TransferLeg.transfer_id == transfer_id)
        .order_by(TransferLeg.sequence)
        .execution_options(populate_existing=True)
    )
    return list((await session.execute(statement)).scalars())


async def legs_of_many(
    session: AsyncSession, transfer_ids: Sequence[str]
) -> dict[str, list[TransferLeg]]:
    found: dict[str, list[TransferLeg]] = {transfer_id: [] for transfer_id in transfer_ids}
    if not transfer_ids:
        return found
    statement = (
        select(TransferLeg)
        .where(TransferLeg.transfer_id.in_(list(transfer_ids)))
        .order_by(TransferLeg.transfer_id, TransferLeg.sequence)
    )
    for leg in (await session.execute(statement)).scalars():
        found[leg.transfer_id].append(leg)
    return found


async def delete_legs(session: AsyncSession, transfer_id: str) -> None:
    await session.execute(delete(TransferLeg).where(TransferLeg.transfer_id == transfer_id))


async def child_transfers(session: AsyncSession, parent_id: str) -> list[Transfer]:
    statement = select(Transfer).where(Transfer.parent_transfer_id == parent_id)
    return list((await session.execute(statement)).scalars())


# --- Customers, organizations, balance accounts -------------------------------------------


async def customer(session: AsyncSession, caller: Caller, customer_id: str) -> Customer | None:
    statement = select(Customer).where(
        Customer.organization_id == caller.organization_id, Customer.id == customer_id
    )
    if caller.customer_id is not None:
        statement = statement.where(Customer.id == caller.customer_id)
    return (await session.execute(statement)).scalar_one_or_none()


async def organization(session: AsyncSession, organization_id: str) -> Organization | None:
    return await get_kept(session, Organization, organization_id)


async def balance_account(session: AsyncSession, account_id: str) -> LedgerAccount | None:
    statement = select(LedgerAccount).where(
        LedgerAccount.id == account_id, LedgerAccount.kind == CUSTOMER_BALANCE
    )
    return (await session.execute(statement)).scalar_one_or_none()


async def customer_balance_account(
    session: AsyncSession, *, organization_id: str, customer_id: str, currency: str
) -> LedgerAccount | None:
    statement = select(LedgerAccount).where(
        LedgerAccount.organization_id == organization_id,
        LedgerAccount.customer_id == customer_id,
        LedgerAccount.kind == CUSTOMER_BALANCE,
        LedgerAccount.currency == currency,
    )
    return (await session.execute(statement)).scalar_one_or_none()


# --- Virtual accounts and deposits --------------------------------------------------------


async def virtual_account(
    session: AsyncSession, *, organization_id: str, virtual_account_id: str
) -> VirtualAccount | None:
    statement = select(VirtualAccount).where(
        VirtualAccount.organization_id == organization_id, VirtualAccount.id == virtual_account_id
    )
    return (await session.execute(statement)).scalar_one_or_none()


async def virtual_account_at(
    session: AsyncSession, *, organization_id: str, address: str
) -> VirtualAccount | None:
    statement = select(VirtualAccount).where(
        VirtualAccount.organization_id == organization_id, VirtualAccount.address == address
    )
    return (await session.execute(statement)).scalar_one_or_none()


async def customer_virtual_bank_account(
    session: AsyncSession, *, organization_id: str, customer_id: str, currency: str
) -> VirtualAccount | None:
    statement = select(VirtualAccount).where(
        VirtualAccount.organization_id == organization_id,
        VirtualAccount.customer_id == customer_id,
        VirtualAccount.currency == currency,
        VirtualAccount.type == "VIRTUAL_BANK",
        VirtualAccount.transfer_id.is_(None),
        # A fixed route's dedicated account takes only that route's deposits.
        ~select(FixedRoute.id).where(FixedRoute.virtual_account_id == VirtualAccount.id).exists(),
    )
    return (await session.execute(statement)).scalars().first()


def virtual_accounts_of_balance(account_id: str) -> Select[VirtualAccount]:
    return select(VirtualAccount).where(VirtualAccount.balance_account_id == account_id)


async def transfer_awaiting_reference(
    session: AsyncSession, *, organization_id: str, reference: str
) -> Transfer | None:
    statement = select(Transfer).where(
        Transfer.organization_id == organization_id, Transfer.deposit_reference == reference
    )
    statement = db.for_update(session, statement)
    return (await session.execute(statement)).scalar_one_or_none()


def unmatched_deposits(*, organization_id: str, customer_id: str) -> Select[Deposit]:
    return select(Deposit).where(
        Deposit.organization_id == organization_id,
        Deposit.customer_id == customer_id,
        Deposit.status == "UNMATCHED",
    )


# --- Deposits found on chain (transfers/deposits/chain.py) --------------------------------


async def locked_scan_cursor(
    session: AsyncSession, *, chain: str, token_address: str, start_block: int, now: datetime
) -> EvmScanCursor:
    """The scan cursor of a chain's token, made at `start_block` the first time, locked
    until the transaction ends (one scan of a range at a time)."""
    dialect = session.get_bind().dialect.name
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    await session.execute(
        insert(EvmScanCursor)
        .values(chain=chain, token_address=token_address, next_block=start_block, updated_at=now)
        .on_conflict_do_nothing(index_elements=["chain", "token_address"])
    )
    found = await session.execute(
        select(EvmScanCursor)
        .where(EvmScanCursor.chain == chain, EvmScanCursor.token_address == token_address)
        .with_for_update()
    )
    return found.scalar_one()


async def deposit_wallet_at(session: AsyncSession, address: str) -> VirtualAccount | None:
    """The deposit wallet an HD-derived address belongs to (any organization)."""
    found = await session.execute(
        select(VirtualAccount)
        .join(EvmDepositAddress, EvmDepositAddress.virtual_account_id == VirtualAccount.id)
        .where(EvmDepositAddress.address == address)
    )
    return found.scalar_one_or_none()


async def deposit_log_seen(
    session: AsyncSession, *, chain: str, tx_hash: str, log_index: int
) -> bool:
    found = await session.execute(
        select(EvmDepositLog.id).where(
            EvmDepositLog.chain == chain,
            EvmDepositLog.tx_hash == tx_hash,
            EvmDepositLog.log_index == log_index,
        )
    )
    return found.scalar_one_or_none() is not None
