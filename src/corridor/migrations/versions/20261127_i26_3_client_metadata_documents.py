"""OAuth client ID metadata documents (issue 26 item 2): a client may be known by the URL of
its metadata document (its client_id) instead of a registration; the row keeps the document
as last fetched and until when it is used.

Revision ID: 20261127_i26_3
Revises: 20261127_i27_3
Create Date: 2026-11-27
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "20261127_i26_3"
down_revision: str | None = "20261127_i27_3"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("oauth_clients", sa.Column("metadata_url", sa.String(2000), nullable=True))
    op.add_column(
        "oauth_clients",
        sa.Column("metadata_expires_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ux_oauth_clients_metadata_url", "oauth_clients", ["metadata_url"], unique=True)


def downgrade() -> None:
    op.drop_index("ux_oauth_clients_metadata_url", table_name="oauth_clients")
    op.drop_column("oauth_clients", "metadata_expires_at")
    op.drop_column("oauth_clients", "metadata_url")
