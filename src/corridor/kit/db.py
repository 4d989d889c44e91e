"""Engines, sessions and the query helpers every repository shares; SQLite (embedded
default) and PostgreSQL alike.

On SQLite, writes are serialised: a writing session opens its transaction with
BEGIN IMMEDIATE, so two writers never interleave read-check-write on a balance, and the
writing engine has one connection, so a process's writers wait in line for it. Reading
sessions use a second engine with plain BEGIN so they never wait for the write lock.
On PostgreSQL both are one engine, and rows that must not race are locked with
SELECT … FOR UPDATE (`for_update`, `lock_rows`). The declarative base and the column
types are in models/base.py.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from sqlalchemy import Executable, Select, String, event, select
from sqlalchemy.engine import CursorResult
from sqlalchemy.engine.interfaces import PoolProxiedConnection
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.functions import FunctionElement
from sqlalchemy.util.concurrency import greenlet_spawn

from corridor.kit.errors import NotFound
from corridor.kit.group_commit import GroupCommit
from corridor.kit.ids import looks_like_id
from corridor.kit.lending import HeldConnections


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


# A pool this small keeps no connections aside for hand-written statements.
held_pool_size_min = 4


@dataclass(frozen=True, slots=True)
class PoolLimits:
    """Connections of one process: kept open, opened beyond under load, and how long a
    session waits for one (then `sqlalchemy.exc.TimeoutError`, answered 503)."""

    size: int = 12
    overflow: int = 0
    timeout_s: float = 5.0


def make_engine(
    url: str, *, immediate_transactions: bool = True, pool: PoolLimits = PoolLimits()
) -> AsyncEngine:
    # hide_parameters: a database error's message (logged, or printed by the CLI) never
    # carries the statement's values, among them hashes of secrets and personal data.
    if url.startswith("sqlite"):
        # SQLite lets one writer in at a time. The writing engine keeps a single connection,
        # so a process's writers queue for it in order (the pool's wait is an asyncio queue)
        # instead of each taking BEGIN IMMEDIATE's busy handler, which sleeps and retries
        # with growing pauses and let the unlucky wait a second behind later arrivals.
        # Another process (a `corridor worker`) still meets busy_timeout.
        engine = create_async_engine(
            url,
            pool_size=1 if immediate_transactions else 5,
            max_overflow=0 if immediate_transactions else 10,
            pool_timeout=60,
            hide_parameters=True,
        )
        _configure_sqlite(engine, immediate=immediate_transactions)
        return engine
    # No pre-ping: checking each connection out with a round trip cost ~7% of a
    # create+submit's CPU. A connection the server dropped (a restart, an idle timeout)
    # fails its request instead, which is answered 503 to retry (web/errors.py), and the
    # failure invalidates the pool, so the retry gets a fresh connection. Connections are
    # renewed after an hour all the same, before any idle timeout likely to be configured.
    return create_async_engine(
        url,
        pool_size=pool.size,
        max_overflow=pool.overflow,
        pool_timeout=pool.timeout_s,
        pool_recycle=3600,
        hide_parameters=True,
    )


class Database:
    """The engines and session factories of one database."""

    def __init__(self, url: str, *, pool: PoolLimits = PoolLimits()) -> None:
        self.url = url
        self.is_sqlite = url.startswith("sqlite")
        self.engine = make_engine(url, pool=pool)
        self.read_engine = (
            make_engine(url, immediate_transactions=False) if self.is_sqlite else self.engine
        )
        self._write_sessions = async_sessionmaker(
            self.engine, expire_on_commit=False, autoflush=True
        )
        self._read_sessions = async_sessionmaker(
            self.read_engine, expire_on_commit=False, autoflush=True
        )
        # Batches of units of work sharing one transaction (group_commit.py); PostgreSQL.
        self.group_commit = GroupCommit(self._write_sessions)
        # Connections kept at hand for hand-written statements (lending.py): up to half the
        # pool, when the pool has room for that beside everything else.
        self._held = (
            HeldConnections(
                self._check_out,
                self._give_back,
                held_max=pool.size // 2,
                wait_s=pool.timeout_s,
            )
            if not self.is_sqlite and pool.size >= held_pool_size_min
            else None
        )

    def session(self, *, write: bool = True) -> AsyncSession:
        return self._write_sessions() if write else self._read_sessions()

    @contextlib.asynccontextmanager
    async def pooled_connection(self) -> AsyncIterator[PoolProxiedConnection]:
        """A connection of the writing pool, lent as the pool's own proxy: its
        `driver_connection` runs hand-written statements (kit/pgrows.py) without SQLAlchemy's
        connection and transaction objects around it (half the cost of `engine.connect()`).
        Autocommit: each statement is its own transaction. `invalidate()` a connection that
        broke; it goes back to the pool (or is discarded) at the end."""
        pooled = await self._check_out()
        try:
            yield pooled
        finally:
            await self._give_back(pooled)

    @contextlib.asynccontextmanager
    async def held_connection(self) -> AsyncIterator[PoolProxiedConnection]:
        """`pooled_connection`, from the connections kept at hand when there are
        (lending.py): the same rules, a few microseconds instead of a check-out."""
        if self._held is None:
            async with self.pooled_connection() as pooled:
                yield pooled
            return
        connection = await self._held.borrow()
        try:
            yield connection
        finally:
            await self._held.give_back(connection, broken=not connection.is_valid)

    async def _check_out(self) -> PoolProxiedConnection:
        return await greenlet_spawn(self.engine.sync_engine.raw_connection)

    async def _give_back(self, connection: PoolProxiedConnection) -> None:
        await greenlet_spawn(connection.close)

    async def dispose(self) -> None:
        if self._held is not None:
            await self._held.close()
        await self.engine.dispose()
        if self.read_engine is not self.engine:
            await self.read_engine.dispose()


# --- Query helpers ------------------------------------------------------------------------

Row = TypeVar("Row")


_Row = TypeVar("_Row")


async def get_kept(session: AsyncSession, entity: type[_Row], ident: str) -> _Row | None:
    """`session.get` that keeps the row for the rest of the unit of work. The identity map
    holds rows weakly, so a row that several parts of one request read (the organization:
    the caller, its configuration, the events) would otherwise be fetched again each time
    the last reference went away; kept, the later reads cost no round trip."""
    found = await session.get(entity, ident)
    if found is not None:
        keep(session, found)
    return found


def keep(session: AsyncSession, row: object) -> None:
    """Hold a loaded row for the rest of the unit of work (see `get_kept`)."""
    session.info.setdefault("kept_rows", []).append(row)


def is_sqlite(session: AsyncSession) -> bool:
    """The one dialect check: SQLite serialises writers itself and has no row locks."""
    bind = session.bind
    return bind is not None and bind.dialect.name == "sqlite"


def for_update(
    session: AsyncSession, statement: Select[Any], *, skip_locked: bool = False
) -> Select[Any]:
    """Lock the selected rows until the transaction ends (PostgreSQL), and re-read their
    attributes even when the session already holds them, so a check made under the lock
    never sees a stale copy. On SQLite the write transaction already excludes writers.
    `skip_locked`: rows another transaction holds are passed over (workers claiming work)."""
    if not is_sqlite(session):
        statement = statement.with_for_update(skip_locked=skip_locked)
    return statement.execution_options(populate_existing=True)


async def affected_rows(session: AsyncSession, statement: Executable) -> int:
    """Run an UPDATE or DELETE; how many rows it touched."""
    result = await session.execute(statement)
    return cast("CursorResult[Any]", result).rowcount or 0


async def lock_rows(session: AsyncSession, model: type[Any], ids: Sequence[str]) -> list[Any]:
    """Load rows by id for update, always in id order so concurrent lockers never deadlock."""
    ordered = sorted(set(ids))
    statement = select(model).where(model.id.in_(ordered)).order_by(model.id)
    result = await session.execute(for_update(session, statement))
    return list(result.scalars())


async def get_visible(
    session: AsyncSession,
    visible: Select[Row],
    identifier: str,
    *,
    locked: bool = False,
) -> Row:
    """The row `identifier` among those a caller may see (a repository's `visible_…(caller)`
    statement), or 404: an id of another organization, of the wrong kind, or malformed is
    simply unknown (API.md section 2: never 403, never a hint that it exists). The table
    names its id prefix and resource name (`id_prefix`, `resource_name`, models/base.py)."""
    model: Any = visible.column_descriptions[0]["entity"]
    if not looks_like_id(identifier, model.id_prefix):
        raise NotFound(model.resource_name, identifier)
    statement = visible.where(model.id == identifier)
    if locked:
        statement = for_update(session, statement)
    found = (await session.execute(statement)).scalar_one_or_none()
    if found is None:
        raise NotFound(model.resource_name, identifier)
    return found


class utc_day(FunctionElement[str]):
    """The UTC calendar day of a timestamp column as `YYYY-MM-DD` text, for GROUP BY day
    on both backends (SQLite keeps naive UTC text; PostgreSQL a timestamptz)."""

    type = String()
    inherit_cache = True


@compiles(utc_day, "sqlite")
def _utc_day_sqlite(element: utc_day, compiler: Any, **options: Any) -> str:
    return f"strftime('%Y-%m-%d', {compiler.process(element.clauses, **options)})"


@compiles(utc_day, "postgresql")
def _utc_day_postgresql(element: utc_day, compiler: Any, **options: Any) -> str:
    column = compiler.process(element.clauses, **options)
    return f"to_char({column} AT TIME ZONE 'UTC', 'YYYY-MM-DD')"
