"""webhook signing secrets encrypted at rest

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-24
"""

import json
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from corridor.kit import secretbox

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_endpoints = sa.table(
    "webhook_endpoints",
    sa.column("id", sa.String),
    sa.column("secret", sa.Text),
    sa.column("previous_secrets", sa.JSON),
)


def _documents(value):
    return json.loads(value) if isinstance(value, str) else (value or [])


def _convert(*, encrypt: bool) -> None:
    """Encrypt (or, going down, decrypt) every stored signing secret in place."""
    bind = op.get_bind()
    rows = bind.execute(sa.select(_endpoints)).all()
    if not rows:
        return  # a new database: no key is needed yet
    box = secretbox.from_environment(bind.engine.url.render_as_string(hide_password=False))
    change = box.encrypt if encrypt else box.decrypt
    for row in rows:
        previous = [
            {**item, "key": change(item["key"])} for item in _documents(row.previous_secrets)
        ]
        bind.execute(
            sa.update(_endpoints)
            .where(_endpoints.c.id == row.id)
            .values(secret=change(row.secret), previous_secrets=previous)
        )


def upgrade() -> None:
    with op.batch_alter_table("webhook_endpoints", schema=None) as batch_op:
        batch_op.alter_column(
            "secret", existing_type=sa.String(length=120), type_=sa.Text(), existing_nullable=False
        )
    _convert(encrypt=True)


def downgrade() -> None:
    _convert(encrypt=False)
    with op.batch_alter_table("webhook_endpoints", schema=None) as batch_op:
        batch_op.alter_column(
            "secret", existing_type=sa.Text(), type_=sa.String(length=120), existing_nullable=False
        )
