"""Statements built once and sent on the driver: a request's hot reads, and the unit of
work's new rows and changes (`DriverSession`, the end of this module).

SQLAlchemy's execution of a statement (its cache key, the execution context, the result
and, for entities, the ORM's loading) costs ~0.4 ms of CPU on a read that asyncpg runs in a
tenth of that: measured on GET one transfer, the transfer and its legs in one statement,
0.81 ms through the session against 0.40 ms on the driver, BEGIN included (a `text()`
statement through the session costs the same 0.78 ms: the execution is the cost, not the
ORM). A `PreparedRead` is a Core SELECT with named parameters, compiled once per dialect:

- on PostgreSQL its SQL goes to the session's own asyncpg connection, inside the session's
  transaction (begun as SQLAlchemy begins it), where asyncpg prepares it once per
  connection; values come back through the same type processing SQLAlchemy applies (UTC
  datetimes, encrypted text; JSON is decoded by the connection's codec), and a database
  error is raised as SQLAlchemy raises it (`DBAPIError` and its kinds; a lost connection
  invalidated), so every caller's handling is the same;
- on SQLite, or for a statement the driver cannot take as compiled (an expanding IN), it
  is run through the session, as any statement.

Like the session's own execution, a read first flushes the unit of work's pending changes
(unless under `no_autoflush`). `RowShape` turns a row's columns into a model's instance as
the ORM loads one (no constructor, no attribute events): `read` for a read that changes
nothing (in no session), `load` into the session's identity map, so the rest of the unit
of work reads, changes and flushes it as any loaded row. `among` with an `IdList`
parameter compares a column with a list of ids of any length in a statement built once.
Only repositories use these (the queries contract).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast

from sqlalchemy import (
    ARRAY,
    Boolean,
    Column,
    Select,
    String,
    bindparam,
    insert,
    inspect,
    literal_column,
    select,
    update,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.orm import Session
from sqlalchemy.orm.attributes import set_committed_value
from sqlalchemy.orm.base import instance_state
from sqlalchemy.orm.exc import StaleDataError
from sqlalchemy.sql import ClauseElement
from sqlalchemy.sql.dml import UpdateBase
from sqlalchemy.sql.functions import FunctionElement
from sqlalchemy.types import TypeDecorator
from sqlalchemy.util import await_only, safe_reraise

Model = TypeVar("Model")
Processor = Callable[[Any], Any]


@dataclass(slots=True)
class _Compiled:
    sql: str
    dialect: Dialect
    # The parameters in the order of the statement's `$n`: each one's name, its type's
    # bind processor (None: sent as it is), and the value written in the statement (a
    # literal; _REQUIRED: a named parameter `rows` must be given).
    parameters: tuple[tuple[str, Processor | None, Any], ...]
    # Each result column's type, and once the statement has run (its columns' database
    # types known, as SQLAlchemy asks them of the driver) the columns whose values a
    # processor converts, by position (most columns need none).
    types: tuple[Any, ...]
    # A SELECT that locks nothing: in a reading session it needs no transaction.
    plain_select: bool = False
    processors: tuple[tuple[int, Processor], ...] | None = None


class PreparedRead:
    """A SELECT (or an INSERT or UPDATE … RETURNING: the rows it wrote, read) built once,
    with named parameters (`bindparam("name")`); `rows` runs it in the session's
    transaction and answers its rows as tuples of processed values."""

    def __init__(self, statement: Select[Any] | UpdateBase) -> None:
        self.statement = statement
        self._compiled: dict[str, _Compiled | None] = {}

    async def rows(
        self, session: AsyncSession, parameters: Mapping[str, Any]
    ) -> Sequence[Sequence[Any]]:
        bind = session.bind
        assert bind is not None, "a session of one database"
        dialect = bind.dialect
        compiled = self._compiled.get(dialect.name, _UNSET)
        if compiled is _UNSET:
            compiled = self._compiled[dialect.name] = _compile(self.statement, dialect)
        if compiled is None:
            return (await session.execute(self.statement, dict(parameters))).all()
        sync = session.sync_session
        if sync.autoflush and (sync.new or sync.dirty or sync.deleted):
            # What the session's own execution does first (unless under `no_autoflush`):
            # the read sees the unit of work's changes, and `load` never refreshes a row
            # over a change not yet written.
            await session.flush()
        return await _driver_rows(session, compiled, parameters)


_UNSET: Any = object()


def _compile(statement: Select[Any] | UpdateBase, dialect: Dialect) -> _Compiled | None:
    """The statement's SQL and processors for the asyncpg driver; None for the session."""
    if dialect.driver != "asyncpg":
        return None
    compiled: Any = statement.compile(dialect=dialect)
    if compiled.post_compile_params or compiled.literal_execute_params:
        return None  # an expanding IN: its SQL depends on the values
    processors = compiled._bind_processors
    parameters = tuple(
        (name, processors.get(name), _written(compiled.binds[name]))
        for name in compiled.positiontup
    )
    types = tuple(column.type for column in compiled._result_columns)
    plain = isinstance(statement, Select) and statement._for_update_arg is None
    return _Compiled(
        sql=compiled.string,
        dialect=dialect,
        parameters=parameters,
        types=types,
        plain_select=plain,
    )


