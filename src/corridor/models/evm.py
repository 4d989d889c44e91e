"""The EVM stablecoin rail's own rows (issue 27, rails/evm.py): the next nonce of each
sending address on each chain, and every token transfer the rail signed."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from corridor.models.base import Base, MinorUnits


class EvmNonce(Base):
    """The next nonce a sending address uses on a chain: taken by an atomic increment
    inside the transaction that records the signed transfer (several workers never share
    one, and a rolled-back step gives its nonce back)."""

    __tablename__ = "evm_nonces"

    chain: Mapped[str] = mapped_column(String(20), primary_key=True)
    address: Mapped[str] = mapped_column(String(42), primary_key=True)
    next_nonce: Mapped[int] = mapped_column(BigInteger)
    updated_at: Mapped[datetime]


class EvmTransaction(Base):
    """One ERC-20 `transfer` the rail signed for a leg: SIGNED (recorded, not yet sent) →
    BROADCAST → MINED (in a block, not yet deep enough) → CONFIRMED, or FAILED (the
    receipt's status was 0). A reorg that drops its block sends MINED back to BROADCAST."""

    __tablename__ = "evm_transactions"
    __table_args__ = (
        UniqueConstraint("leg_id", name="uq_evm_transactions_leg_id"),
        UniqueConstraint("chain", "from_address", "nonce", name="uq_evm_transactions_nonce"),
        UniqueConstraint("tx_hash", name="uq_evm_transactions_tx_hash"),
    )

    # A number: the order the rail signed them in.
    id: Mapped[int] = mapped_column(
        BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True
    )
    chain: Mapped[str] = mapped_column(String(20))
    chain_id: Mapped[int] = mapped_column(BigInteger)
    organization_id: Mapped[str] = mapped_column(String(40))
    transfer_id: Mapped[str] = mapped_column(String(40))
    leg_id: Mapped[str] = mapped_column(String(40))
    currency: Mapped[str] = mapped_column(String(10))
    amount: Mapped[int] = mapped_column(MinorUnits)  # the currency's minor units
    token_address: Mapped[str] = mapped_column(String(42))
    token_units: Mapped[str] = mapped_column(String(78))  # uint256, as decimal text
    from_address: Mapped[str] = mapped_column(String(42))
    to_address: Mapped[str] = mapped_column(String(42))
    nonce: Mapped[int] = mapped_column(BigInteger)
    gas_limit: Mapped[int] = mapped_column(BigInteger)
    max_fee_per_gas: Mapped[str] = mapped_column(String(78))
    max_priority_fee_per_gas: Mapped[str] = mapped_column(String(78))
    tx_hash: Mapped[str] = mapped_column(String(66))
    raw_transaction: Mapped[str] = mapped_column(Text)  # signed: sent again after a reorg
    status: Mapped[str] = mapped_column(String(20))
    confirmations_required: Mapped[int] = mapped_column(Integer)
    block_number: Mapped[int | None] = mapped_column(BigInteger)
    block_hash: Mapped[str | None] = mapped_column(String(66))
    broadcasts: Mapped[int] = mapped_column(Integer, default=0)
    last_sent_at: Mapped[datetime | None]  # the current bytes' first send
    # A stuck transaction replaced with higher fees on its nonce: the hashes it had before.
    replacements: Mapped[int] = mapped_column(Integer, default=0)
    replaced_hashes: Mapped[list[Any] | None]
    reorgs: Mapped[int] = mapped_column(Integer, default=0)
    failure_reason: Mapped[str | None] = mapped_column(String(500))
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]


class EvmDepositAddress(Base):
    """A deposit wallet's address, derived from the deposit seed at
    m/44'/60'/0'/0/`hd_index` (BIP-32/44): the index is this row's number."""

    __tablename__ = "evm_deposit_addresses"
    __table_args__ = (
        UniqueConstraint("address", name="uq_evm_deposit_addresses_address"),
        UniqueConstraint("virtual_account_id", name="uq_evm_deposit_addresses_virtual_account_id"),
    )

    hd_index: Mapped[int] = mapped_column(
        BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True
    )
    # Set right after the row has its number (the address is derived from it).
    address: Mapped[str | None] = mapped_column(String(42))
    virtual_account_id: Mapped[str] = mapped_column(String(40))
    organization_id: Mapped[str] = mapped_column(String(40))
    created_at: Mapped[datetime]


class EvmDepositLog(Base):
    """A token Transfer log to a deposit address, credited once (its chain, transaction
    and log index are unique) in the transaction that made its deposit."""

    __tablename__ = "evm_deposit_logs"
    __table_args__ = (
        UniqueConstraint("chain", "tx_hash", "log_index", name="uq_evm_deposit_logs_log"),
    )

    id: Mapped[int] = mapped_column(
        BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True
    )
    chain: Mapped[str] = mapped_column(String(20))
    tx_hash: Mapped[str] = mapped_column(String(66))
    log_index: Mapped[int] = mapped_column(Integer)
    block_number: Mapped[int] = mapped_column(BigInteger)
    block_hash: Mapped[str] = mapped_column(String(66))
    token_address: Mapped[str] = mapped_column(String(42))
    from_address: Mapped[str] = mapped_column(String(42))
    to_address: Mapped[str] = mapped_column(String(42))
    token_units: Mapped[str] = mapped_column(String(78))
    deposit_id: Mapped[str | None] = mapped_column(String(40))
    created_at: Mapped[datetime]


class EvmScanCursor(Base):
    """The next block whose token logs a chain's deposit scan reads, per token contract."""

    __tablename__ = "evm_scan_cursors"

    chain: Mapped[str] = mapped_column(String(20), primary_key=True)
    token_address: Mapped[str] = mapped_column(String(42), primary_key=True)
    next_block: Mapped[int] = mapped_column(BigInteger)
    updated_at: Mapped[datetime]
