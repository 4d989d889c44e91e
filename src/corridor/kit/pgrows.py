"""Mapped rows in hand-written PostgreSQL statements, run on the driver's own connection.

SQLAlchemy spends a few hundred microseconds of CPU on each statement it runs (building
the expression, its cache key, the execution context, the result rows); asyncpg running a
prepared statement spends tens. A path that runs a few statements thousands of times a
second (the express create+submit) writes its SQL by hand and uses `RowShape` to keep to
the tables as the models declare them: the same columns, the same Python-side defaults
and the same column-type processing (UTC datetimes, encrypted text) the ORM applies, so a
row written here reads back exactly as one the ORM wrote.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Generic, TypeVar, cast

import orjson
from sqlalchemy import Column, inspect
from sqlalchemy.dialects.postgresql.asyncpg import PGDialect_asyncpg
from sqlalchemy.types import JSON, TypeDecorator

Model = TypeVar("Model")

DIALECT = PGDialect_asyncpg()
# An explicit cast to varchar(n) would cut a longer value short instead of refusing it:
# parameters are cast to the unbounded type and the column's own limit applies.
_LENGTH = re.compile(r"\(\d+\)$")


def _cast(column: Column[Any]) -> str:
    return _LENGTH.sub("", column.type.compile(dialect=DIALECT))


def _is_json(column: Column[Any]) -> bool:
    kind = column.type
    if isinstance(kind, TypeDecorator):
        kind = kind.impl_instance
    return isinstance(kind, JSON)


def _decorator(column: Column[Any]) -> TypeDecorator[Any] | None:
    return column.type if isinstance(column.type, TypeDecorator) else None


class RowShape(Generic[Model]):
    """One mapped class's columns, in the mapper's order, for hand-written statements:
    the select list and the instances it reads, the insert's columns, casts and values."""

    def __init__(self, model: type[Model]) -> None:
        mapper = inspect(model)
        self.model = model
        self._manager = mapper.class_manager
        self.table = mapper.local_table.name
        self.fields: list[tuple[str, Column[Any]]] = [
            (prop.key, prop.columns[0]) for prop in mapper.column_attrs
        ]
        for _, column in self.fields:
            # A hand-written insert sends every column, so a database-side default would
            # never apply: a model that gains one needs this class to learn to omit it.
            assert column.server_default is None, f"{column} has a server default"
        self.columns = [column.name for _, column in self.fields]
        self._casts = [_cast(column) for _, column in self.fields]
        self._json = [_is_json(column) for _, column in self.fields]
        self._decorators = [_decorator(column) for _, column in self.fields]
        self._plain = _plain_class(model, [key for key, _ in self.fields])
        self._keys = [key for key, _ in self.fields]
        # The columns whose values are more than read: defaulted, processed by their type,
        # or JSON; the others are sent as they are.
        self._processed = [
            (index, column, is_json, decorator)
            for index, ((_, column), is_json, decorator) in enumerate(
                zip(self.fields, self._json, self._decorators, strict=True)
            )
            if is_json or decorator is not None or column.default is not None
        ]

    def plain(self, **values: Any) -> Model:
        """A row of this model as a plain object: the same attributes (None until set),
        without the ORM's attribute events, which cost a microsecond a set and half one a
        read. For a row that is only built, read and written here, never put in a session."""
        return cast(Model, self._plain(**values))

    # --- reading ------------------------------------------------------------------------

    def select_list(self, alias: str) -> str:
        """`alias.column AS alias__column, …`: the columns under names unique in a join."""
        return ", ".join(f'{alias}."{name}" AS "{alias}__{name}"' for name in self.columns)

    def instance(self, row: Mapping[str, Any], alias: str) -> Model | None:
        """The row of a `select_list(alias)` as a transient instance (None: the outer join
        found none). JSON arrives decoded by the connection's codec."""
        if row[f"{alias}__id"] is None:
            return None
        # Made as the ORM makes a loaded row (no constructor, no attribute events), but
        # transient: reading its attributes reads these values, and no session knows it.
        instance = self._manager.new_instance()
        values = instance.__dict__
        for (key, column), decorator in zip(self.fields, self._decorators, strict=True):
            value = row[f"{alias}__{column.name}"]
            if decorator is not None:
                value = decorator.process_result_value(value, DIALECT)
            values[key] = value
        return instance

    # --- writing ------------------------------------------------------------------------

    def placeholders(self, first: int) -> str:
        """`($first::type, …)`: one row's parameters, numbered from `first`."""
        return (
            "("
            + ", ".join(f"${first + index}::{cast}" for index, cast in enumerate(self._casts))
            + ")"
        )

    def values(self, instance: Model) -> list[Any]:
        """The parameters for `placeholders` of a row made in memory (`plain`, or a
        transient instance), as the ORM would insert them: a column left None takes its
        Python-side default, JSON is sent as text."""
        state = instance.__dict__
        # Only an instance made in memory holds every value it has in its __dict__ (a
        # loaded one may have expired attributes): read there, past the attribute events.
        orm_state = state.get("_sa_instance_state")
        assert orm_state is None or orm_state.key is None, "a row made in memory"
        values = [state.get(key) for key in self._keys]
        for index, column, is_json, decorator in self._processed:
            value = values[index]
            if value is None and column.default is not None:
                value = _default(column)
            if decorator is not None:
                value = decorator.process_bind_param(value, DIALECT)
            if is_json and value is not None:
                value = orjson.dumps(value).decode()
            values[index] = value
        return values

    def insert_rows(self, first: int, rows: int, *, source: str | None = None) -> str:
        """`INSERT INTO table (…) SELECT v.* FROM [source,] (VALUES …) AS v`: `rows` rows
        of parameters from `first`, written only when `source` (a CTE) has a row."""
        width = len(self.fields)
        values = ", ".join(self.placeholders(first + row * width) for row in range(rows))
        origin = f"{source}, " if source else ""
        columns = ", ".join(f'"{name}"' for name in self.columns)
        return (
            f'INSERT INTO "{self.table}" ({columns}) SELECT v.* FROM {origin}(VALUES {values}) AS v'
        )

    def parameters(self, instances: Sequence[Model]) -> list[Any]:
        return [value for instance in instances for value in self.values(instance)]


def _plain_class(model: type[Any], attributes: list[str]) -> type:
    """A class with the model's column attributes, each None until set."""

    def __init__(self: Any, **values: Any) -> None:
        unknown = values.keys() - known
        assert not unknown, f"{model.__name__} has no {sorted(unknown)}"
        self.__dict__.update(values)

    known = frozenset(attributes)
    namespace: dict[str, Any] = dict.fromkeys(attributes)
    namespace["__init__"] = __init__
    namespace["__doc__"] = f"A {model.__name__} row as a plain object (kit/pgrows.py)."
    return type(f"Plain{model.__name__}", (), namespace)


def _default(column: Column[Any]) -> Any:
    default: Any = column.default
    if default.is_scalar:
        return default.arg
    if default.is_callable:
        return default.arg(None)
    raise AssertionError(f"{column} has a default no hand-written insert can take")
