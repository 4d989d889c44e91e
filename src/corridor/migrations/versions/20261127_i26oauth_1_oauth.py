"""OAuth 2.1 for MCP clients (issue 26 item 2): registered clients, authorization requests
and their codes, grants (connected apps) and their access and refresh tokens, every secret
kept as its SHA-256.

Revision ID: 20261127_i26oauth_1
Revises: 20261127_i27_2
Create Date: 2026-11-27
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

JSON_DOCUMENT = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")

revision: str = "20261127_i26oauth_1"
down_revision: str | None = "20261127_i27_2"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _when(name: str, *, nullable: bool = False) -> sa.Column:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    op.create_table(
        "oauth_clients",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("name", sa.String(200), nullable=True),
        sa.Column("redirect_uris", JSON_DOCUMENT, nullable=False),
        sa.Column("grant_types", JSON_DOCUMENT, nullable=False),
        sa.Column("token_endpoint_auth_method", sa.String(30), nullable=False),
        sa.Column("scope", sa.String(1000), nullable=True),
        sa.Column("details", JSON_DOCUMENT, nullable=False),
        sa.Column("secret_hash", sa.String(64), nullable=True),
        _when("created_at"),
    )
    op.create_index("ix_oauth_clients_created_at", "oauth_clients", ["created_at"])
    op.create_table(
        "oauth_authorizations",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column(
            "client_id",
            sa.String(40),
            sa.ForeignKey("oauth_clients.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("redirect_uri", sa.String(2000), nullable=False),
        sa.Column("redirect_uri_explicit", sa.Boolean(), nullable=False),
        sa.Column("requested_scopes", JSON_DOCUMENT, nullable=False),
        sa.Column("state", sa.String(500), nullable=True),
        sa.Column("code_challenge", sa.String(64), nullable=False),
        sa.Column("resource", sa.String(2000), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column(
            "organization_id", sa.String(40), sa.ForeignKey("organizations.id"), nullable=True
        ),
        sa.Column("agent_id", sa.String(40), sa.ForeignKey("agents.id"), nullable=True),
        sa.Column("granted_scopes", JSON_DOCUMENT, nullable=True),
        sa.Column("tool_confirmation", sa.String(20), nullable=True),
        sa.Column("decided_by", sa.String(40), nullable=True),
        _when("decided_at", nullable=True),
        sa.Column("code_hash", sa.String(64), nullable=True, unique=True),
        _when("code_expires_at", nullable=True),
        sa.Column("grant_id", sa.String(40), nullable=True),
        _when("created_at"),
        _when("expires_at"),
    )
    op.create_index("ix_oauth_authorizations_expires_at", "oauth_authorizations", ["expires_at"])
    op.create_table(
        "oauth_grants",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column(
            "organization_id", sa.String(40), sa.ForeignKey("organizations.id"), nullable=False
        ),
        sa.Column("client_id", sa.String(40), sa.ForeignKey("oauth_clients.id"), nullable=False),
        sa.Column("agent_id", sa.String(40), sa.ForeignKey("agents.id"), nullable=True),
        sa.Column("scopes", JSON_DOCUMENT, nullable=False),
        sa.Column("tool_confirmation", sa.String(20), nullable=False),
        sa.Column("resource", sa.String(2000), nullable=False),
        sa.Column("created_by", sa.String(40), nullable=False),
        _when("created_at"),
        _when("last_token_at"),
        _when("revoked_at", nullable=True),
        sa.Column("revoked_reason", sa.String(40), nullable=True),
    )
    op.create_index("ix_oauth_grants_organization_id", "oauth_grants", ["organization_id"])
    op.create_index("ix_oauth_grants_client_id", "oauth_grants", ["client_id"])
    op.create_table(
        "oauth_tokens",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column(
            "grant_id",
            sa.String(40),
            sa.ForeignKey("oauth_grants.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("kind", sa.String(10), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("scopes", JSON_DOCUMENT, nullable=False),
        _when("created_at"),
        _when("expires_at"),
        _when("used_at", nullable=True),
    )
    op.create_index("ix_oauth_tokens_grant_id", "oauth_tokens", ["grant_id"])
    op.create_index("ix_oauth_tokens_expires_at", "oauth_tokens", ["expires_at"])


def downgrade() -> None:
    op.drop_index("ix_oauth_tokens_expires_at", "oauth_tokens")
    op.drop_index("ix_oauth_tokens_grant_id", "oauth_tokens")
    op.drop_table("oauth_tokens")
    op.drop_index("ix_oauth_grants_client_id", "oauth_grants")
    op.drop_index("ix_oauth_grants_organization_id", "oauth_grants")
    op.drop_table("oauth_grants")
    op.drop_index("ix_oauth_authorizations_expires_at", "oauth_authorizations")
    op.drop_table("oauth_authorizations")
    op.drop_index("ix_oauth_clients_created_at", "oauth_clients")
    op.drop_table("oauth_clients")