async def _learn_results(compiled: _Compiled, adapted: Any) -> None:
    """The result processors, from the statement's columns as the database types them
    (a numeric column's processor depends on it), as SQLAlchemy's own execution learns
    them from the driver's description."""
    prepared = await adapted._connection.prepare(compiled.sql)
    oids = [attribute.type.oid for attribute in prepared.get_attributes()]
    compiled.processors = tuple(
        (index, processor)
        for index, (kind, oid) in enumerate(zip(compiled.types, oids, strict=True))
        if (processor := kind._cached_result_processor(compiled.dialect, oid)) is not None
    )


def _written(parameter: Any) -> Any:
    """The value a statement's parameter carries (a literal compared with), or _REQUIRED."""
    if parameter.required:
        return _REQUIRED
    assert parameter.callable is None, f"{parameter.key}: a callable value"
    return parameter.value


_REQUIRED: Any = object()


async def _driver_rows(
    session: AsyncSession, compiled: _Compiled, parameters: Mapping[str, Any]
) -> list[tuple[Any, ...]]:
    arguments = []
    for name, processor, written in compiled.parameters:
        value = parameters[name] if written is _REQUIRED else written
        arguments.append(value if processor is None or value is None else processor(value))
    connection, adapted = await _driver_of(session)
    try:
        async with adapted._execute_mutex:
            # The session's transaction, begun on the driver as SQLAlchemy begins it
            # before its own first statement (asyncpg's dialect adapter); not for a
            # reading session's plain SELECT (see READING).
            if adapted._transaction is None and not (
                compiled.plain_select and session.info.get(READING)
            ):
                await adapted._start_transaction()
            if compiled.processors is None:
                await _learn_results(compiled, adapted)
            records = await adapted._connection.fetch(compiled.sql, *arguments)
    except DBAPIError:
        raise
    except Exception as error:
        raise await _translated(connection, adapted, compiled.sql, arguments, error) from error
    processors = compiled.processors
    assert processors is not None
    if not processors:
        return [tuple(record) for record in records]
    rows = []
    for record in records:
        values = list(record)
        for index, processor in processors:
            value = values[index]
            if value is not None:
                values[index] = processor(value)
        rows.append(tuple(values))
    return rows


async def _driver_of(session: AsyncSession) -> tuple[Any, Any]:
    """The session's connection and its driver adapter, kept for the transaction (the
    look-up through the async session costs two greenlet hand-offs, ~55 µs)."""
    transaction = session.sync_session.get_transaction()
    kept = session.info.get(_DRIVER)
    if kept is not None and transaction is not None and kept[0] is transaction:
        return kept[1], kept[2]
    connection = await session.connection()
    fairy = await connection.get_raw_connection()
    adapted = fairy.dbapi_connection
    session.info[_DRIVER] = (session.sync_session.get_transaction(), connection, adapted)
    return connection, adapted


