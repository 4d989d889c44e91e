"""Signed receipts of agent payments (API.md 9) and the service's keys that sign them."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from corridor.models.base import Base, EncryptedText, id_column


class ReceiptSigningKey(Base):
    """One of the service's receipt signing keys (not an organization's): the newest ACTIVE
    one signs, every one stays in /.well-known/jwks.json so old receipts still verify.
    `generation` is unique: the first key (generation 1) is inserted if absent, so
    processes that need it at once end up with one key."""

    __tablename__ = "receipt_signing_keys"

    kid: Mapped[str] = mapped_column(String(64), primary_key=True)
    generation: Mapped[int] = mapped_column(Integer, unique=True)
    alg: Mapped[str] = mapped_column(String(20))
    public_jwk: Mapped[dict[str, Any]]
    # The private JWK (JSON), encrypted at rest under the server key (kit/secretbox.py).
    private_jwk: Mapped[str] = mapped_column(EncryptedText())
    status: Mapped[str] = mapped_column(String(20))  # active | retired
    created_at: Mapped[datetime]


class TransferReceipt(Base):
    """A signed statement of one decision or outcome of an agent's payment."""

    __tablename__ = "transfer_receipts"
    id_prefix, resource_name = "rcpt", "receipt"
    __table_args__ = (Index("ix_transfer_receipts_transfer_id", "transfer_id", "id"),)

    id: Mapped[str] = id_column()  # rcpt_…
    organization_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"))
    transfer_id: Mapped[str] = mapped_column(String(40))
    # AUTHORIZED | APPROVED | DECLINED | COMPLETED | FAILED | RETURNED
    kind: Mapped[str] = mapped_column(String(20))
    kid: Mapped[str] = mapped_column(String(64))
    jws: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime]
