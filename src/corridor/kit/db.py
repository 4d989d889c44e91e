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
import contextvars
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar, cast

from sqlalchemy import ColumnElement, Executable, Select, String, and_, event, or_, select
from sqlalchemy.engine import CursorResult
from sqlalchemy.engine.interfaces import PoolProxiedConnection
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.orm.attributes import set_committed_value
from sqlalchemy.orm.util import identity_key
from sqlalchemy.pool import AsyncAdaptedQueuePool
from sqlalchemy.sql.functions import FunctionElement
from sqlalchemy.util.concurrency import greenlet_spawn

from corridor.kit import metrics
from corridor.kit.clock import Moments
from corridor.kit.errors import NotFound
from corridor.kit.ids import looks_like_id
from corridor.kit.lending import HeldConnections
from corridor.kit.prepared import READING, DriverSession
from corridor.kit.replica import Replica


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


class _MeteredPool(AsyncAdaptedQueuePool):
    """The usual pool, timing each check-out (`corridor_db_pool_wait_seconds`) and
    counting those that found no connection in time. A subclass per database label
    (`_metered_pool`), since a pool is made anew, from its class, when it is disposed."""

    metrics_label = "primary"

    def _do_get(self) -> Any:
        started = time.perf_counter()
        try:
            return super()._do_get()
        except PoolTimeout:
            metrics.DB_POOL_TIMEOUTS.labels(self.metrics_label).inc()
            raise
        finally:
            metrics.DB_POOL_WAIT.labels(self.metrics_label).observe(time.perf_counter() - started)


_pool_classes: dict[str, type[_MeteredPool]] = {}


def _metered_pool(label: str) -> type[_MeteredPool]:
    if label not in _pool_classes:
        _pool_classes[label] = type(
            f"MeteredPool_{label}", (_MeteredPool,), {"metrics_label": label}
        )
    return _pool_classes[label]


def _meter(engine: AsyncEngine, label: str, *, connections_max: int) -> None:
    """Connections lent out now (`corridor_db_pool_connections_in_use`), set from the pool
    itself on every check-out and check-in, and the pool's budget."""
    in_use = metrics.DB_POOL_IN_USE.labels(label)
    metrics.DB_POOL_MAX.labels(label).set(connections_max)
    pool = engine.sync_engine.pool

    def lent(*_: Any) -> None:
        in_use.set(cast("_MeteredPool", engine.sync_engine.pool).checkedout())

    def returned(*_: Any) -> None:
        # Called just before the connection is back in the pool.
        in_use.set(max(0, cast("_MeteredPool", engine.sync_engine.pool).checkedout() - 1))

    event.listen(pool, "checkout", lent)
    event.listen(pool, "checkin", returned)


def make_engine(
    url: str,
    *,
    immediate_transactions: bool = True,
    pool: PoolLimits = PoolLimits(),
    metrics_label: str = "primary",
) -> AsyncEngine:
    # hide_parameters: a database error's message (logged, or printed by the CLI) never
    # carries the statement's values, among them hashes of secrets and personal data.
    if url.startswith("sqlite"):
        # SQLite lets one writer in at a time. The writing engine keeps a single connection,
        # so a process's writers queue for it in order (the pool's wait is an asyncio queue)
        # instead of each taking BEGIN IMMEDIATE's busy handler, which sleeps and retries
        # with growing pauses and let the unlucky wait a second behind later arrivals.
        # Another process (a `corridor worker`) still meets busy_timeout.
        size, overflow = (1, 0) if immediate_transactions else (5, 10)
        engine = create_async_engine(
            url,
            poolclass=_metered_pool(metrics_label),
            pool_size=size,
            max_overflow=overflow,
            pool_timeout=60,
            hide_parameters=True,
        )
        _configure_sqlite(engine, immediate=immediate_transactions)
        _meter(engine, metrics_label, connections_max=size + overflow)
        return engine
    # No pre-ping: checking each connection out with a round trip cost ~7% of a
    # create+submit's CPU. A connection the server dropped (a restart, an idle timeout)
    # fails its request instead, which is answered 503 to retry (web/errors.py), and the
    # failure invalidates the pool, so the retry gets a fresh connection. Connections are
    # renewed after an hour all the same, before any idle timeout likely to be configured.
    engine = create_async_engine(
        url,
        poolclass=_metered_pool(metrics_label),
        pool_size=pool.size,
        max_overflow=pool.overflow,
        pool_timeout=pool.timeout_s,
        pool_recycle=3600,
        hide_parameters=True,
    )
    _meter(engine, metrics_label, connections_max=pool.size + pool.overflow)
    return engine