_DRIVER = "kit.prepared driver"
# In a session's `info` (kit.db's reading sessions): its plain SELECTs on the driver run
# outside a transaction until something begins one (SQLAlchemy's first statement, a
# write, a locking read, a savepoint), which then holds the rest as always. At READ
# COMMITTED every statement sees the data as of its own start, in a transaction or not,
# so a read answers the same; a request that only reads spares its BEGIN and COMMIT, two
# of a GET's four round trips.
READING = "kit.prepared reading"


async def _translated(
    connection: Any, adapted: Any, sql: str, arguments: list[Any], error: Exception
) -> Exception:
    """The error as SQLAlchemy raises it from its own execution (`_translation`), a lost
    connection invalidated as SQLAlchemy invalidates it."""
    hidden = connection.sync_engine.hide_parameters
    raised, lost = _translation(connection.dialect, hidden, adapted, sql, arguments, error)
    if lost is not None:
        await connection.invalidate(lost)
    return raised


def _translation(
    dialect: Dialect,
    hide_parameters: bool,
    adapted: Any,
    sql: str,
    arguments: Sequence[Any],
    error: Exception,
) -> tuple[Exception, Exception | None]:
    """The driver's exception translated by the dialect (IntegrityError, OperationalError,
    …) and wrapped as a `DBAPIError` (its values left out of the message when the engine
    hides them: kit.db's engines do, so no secret reaches a log), and the translated
    error when the connection is lost (the caller invalidates it)."""
    dbapi = adapted.dbapi
    try:
        adapted._handle_exception(error)
    except dbapi.Error as translated:
        lost = dialect.is_disconnect(translated, adapted, None)
        raised = DBAPIError.instance(
            sql,
            arguments,
            translated,
            dbapi.Error,
            hide_parameters=hide_parameters,
            connection_invalidated=lost,
            dialect=dialect,
        )
        return raised, translated if lost else None
    except Exception as other:  # not a driver error: as it is
        return other, None
    raise AssertionError("the dialect's error handler always raises")


class IdList(TypeDecorator[list[str]]):
    """A list of ids as one parameter: an array on PostgreSQL, JSON text on SQLite."""

    impl = String
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> Any:
        if dialect.name == "postgresql":
            return dialect.type_descriptor(ARRAY(String()))
        return dialect.type_descriptor(String())

    def process_bind_param(self, value: list[str] | None, dialect: Dialect) -> Any:
        if value is None or dialect.name == "postgresql":
            return value
        return json.dumps(value)


class among(FunctionElement[bool]):
    """`column` is one of the ids in a list parameter (`bindparam(name, type_=IdList())`):
    a statement built once for lists of any length (an expanding IN writes one `$n` per
    value, so its SQL changes with the list's length and cannot be prepared once)."""

    type = Boolean()
    inherit_cache = True


@compiles(among, "postgresql")
def _among_postgresql(element: among, compiler: Any, **options: Any) -> str:
    column, values = element.clauses
    return f"{compiler.process(column, **options)} = ANY({compiler.process(values, **options)})"


@compiles(among, "sqlite")
def _among_sqlite(element: among, compiler: Any, **options: Any) -> str:
    column, values = element.clauses
    listed = compiler.process(values, **options)
    return f"{compiler.process(column, **options)} IN (SELECT value FROM json_each({listed}))"


