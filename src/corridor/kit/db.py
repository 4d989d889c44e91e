"""Engine, sessions and column types; SQLite (embedded default) and PostgreSQL alike.

On SQLite, writes are serialised: a writing session opens its transaction with
BEGIN IMMEDIATE, so two writers never interleave read-check-write on a balance. Reading
sessions use a second engine with plain BEGIN so they never wait for the write lock.
On PostgreSQL both are one engine, and rows that must not race are locked with
SELECT … FOR UPDATE (see `lock_rows`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, DateTime, MetaData, String, event, select
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator

from corridor.kit.clock import as_utc

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class UTCDateTime(TypeDecorator[datetime]):
    """Timezone-aware UTC datetimes on every backend (SQLite returns naive ones)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        assert value.tzinfo is not None, "store aware datetimes only"
        value = as_utc(value)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        return None if value is None else as_utc(value)


JSONDocument = JSON().with_variant(JSONB(), "postgresql")
MinorUnits = BigInteger


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map = {
        datetime: UTCDateTime(),
        dict[str, Any]: JSONDocument,
        list[Any]: JSONDocument,
    }


def id_column(**kwargs: Any) -> Mapped[str]:
    return mapped_column(String(40), primary_key=True, **kwargs)


def _configure_sqlite(engine: AsyncEngine, *, immediate: bool) -> None:
    @event.listens_for(engine.sync_engine, "connect")
    def on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy's "begin" event below own the transaction boundaries.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def on_begin(connection: Any) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


def make_engine(url: str, *, immediate_transactions: bool = True) -> AsyncEngine:
    if url.startswith("sqlite"):
        engine = create_async_engine(url, pool_size=5, max_overflow=10, pool_timeout=60)
        _configure_sqlite(engine, immediate=immediate_transactions)
        return engine
    return create_async_engine(
        url, pool_size=10, max_overflow=40, pool_timeout=60, pool_pre_ping=True
    )


class Database:
    """The engines and session factories of one database."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.is_sqlite = url.startswith("sqlite")
        self.engine = make_engine(url)
        self.read_engine = (
            make_engine(url, immediate_transactions=False) if self.is_sqlite else self.engine
        )
        self._write_sessions = async_sessionmaker(
            self.engine, expire_on_commit=False, autoflush=True
        )
        self._read_sessions = async_sessionmaker(
            self.read_engine, expire_on_commit=False, autoflush=True
        )

    def session(self, *, write: bool = True) -> AsyncSession:
        return self._write_sessions() if write else self._read_sessions()

    async def dispose(self) -> None:
        await self.engine.dispose()
        if self.read_engine is not self.engine:
            await self.read_engine.dispose()


async def lock_rows(session: AsyncSession, model: type[Base], ids: Sequence[str]) -> list[Any]:
    """Load rows by id for update, always in id order so concurrent lockers never deadlock."""
    ordered = sorted(set(ids))
    statement = select(model).where(model.id.in_(ordered)).order_by(model.id)  # type: ignore[attr-defined]
    if session.bind is not None and session.bind.dialect.name != "sqlite":
        statement = statement.with_for_update()
    result = await session.execute(statement.execution_options(populate_existing=True))
    return list(result.scalars())
