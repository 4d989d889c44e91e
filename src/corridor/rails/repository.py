"""Queries of the rails: the file rails' (rails/files.py: a leg's bank-file entry, and
what an ACH entry needs to know of its receiver) and the EVM rail's (rails/evm.py: nonces
and signed transactions). They run in the transfer step's own transaction
(kit.db.unit_of_work)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.models.bank_file import BankFile, BankFileEntry
from corridor.models.customer import Customer
from corridor.models.evm import EvmNonce, EvmTransaction
from corridor.models.party import Counterparty, ExternalAccount
from corridor.models.transfer import Transfer, TransferLeg


async def entry_of_leg(session: AsyncSession, leg_id: str) -> BankFileEntry | None:
    found = await session.execute(select(BankFileEntry).where(BankFileEntry.leg_id == leg_id))
    return found.scalar_one_or_none()


async def entry(session: AsyncSession, entry_id: int) -> BankFileEntry | None:
    return await session.get(BankFileEntry, entry_id)


async def transfer(session: AsyncSession, transfer_id: str) -> Transfer | None:
    return await session.get(Transfer, transfer_id)


async def file_uploaded(session: AsyncSession, bank_file_id: str) -> bool:
    file = await session.get(BankFile, bank_file_id)
    return file is not None and file.uploaded_at is not None


async def receiver_of(
    session: AsyncSession, external_account_id: str
) -> tuple[str | None, str | None]:
    """The owner's kind of an external account (INDIVIDUAL or BUSINESS: a customer's type, a
    counterparty's beneficiary type) and the account's type; (None, None) when unknown."""
    account = await session.get(ExternalAccount, external_account_id)
    if account is None:
        return None, None
    kind: str | None = None
    if account.customer_id:
        customer = await session.get(Customer, account.customer_id)
        kind = customer.type if customer else None
    elif account.counterparty_id:
        counterparty = await session.get(Counterparty, account.counterparty_id)
        kind = counterparty.beneficiary_type if counterparty else None
    return kind, account.account_type


# --- The EVM rail -------------------------------------------------------------------------


def _insert(session: AsyncSession) -> Any:
    dialect = session.get_bind().dialect.name
    return postgresql.insert if dialect == "postgresql" else sqlite.insert


async def allocate_nonce(
    session: AsyncSession, *, chain: str, address: str, first: int, now: datetime
) -> int:
    """The next nonce of (chain, address), taken for this transaction: an atomic increment
    (the row stays locked until the caller commits). `first` seeds a pair never used."""
    await session.execute(
        _insert(session)(EvmNonce)
        .values(chain=chain, address=address, next_nonce=first, updated_at=now)
        .on_conflict_do_nothing(index_elements=["chain", "address"])
    )
    taken = await session.execute(
        update(EvmNonce)
        .where(EvmNonce.chain == chain, EvmNonce.address == address)
        .values(next_nonce=EvmNonce.next_nonce + 1, updated_at=now)
        .returning(EvmNonce.next_nonce)
        .execution_options(synchronize_session=False)
    )
    return int(taken.scalar_one()) - 1


async def nonce_known(session: AsyncSession, *, chain: str, address: str) -> bool:
    found = await session.execute(
        select(EvmNonce.next_nonce).where(EvmNonce.chain == chain, EvmNonce.address == address)
    )
    return found.scalar_one_or_none() is not None


async def evm_transaction_of_leg(session: AsyncSession, leg_id: str) -> EvmTransaction | None:
    found = await session.execute(select(EvmTransaction).where(EvmTransaction.leg_id == leg_id))
    return found.scalar_one_or_none()


async def evm_transaction(session: AsyncSession, transaction_id: int) -> EvmTransaction | None:
    return await session.get(EvmTransaction, transaction_id)


async def show_tx_hash(session: AsyncSession, *, leg_id: str, tx_hash: str) -> None:
    """A replaced transaction's new hash on its leg and transfer (the one to look up)."""
    leg = await session.get(TransferLeg, leg_id)
    if leg is None:
        return
    leg.tx_hash = leg.rail_reference = tx_hash
    transfer = await session.get(Transfer, leg.transfer_id)
    if transfer is not None:
        transfer.tx_hash = tx_hash
