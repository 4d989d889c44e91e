"""Run the Alembic migrations: the only way Corridor's schema is made."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.ext.asyncio import create_async_engine

MIGRATIONS_DIRECTORY = Path(__file__).resolve().parent.parent / "migrations"


def alembic_config(database_url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIRECTORY))
    config.set_main_option("sqlalchemy.url", database_url)
    config.set_main_option("file_template", "%%(year)d%%(month).2d%%(day).2d_%%(rev)s_%%(slug)s")
    return config


def ensure_sqlite_directory(database_url: str) -> None:
    prefix = "sqlite+aiosqlite:///"
    if database_url.startswith(prefix):
        path = database_url[len(prefix) :].split("?", 1)[0]
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)


@dataclass(frozen=True)
class Migration:
    revision: str
    description: str


def pending_migrations(database_url: str) -> list[Migration]:
    """The revisions `upgrade_to_head` would apply, oldest first. Blocking."""
    ensure_sqlite_directory(database_url)
    script = ScriptDirectory.from_config(alembic_config(database_url))
    current = asyncio.run(_current_heads(database_url))
    pending = script.iterate_revisions("heads", current or "base")
    return [Migration(item.revision, item.doc or "") for item in reversed(list(pending))]


def expected_heads(database_url: str) -> frozenset[str]:
    """The revisions a database up to date is at (the migrations' heads)."""
    return frozenset(ScriptDirectory.from_config(alembic_config(database_url)).get_heads())


def known_revisions(database_url: str) -> frozenset[str]:
    """Every revision of this version's migrations (a database at another one was
    migrated by a newer version)."""
    script = ScriptDirectory.from_config(alembic_config(database_url))
    return frozenset(revision.revision for revision in script.walk_revisions())


async def _current_heads(database_url: str) -> tuple[str, ...]:
    # hide_parameters as in kit.db: a migration's failure never prints the values it wrote.
    engine = create_async_engine(database_url, hide_parameters=True)
    try:
        async with engine.connect() as connection:
            return await connection.run_sync(
                lambda sync: MigrationContext.configure(sync).get_current_heads()
            )
    finally:
        await engine.dispose()


def upgrade_to_head(
    database_url: str, *, on_applied: Callable[[Migration], None] | None = None
) -> list[Migration]:
    """Apply what is pending and return it, oldest first; `on_applied` hears of each
    revision as it is committed. Blocking; call from sync code, or through
    `upgrade_to_head_async` inside a loop."""
    ensure_sqlite_directory(database_url)
    config = alembic_config(database_url)
    applied: list[Migration] = []

    def record(*, step: Any, **_: Any) -> None:
        if step.is_upgrade:
            migration = Migration(step.up_revision_id, step.up_revision.doc or "")
            applied.append(migration)
            if on_applied is not None:
                on_applied(migration)

    config.attributes["on_version_apply"] = record
    command.upgrade(config, "head")
    return applied


async def upgrade_to_head_async(database_url: str) -> None:
    await asyncio.to_thread(upgrade_to_head, database_url)
