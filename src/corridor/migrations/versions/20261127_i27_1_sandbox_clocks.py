"""Sandbox clocks (issue 27 item 6): an organization's own time in the sandbox.

Revision ID: 20261127_i27_1
Revises: 20261127_i29_1
Create Date: 2026-11-27
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from corridor.models.base import UTCDateTime

revision: str = "20261127_i27_1"
down_revision: str | None = "20261127_i29_1"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "sandbox_clocks",
        sa.Column(
            "organization_id",
            sa.String(40),
            sa.ForeignKey(
                "organizations.id", name="fk_sandbox_clocks_organization_id_organizations"
            ),
            nullable=False,
        ),
        sa.Column("offset_ms", sa.BigInteger(), nullable=False),
        sa.Column("frozen_at", UTCDateTime(), nullable=True),
        sa.Column("updated_at", UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("organization_id", name=op.f("pk_sandbox_clocks")),
    )


def downgrade() -> None:
    op.drop_table("sandbox_clocks")
