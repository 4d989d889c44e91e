"""Alembic environment: runs migrations over the async engine of CORRIDOR_DATABASE_URL."""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy.ext.asyncio import create_async_engine

import corridor.models  # noqa: F401  (registers every table on Base.metadata)
from corridor.models.base import Base

config = context.config
target_metadata = Base.metadata


def _configure(connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
        # kit.migrate passes a callback to report each revision as it is applied.
        on_version_apply=config.attributes.get("on_version_apply"),
    )


def _run_sync(connection) -> None:
    _configure(connection)
    with context.begin_transaction():
        context.run_migrations()


async def _run_async() -> None:
    url = config.get_main_option("sqlalchemy.url")
    assert url is not None, "kit.migrate sets sqlalchemy.url"
    # hide_parameters as in kit.db: a migration's failure never prints the values it wrote.
    engine = create_async_engine(url, hide_parameters=True)
    try:
        async with engine.connect() as connection:
            await connection.run_sync(_run_sync)
    finally:
        await engine.dispose()


connection = config.attributes.get("connection")
if connection is not None:
    _run_sync(connection)
else:
    asyncio.run(_run_async())
