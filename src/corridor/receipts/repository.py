"""Every query of receipts and their signing keys."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.models.receipt import ReceiptSigningKey, TransferReceipt
from corridor.receipts.rules import KEY_ACTIVE, KEY_RETIRED


def _insert(session: AsyncSession) -> Any:
    dialect = session.get_bind().dialect.name
    return postgresql.insert if dialect == "postgresql" else sqlite.insert


async def active_key(session: AsyncSession) -> ReceiptSigningKey | None:
    """The key that signs: the newest active one."""
    found = await session.execute(
        select(ReceiptSigningKey)
        .where(ReceiptSigningKey.status == KEY_ACTIVE)
        .order_by(ReceiptSigningKey.generation.desc())
        .limit(1)
    )
    return found.scalar_one_or_none()


async def public_jwks(session: AsyncSession) -> list[dict[str, Any]]:
    """Every key's public JWK, newest first (the private column is not read: no server
    key is needed to publish or verify)."""
    found = await session.execute(
        select(ReceiptSigningKey.public_jwk).order_by(ReceiptSigningKey.generation.desc())
    )
    return [dict(jwk) for jwk in found.scalars()]


async def insert_key_if_absent(session: AsyncSession, values: dict[str, Any]) -> None:
    """Insert the key unless one of its generation exists (another process made it first:
    its insert waits on that one's commit, then does nothing)."""
    await session.execute(
        _insert(session)(ReceiptSigningKey)
        .values(**values)
        .on_conflict_do_nothing(index_elements=["generation"])
    )


async def last_generation(session: AsyncSession) -> int:
    found = await session.execute(select(func.max(ReceiptSigningKey.generation)))
    return found.scalar_one_or_none() or 0


async def retire_keys_except(session: AsyncSession, kid: str) -> None:
    await session.execute(
        update(ReceiptSigningKey)
        .where(ReceiptSigningKey.kid != kid, ReceiptSigningKey.status == KEY_ACTIVE)
        .values(status=KEY_RETIRED)
    )


async def receipts_of(session: AsyncSession, transfer_id: str) -> list[TransferReceipt]:
    """A transfer's receipts, oldest first (the order they were issued)."""
    found = await session.execute(
        select(TransferReceipt)
        .where(TransferReceipt.transfer_id == transfer_id)
        .order_by(TransferReceipt.id)
    )
    return list(found.scalars())
