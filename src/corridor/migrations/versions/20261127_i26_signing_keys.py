"""Signed agent requests (issue 26, RFC 9421): agents' public signing keys and the nonces
their signatures used (kept for the 5-minute window).

Revision ID: 20261127_i26_2
Revises: 20261127_i26_1
Create Date: 2026-11-27
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "20261127_i26_2"
down_revision: str | None = "20261127_i26_1"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON_DOCUMENT = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


def upgrade() -> None:
    op.create_table(
        "agent_signing_keys",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column(
            "organization_id", sa.String(40), sa.ForeignKey("organizations.id"), nullable=False
        ),
        sa.Column("agent_id", sa.String(40), sa.ForeignKey("agents.id"), nullable=False),
        sa.Column("key_id", sa.String(64), nullable=False, unique=True),
        sa.Column("algorithm", sa.String(30), nullable=False),
        sa.Column("public_key_jwk", JSON_DOCUMENT, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_agent_signing_keys_agent_id", "agent_signing_keys", ["agent_id"])
    op.create_table(
        "signature_nonces",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            primary_key=True,
            autoincrement=True,
        ),
        sa.Column("key_id", sa.String(64), nullable=False),
        sa.Column("nonce", sa.String(200), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("key_id", "nonce"),
    )
    op.create_index("ix_signature_nonces_expires_at", "signature_nonces", ["expires_at"])


def downgrade() -> None:
    op.drop_index("ix_signature_nonces_expires_at", "signature_nonces")
    op.drop_table("signature_nonces")
    op.drop_index("ix_agent_signing_keys_agent_id", "agent_signing_keys")
    op.drop_table("agent_signing_keys")