class RowShape(Generic[Model]):
    """A model's columns, in the mapper's order, for a `PreparedRead`'s select list, and
    its rows' columns made into the model's loaded instances."""

    def __init__(self, model: type[Model], selectable: Any = None) -> None:
        mapper = inspect(model)
        self.model = model
        self._mapper = mapper
        self._manager = mapper.class_manager
        table = selectable if selectable is not None else mapper.local_table
        self.selectable = table
        fields: list[tuple[str, Column[Any]]] = [
            (prop.key, prop.columns[0]) for prop in mapper.column_attrs
        ]
        self._keys = tuple(key for key, _ in fields)
        # The select list: this table's (or alias's) columns under unique labels.
        self.columns = [
            table.c[column.name].label(f"{table.name}__{column.name}") for _, column in fields
        ]
        self.width = len(fields)
        primary = [column.name for column in mapper.primary_key]
        assert len(primary) == 1, f"{model.__name__}: one primary key column"
        self.id_index = [column.name for _, column in fields].index(primary[0])

    def read(self, row: Sequence[Any], start: int) -> Model | None:
        """The instance in `row[start:start + width]` (None: an outer join found none) for
        a read that changes nothing: made as the ORM makes a loaded row (no constructor,
        no attribute events) but in no session, a tenth of the cost of `load`."""
        values = row[start : start + self.width]
        if values[self.id_index] is None:
            return None
        instance = self._manager.new_instance()
        instance.__dict__.update(zip(self._keys, values, strict=True))
        return cast(Model, instance)

    def load(self, session: AsyncSession, row: Sequence[Any], start: int) -> Model | None:
        """The instance in `row[start:start + width]` (None: an outer join found none), as
        the unit of work's own: the one the session already holds, refreshed with these
        values (what `populate_existing` does), or a new one entered in the session's
        identity map as the ORM's loading enters a row it read (`loading._instance`: the
        identity key, the session, the map), so the unit of work reads, changes and
        flushes it as any loaded row."""
        values = row[start : start + self.width]
        ident = values[self.id_index]
        if ident is None:
            return None
        sync = session.sync_session
        key = self._mapper.identity_key_from_primary_key((ident,))
        held = sync.identity_map.get(key)
        if held is not None:
            for name, value in zip(self._keys, values, strict=True):
                set_committed_value(held, name, value)
            return cast(Model, held)
        instance = self._manager.new_instance()
        instance.__dict__.update(zip(self._keys, values, strict=True))
        state = instance_state(instance)
        state.key = key
        state.identity_token = None
        state.session_id = sync.hash_key
        sync.identity_map._add_unpresent(state, key)
        return cast(Model, instance)


# --- The unit of work's new rows, inserted on the driver -----------------------------------


class DriverSession(Session):
    """The session kit.db's sessions are made of. On PostgreSQL (asyncpg) a flush's new
    rows are inserted in one statement (each table's rows one INSERT, several tables'
    INSERTs as the parts of one WITH; the foreign keys are checked at its end), built once
    per shape of rows and sent on the session's own connection, then entered in the
    session as the ORM's flush enters them: persistent, in the identity map, their history
    committed, expunged again if the transaction rolls back. The values are the ORM's: a
    column's Python default where the value is missing (and kept on the row, as the flush
    keeps it), SQL NULL for a missing value without one, JSON `null` for a JSON attribute
    set to None. Then the changes to rows already loaded, an UPDATE of each row's changed
    columns (its key in the WHERE; a row it does not find is the ORM's `StaleDataError`),
    entered as committed history the same way. Deletions, and a flush the driver cannot
    take whole (a model it cannot write, a row without its key, a changed key or a SQL
    expression as a value, a table both inserted and changed in the one flush, whose order
    the ORM decides, a flush of thousands of values or of more than a few changed rows) are
    the ORM's own flush, as everywhere on SQLite."""

    def _flush(self, objects: Sequence[Any] | None = None) -> None:
        if objects is None:
            if self._new:
                found = _insertable(self)
                if found is not None:
                    self._insert_on_driver(*found)
            # Changes to loaded rows, once every new row is written (the ORM's flush takes
            # a flush with new rows it writes, or with deletions, whole: its order).
            if not self._new and not self._deleted:
                changes = _updatable(self)
                if changes:
                    self._update_on_driver(changes)
        super()._flush(objects)

    def _insert_on_driver(self, batches: list[_Batch], write: _Write) -> None:
        rows = [value for batch in batches for row in batch.rows for value in row]
        arguments = [rows[index] for index in write.order]
        states = {state for batch in batches for state in batch.states}
        self._on_driver([(write.sql, arguments, None)], states)

    def _update_on_driver(self, changes: list[_Change]) -> None:
        self._on_driver(
            [(change.sql, change.arguments, change.table) for change in changes],
            {change.state for change in changes},
        )

    def _on_driver(self, statements: list[tuple[str, list[Any], Any]], states: set[Any]) -> None:
        """Send the statements (an UPDATE's table: it must change its one row), then enter
        the rows in the session as the ORM's flush enters the rows it wrote."""
        connection = self.connection()
        adapted = connection.connection.dbapi_connection
        # A flush's own transaction: an error rolls the session's back, as the ORM's
        # flush does (the session then answers nothing until it is rolled back).
        transaction = self._autobegin_t()._begin()
        try:
            for sql, arguments, updated in statements:
                try:
                    status = await_only(_send(adapted, sql, arguments))
                except Exception as error:
                    raised, lost = _translation(
                        connection.dialect,
                        connection.engine.hide_parameters,
                        adapted,
                        sql,
                        arguments,
                        error,
                    )
                    if lost is not None:
                        connection.invalidate(lost)
                    raise raised from error
                if updated is not None and status != "UPDATE 1":
                    raise StaleDataError(
                        f"UPDATE statement on table '{updated.name}' expected to update 1 "
                        f"row(s); {status.rpartition(' ')[2]} were matched."
                    )
            self._register_persistent(states)
            transaction.commit()
        except BaseException:
            with safe_reraise():
                transaction.rollback(_capture_exception=True)