class Database:
    """The engines and session factories of one database, and of its read replica when
    one is configured (PostgreSQL).

    Two kinds of session, chosen by the code that opens the unit of work:
    - `session()`: the primary. Everything that writes, and every read that decides
      something (a balance behind a hold, a limit, an idempotency key, who is calling).
    - `reading_session()`: work that only reads and decides nothing (lists, history,
      statements, console charts, exports): the replica while it is within its lag bound,
      the primary otherwise (kit/replica.py).
    """

    def __init__(
        self,
        url: str,
        *,
        pool: PoolLimits = PoolLimits(),
        replica_url: str | None = None,
        replica_lag_max_s: float = 5.0,
        replica_poll_s: float = 1.0,
    ) -> None:
        self.url = url
        self.is_sqlite = url.startswith("sqlite")
        self.engine = make_engine(url, pool=pool)
        self.read_engine = (
            make_engine(url, immediate_transactions=False, metrics_label="primary_read")
            if self.is_sqlite
            else self.engine
        )
        self.replica = (
            Replica(
                make_engine(replica_url, pool=pool, metrics_label="replica"),
                lag_max_s=replica_lag_max_s,
                poll_s=replica_poll_s,
            )
            if replica_url and not self.is_sqlite
            else None
        )
        # The sessions' flush inserts new rows on the driver (prepared.DriverSession).
        self._write_sessions = async_sessionmaker(
            self.engine, expire_on_commit=False, autoflush=True, sync_session_class=DriverSession
        )
        # A reading session's plain SELECTs on the driver take no transaction until it
        # writes or locks (prepared.READING).
        self._read_sessions = async_sessionmaker(
            self.read_engine,
            expire_on_commit=False,
            autoflush=True,
            sync_session_class=DriverSession,
            info={READING: True},
        )
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
        """A session on the primary (`write=False`: SQLite's reading engine, which never
        waits for the writer; the same engine on PostgreSQL)."""
        return self._write_sessions() if write else self._read_sessions()

    def reading_session(self) -> AsyncSession:
        """A session for work that reads and decides nothing: on the replica while it is
        fresh, else on the primary (counted in `corridor_db_reads_total` by target)."""
        replica = self.replica
        if replica is None:
            metrics.DB_READS.labels("primary").inc()
        elif replica.fresh:
            metrics.DB_READS.labels("replica").inc()
            return replica.session()
        else:
            metrics.DB_READS.labels("fallback").inc()
        return self._read_sessions()

    @property
    def reads_from_replica(self) -> bool:
        """Whether `reading_session()` would now give a replica session."""
        return self.replica is not None and self.replica.fresh

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
        if self.replica is not None:
            await self.replica.dispose()


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


def set_loaded(session: AsyncSession, entity: type[Any], ident: str, **values: Any) -> None:
    """Give a row this unit of work has loaded (if it has) the values a statement of the
    repository just wrote to it, as loaded values, not changes to flush: what
    `populate_existing` does, without the ORM's UPDATE … RETURNING of the whole row."""
    found = session.sync_session.identity_map.get(identity_key(entity, ident))
    if found is not None:
        for name, value in values.items():
            set_committed_value(found, name, value)


def note_absent(session: AsyncSession, kind: str, ident: str) -> None:
    """Remember for the rest of the unit of work that `ident` has no rows of `kind` (a read
    that found none, or a join that said so, spares the next read of them its query)."""
    session.info.setdefault(("absent", kind), set()).add(ident)


def known_absent(session: AsyncSession, kind: str, ident: str) -> bool:
    """Whether this unit of work already knows `ident` has no rows of `kind`."""
    return ident in session.info.get(("absent", kind), ())


def forget_absent(session: AsyncSession, kind: str, ident: str) -> None:
    """`ident` has rows of `kind` now (made in this unit of work): read them again."""
    session.info.get(("absent", kind), set()).discard(ident)


def is_sqlite(session: AsyncSession) -> bool:
    """The one dialect check: SQLite serialises writers itself and has no row locks."""
    bind = session.bind
    return bind is not None and bind.dialect.name == "sqlite"


def for_update(
    session: AsyncSession,
    statement: Select[Any],
    *,
    skip_locked: bool = False,
    of: Any = None,
) -> Select[Any]:
    """Lock the selected rows until the transaction ends (PostgreSQL), and re-read their
    attributes even when the session already holds them, so a check made under the lock
    never sees a stale copy. On SQLite the write transaction already excludes writers.
    `skip_locked`: rows another transaction holds are passed over (workers claiming work).
    `of`: lock only that table's rows (a statement outer joined to rows it does not lock)."""
    if not is_sqlite(session):
        statement = statement.with_for_update(skip_locked=skip_locked, of=of)
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


def due(
    time_column: Any, organization_column: Any, moment: datetime | Moments
) -> ColumnElement[bool]:
    """`time_column <= now`, where now is each row's organization's (its sandbox clock when
    moved, API.md 9). Without a moved clock this is the plain comparison."""
    if not isinstance(moment, Moments):
        return cast(ColumnElement[bool], time_column <= moment)
    if not moment.shifted:
        return cast(ColumnElement[bool], time_column <= moment.default)
    shifted = sorted(moment.shifted)
    return or_(
        and_(organization_column.not_in(shifted), time_column <= moment.default),
        *(
            and_(
                organization_column == organization_id,
                time_column <= moment.shifted[organization_id],
            )
            for organization_id in shifted
        ),
    )


# The transaction a transfer step runs in, for the rails that keep their own rows (bank
# files): what such a rail writes commits, or rolls back, with the leg's own change.
_unit_of_work: contextvars.ContextVar[AsyncSession | None] = contextvars.ContextVar(
    "corridor_unit_of_work", default=None
)


@contextlib.contextmanager
def unit_of_work(session: AsyncSession) -> Iterator[None]:
    token = _unit_of_work.set(session)
    try:
        yield
    finally:
        _unit_of_work.reset(token)


def current_unit_of_work() -> AsyncSession:
    session = _unit_of_work.get()
    assert session is not None, "a file rail is called only inside a transfer step"
    return session
