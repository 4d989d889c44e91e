"""The migrations make exactly the schema the models describe, on every backend."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

import corridor.models  # noqa: F401  (registers every table)
from corridor.models.base import Base


async def test_migrated_schema_matches_the_models(app):
    def differences(connection):
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        return compare_metadata(context, Base.metadata)

    async with app.state.database.engine.connect() as connection:
        found = await connection.run_sync(differences)
    assert found == []