@dataclass(slots=True)
class _Insert:
    """How a model's rows are inserted: its table, and how each column's value is made."""

    table: Any
    table_order: int
    # Per column of the table, in order: the attribute's key, its bind processor, the
    # column's Python default (None: none), and whether None is a value for its type
    # (JSON: `null`) rather than SQL NULL.
    columns: tuple[tuple[str, Processor | None, Any, bool], ...]
    id_key: str

    def arguments(self, state: Any) -> tuple[Any, ...] | None:
        """The row's values, as the ORM's flush makes them; None: the row has no key."""
        values = state.dict
        if values.get(self.id_key) is None:
            return None
        arguments = []
        for key, processor, default, evaluates_none in self.columns:
            value = values.get(key, _MISSING)
            if value is None and evaluates_none:
                arguments.append(processor(None) if processor is not None else None)
                continue
            if value is None or value is _MISSING:
                if default is None:
                    arguments.append(None)  # SQL NULL, as a column left out of the INSERT
                    continue
                value = default.arg if default.is_scalar else default.arg(None)
                values[key] = value  # the flush keeps the default on the row
            arguments.append(value if processor is None else processor(value))
        return tuple(arguments)


@dataclass(slots=True)
class _Batch:
    insert: _Insert
    states: list[Any]
    rows: list[tuple[Any, ...]]


@dataclass(frozen=True, slots=True)
class _Write:
    """One flush's statement: its SQL, and the position among the batches' values (table
    by table, row by row, column by column) of each of its `$n`."""

    sql: str
    order: tuple[int, ...]


_MISSING: Any = object()
_INSERTS: dict[tuple[type, str], _Insert | None] = {}
_WRITES: dict[tuple[tuple[type, int], ...], _Write] = {}
# Statements kept, one per shape of rows (which tables, how many rows each): a request
# writes one of a few; past this many the rest are the ORM's flush.
_WRITES_MAX = 1024
# PostgreSQL takes at most 32,767 values in a statement; a flush of more is the ORM's.
_VALUES_MAX = 30_000


def _shape_of(batches: list[_Batch]) -> tuple[tuple[type, int], ...]:
    return tuple((batch.insert.table, len(batch.states)) for batch in batches)


def _insertable(session: Session) -> tuple[list[_Batch], _Write] | None:
    """The flush's new rows to insert on the driver, by table in the order of their
    foreign keys, each table's rows in the order they were added, and their statement;
    None: the ORM's flush."""
    bind = session.bind
    if bind is None or bind.dialect.driver != "asyncpg":
        return None
    dialect = bind.dialect
    batches: dict[type, _Batch] = {}
    for state in session._new:
        model = state.class_
        batch = batches.get(model)
        if batch is None:
            insert = _INSERTS.get((model, dialect.name), _UNSET)
            if insert is _UNSET:
                insert = _INSERTS[(model, dialect.name)] = _compile_insert(model, dialect)
            if insert is None:
                return None
            batch = batches[model] = _Batch(insert, [], [])
        batch.states.append(state)
    tables = {batch.insert.table for batch in batches.values()}
    changed = list(session._deleted) + list(session._dirty_states)
    if any(state.mapper.local_table in tables for state in changed):
        return None
    ordered = sorted(batches.values(), key=lambda batch: batch.insert.table_order)
    values = sum(len(batch.states) * len(batch.insert.columns) for batch in ordered)
    shape = _shape_of(ordered)
    if values > _VALUES_MAX or (shape not in _WRITES and len(_WRITES) >= _WRITES_MAX):
        return None
    for batch in ordered:
        batch.states.sort(key=lambda state: state.insert_order)
        for state in batch.states:
            row = batch.insert.arguments(state)
            if row is None:
                return None
            batch.rows.append(row)
    write = _WRITES.get(shape)
    if write is None:
        write = _WRITES[shape] = _compile_write(ordered, dialect)
    return ordered, write


