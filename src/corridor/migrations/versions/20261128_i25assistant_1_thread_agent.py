"""An assistant thread may act as an agent (issue 25): assistant_threads.agent_id names the
agent whose authority the thread's tool calls carry (its limits, allowlist, mandates), so
the assistant is one more door to an agent's budget, like REST and MCP. Null for the
threads that act as their user, as every thread did before.

Revision ID: 20261128_i25assistant_1
Revises: 20261128_i25audit_1
Create Date: 2026-11-28
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "20261128_i25assistant_1"
down_revision: str | None = "20261128_i25audit_1"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("assistant_threads", sa.Column("agent_id", sa.String(40), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("assistant_threads") as batch_op:
        batch_op.drop_column("agent_id")
