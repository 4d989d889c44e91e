"""Deposits found on chain (issue 27): each EVM chain paid on a real node (rails/evm.py)
with a deposit seed is scanned for its tokens' Transfer logs to the derived deposit
addresses, only in blocks that have the chain's confirmations.

Each scan of a (chain, token) is one transaction: the scan cursor's row is locked (several
workers never read one range twice at once), every log found becomes a deposit (matched
to the transfer waiting at that address, or unmatched as any deposit that does not fit),
its log is recorded (chain, transaction, log index: unique), and the cursor moves past
the range. A log already recorded is never credited again; a block not yet deep enough is
read on a later pass, so a reorg above the confirmation depth never credits a deposit
that vanished.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.kit.clock import Clock
from corridor.kit.db import Database
from corridor.kit.logging import get_logger
from corridor.models.evm import EvmDepositAddress, EvmDepositLog, EvmScanCursor
from corridor.models.transfer import VirtualAccount
from corridor.rails.evm import EvmRailAdapter, EvmToken, installed_evm_adapters, minor_units
from corridor.transfers.deposits import receiving
from corridor.transfers.plugins import DepositRouter

logger = get_logger(__name__)


async def scan_chain_deposits(database: Database, clock: Clock, *, router: DepositRouter) -> int:
    """One pass over every chain and token; the number of deposits made."""
    made = 0
    for adapter in installed_evm_adapters():
        if adapter.deposits is None:
            continue
        for currency, token in sorted(adapter.chain.tokens.items()):
            async with database.session() as session, session.begin():
                made += await _scan(
                    session, adapter, currency, token, router=router, now=clock.now()
                )
    return made


async def _cursor(
    session: AsyncSession, adapter: EvmRailAdapter, token: EvmToken, *, now: datetime
) -> EvmScanCursor:
    chain = adapter.name.value
    insert = postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert
    await session.execute(
        insert(EvmScanCursor)
        .values(
            chain=chain,
            token_address=token.address.lower(),
            next_block=adapter.chain.deposit_start_block,
            updated_at=now,
        )
        .on_conflict_do_nothing(index_elements=["chain", "token_address"])
    )
    found = await session.execute(
        select(EvmScanCursor)
        .where(EvmScanCursor.chain == chain, EvmScanCursor.token_address == token.address.lower())
        .with_for_update()
    )
    return found.scalar_one()


async def _scan(
    session: AsyncSession,
    adapter: EvmRailAdapter,
    currency: str,
    token: EvmToken,
    *,
    router: DepositRouter,
    now: datetime,
) -> int:
    cursor = await _cursor(session, adapter, token, now=now)
    logs, next_block = await adapter.confirmed_transfers(token=token, from_block=cursor.next_block)
    made = 0
    chain = adapter.name.value
    for log in logs:
        wallet = await _wallet_at(session, log.to_address)
        if wallet is None:
            continue  # not a deposit address: any other holder of the token
        seen = await session.execute(
            select(EvmDepositLog.id).where(
                EvmDepositLog.chain == chain,
                EvmDepositLog.tx_hash == log.tx_hash,
                EvmDepositLog.log_index == log.log_index,
            )
        )
        if seen.scalar_one_or_none() is not None:
            continue  # credited once already
        amount = minor_units(log.units, currency, token.decimals)
        deposit = None
        if amount > 0:
            deposit = await receiving.deposit_arrived(
                session,
                virtual=wallet,
                payment_rail=chain,
                currency=currency,
                amount=amount,
                to_address=log.to_address,
                from_address=log.from_address,
                reference=log.tx_hash,
                router=router,
                now=now,
            )
            made += 1
        session.add(
            EvmDepositLog(
                chain=chain,
                tx_hash=log.tx_hash,
                log_index=log.log_index,
                block_number=log.block_number,
                block_hash=log.block_hash,
                token_address=log.token_address,
                from_address=log.from_address,
                to_address=log.to_address,
                token_units=str(log.units),
                deposit_id=deposit.id if deposit is not None else None,
                created_at=now,
            )
        )
        logger.info("evm_deposit_credited", chain=chain, tx_hash=log.tx_hash, amount=amount)
    cursor.next_block = next_block
    cursor.updated_at = now
    return made


async def _wallet_at(session: AsyncSession, address: str) -> VirtualAccount | None:
    found = await session.execute(
        select(VirtualAccount)
        .join(EvmDepositAddress, EvmDepositAddress.virtual_account_id == VirtualAccount.id)
        .where(EvmDepositAddress.address == address)
    )
    return found.scalar_one_or_none()