def _compile_insert(model: type, dialect: Dialect) -> _Insert | None:
    """How the model's rows are written; None: not as the ORM would write them (several
    tables, a server default, a version counter, …), left to the ORM's flush."""
    mapper: Any = inspect(model)
    table = mapper.local_table
    if (
        len(mapper.tables) != 1
        or mapper.version_id_col is not None
        or mapper._insert_orm_defaults[table]
        or len(mapper.primary_key) != 1
        or any(len(prop.columns) != 1 for prop in mapper.column_attrs)
    ):
        return None
    fields = {prop.columns[0].key: prop for prop in mapper.column_attrs}
    for column in table.columns:
        default = column.default
        if column.server_default is not None or column.key not in fields:
            return None
        if default is not None and not (default.is_scalar or default.is_callable):
            return None
    # The bind processors are the dialect's for the column's type, as a compiled INSERT
    # has them (an encrypted column's, JSON's serializer, …).
    columns = tuple(
        (
            fields[column.key].key,
            column.type._cached_bind_processor(dialect),
            column.default,
            bool(column.type.should_evaluate_none),
        )
        for column in table.columns
    )
    return _Insert(
        table=table,
        table_order=table.metadata.sorted_tables.index(table),
        columns=columns,
        id_key=fields[mapper.primary_key[0].key].key,
    )


def _compile_write(batches: list[_Batch], dialect: Dialect) -> _Write:
    """The batches' rows as one statement: an INSERT of each table's rows, several tables'
    as the parts of a WITH (every part runs, the foreign keys checked at the end)."""
    parts = []
    position: dict[str, int] = {}
    offset = 0
    for number, batch in enumerate(batches):
        table = batch.insert.table
        rows = []
        for row in range(len(batch.states)):
            values = {}
            for index, column in enumerate(table.columns):
                name = f"t{number}_{row}_{index}"
                position[name] = offset + row * len(table.columns) + index
                values[column] = bindparam(name, type_=column.type)
            rows.append(values)
        offset += len(batch.states) * len(table.columns)
        parts.append(insert(table).values(rows))
    if len(parts) == 1:
        statement: Any = parts[0]
    else:
        ctes = [part.cte(f"written_{number}") for number, part in enumerate(parts)]
        statement = select(literal_column("1")).add_cte(*ctes)
    compiled: Any = statement.compile(dialect=dialect)
    return _Write(sql=compiled.string, order=tuple(position[name] for name in compiled.positiontup))


async def _send(adapted: Any, sql: str, arguments: list[Any]) -> str:
    """The statement in the session's transaction (begun on the driver as SQLAlchemy
    begins it); its status (`UPDATE 1`)."""
    async with adapted._execute_mutex:
        if adapted._transaction is None:
            await adapted._start_transaction()
        return cast(str, await adapted._connection.execute(sql, *arguments))


# --- Changes to loaded rows, on the driver ----------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Updated:
    """How a model's loaded rows are changed: its table, and per attribute of a column
    its column and bind processor."""

    table: Any
    table_order: int
    columns: dict[str, tuple[Any, Processor | None]]
    id_key: str
    id_column: Any


@dataclass(slots=True)
class _Change:
    state: Any
    table: Any
    sql: str
    arguments: list[Any]


_UPDATED: dict[tuple[type, str], _Updated | None] = {}
_UPDATES: dict[tuple[type, tuple[str, ...]], tuple[str, tuple[str, ...]]] = {}
# Rows changed in one flush on the driver, one statement each; a flush changing more (a
# batch job) is the ORM's, which sends rows of one shape together.
_CHANGED_MAX = 8


