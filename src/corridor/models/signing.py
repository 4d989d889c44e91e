"""Agents' request-signing keys (RFC 9421, API.md 9) and the nonces their signatures used."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, ForeignKey, Index, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from corridor.models.base import Base, id_column


class AgentSigningKey(Base):
    """A public key an agent signs its requests with; once an agent has one, its key's
    requests must be signed."""

    __tablename__ = "agent_signing_keys"
    id_prefix, resource_name = "sgk", "signing key"
    __table_args__ = (Index("ix_agent_signing_keys_agent_id", "agent_id"),)

    id: Mapped[str] = id_column()  # sgk_…
    organization_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"))
    agent_id: Mapped[str] = mapped_column(ForeignKey("agents.id"))
    # The RFC 7638 thumbprint of the public key: the `keyid` a signature names.
    key_id: Mapped[str] = mapped_column(String(64), unique=True)
    # ed25519 or ecdsa-p256-sha256 (RFC 9421 algorithm names).
    algorithm: Mapped[str] = mapped_column(String(30))
    public_key_jwk: Mapped[dict[str, Any]]
    created_at: Mapped[datetime]
    revoked_at: Mapped[datetime | None]


class SignatureNonce(Base):
    """A nonce a signature used, kept while a signature carrying it could still be fresh
    (the 5-minute window): a second use is refused, on any process."""

    __tablename__ = "signature_nonces"
    __table_args__ = (
        UniqueConstraint("key_id", "nonce"),
        Index("ix_signature_nonces_expires_at", "expires_at"),
    )

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    key_id: Mapped[str] = mapped_column(String(64))
    nonce: Mapped[str] = mapped_column(String(200))
    expires_at: Mapped[datetime]
