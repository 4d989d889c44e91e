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

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.kit.clock import Clock
from corridor.kit.db import Database
from corridor.kit.logging import get_logger
from corridor.models.evm import EvmDepositLog
from corridor.rails.evm import EvmRailAdapter, EvmToken, installed_evm_adapters, minor_units
from corridor.transfers import repository
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


async def _scan(
    session: AsyncSession,
    adapter: EvmRailAdapter,
    currency: str,
    token: EvmToken,
    *,
    router: DepositRouter,
    now: datetime,
) -> int:
    cursor = await repository.locked_scan_cursor(
        session,
        chain=adapter.name.value,
        token_address=token.address.lower(),
        start_block=adapter.chain.deposit_start_block,
        now=now,
    )
    logs, next_block = await adapter.confirmed_transfers(token=token, from_block=cursor.next_block)
    made = 0
    chain = adapter.name.value
    for log in logs:
        wallet = await repository.deposit_wallet_at(session, log.to_address)
        if wallet is None:
            continue  # not a deposit address: any other holder of the token
        if await repository.deposit_log_seen(
            session, chain=chain, tx_hash=log.tx_hash, log_index=log.log_index
        ):
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