def _updatable(session: Session) -> list[_Change] | None:
    """The flush's changes to loaded rows, as the ORM's flush would write them (each row
    its changed columns, by table in the order of their foreign keys, each table's rows by
    key), and their statements; None: the ORM's flush (a model it cannot change, a changed
    key, a value that is a SQL expression, …). Rows with no net change are left to it."""
    bind = session.bind
    if bind is None or bind.dialect.driver != "asyncpg":
        return None
    dialect = bind.dialect
    dirty = list(session._dirty_states)
    if not dirty or len(dirty) > _CHANGED_MAX:
        return None
    found: list[tuple[_Updated, Any, tuple[str, ...]]] = []
    for state in dirty:
        model = state.class_
        updated = _UPDATED.get((model, dialect.name), _UNSET)
        if updated is _UNSET:
            updated = _UPDATED[(model, dialect.name)] = _compile_updated(model, dialect)
        if updated is None or state.key is None or updated.id_key in state.committed_state:
            return None
        values = state.dict
        keys = []
        for key, before in state.committed_state.items():
            if key not in updated.columns or key not in values:
                return None
            value = values[key]
            if hasattr(value, "__clause_element__") or isinstance(value, ClauseElement):
                return None
            if state.manager[key].impl.is_equal(value, before) is not True:
                keys.append(key)
        if keys:
            found.append((updated, state, tuple(sorted(keys))))
    found.sort(key=lambda item: (item[0].table_order, item[1].key[1]))
    changes = []
    for updated, state, changed in found:
        statement = _UPDATES.get((state.class_, changed))
        if statement is None:
            if len(_UPDATES) >= _WRITES_MAX:
                return None
            statement = _compile_update(updated, changed, dialect)
            _UPDATES[(state.class_, changed)] = statement
        sql, order = statement
        values = state.dict
        arguments = []
        for key in order:
            if key == "":
                arguments.append(values[updated.id_key])
                continue
            # Every value through its processor, None too, as SQLAlchemy sends an UPDATE's
            # (a JSON attribute set to None: JSON `null`).
            processor = updated.columns[key][1]
            arguments.append(values[key] if processor is None else processor(values[key]))
        changes.append(_Change(state=state, table=updated.table, sql=sql, arguments=arguments))
    return changes


def _compile_updated(model: type, dialect: Dialect) -> _Updated | None:
    """How the model's rows are changed; None: not as the ORM would change them (several
    tables, a version counter, a column's onupdate), left to the ORM's flush."""
    mapper: Any = inspect(model)
    table = mapper.local_table
    if (
        len(mapper.tables) != 1
        or mapper.version_id_col is not None
        or len(mapper.primary_key) != 1
        or any(len(prop.columns) != 1 for prop in mapper.column_attrs)
        or any(
            column.onupdate is not None or column.server_onupdate is not None
            for column in table.columns
        )
    ):
        return None
    columns = {
        prop.key: (prop.columns[0], prop.columns[0].type._cached_bind_processor(dialect))
        for prop in mapper.column_attrs
    }
    id_column = mapper.primary_key[0]
    return _Updated(
        table=table,
        table_order=table.metadata.sorted_tables.index(table),
        columns=columns,
        id_key=mapper.get_property_by_column(id_column).key,
        id_column=id_column,
    )


def _compile_update(
    updated: _Updated, changed: tuple[str, ...], dialect: Dialect
) -> tuple[str, tuple[str, ...]]:
    """`UPDATE table SET <changed columns> WHERE <key> = …` for the driver, and the
    attribute behind each `$n` ("": the key)."""
    statement = (
        update(updated.table)
        .where(updated.id_column == bindparam("k_", type_=updated.id_column.type))
        .values(
            {
                updated.columns[key][0]: bindparam(f"v_{key}", type_=updated.columns[key][0].type)
                for key in changed
            }
        )
    )
    compiled: Any = statement.compile(dialect=dialect)
    return compiled.string, tuple(
        "" if name == "k_" else name.removeprefix("v_") for name in compiled.positiontup
    )
