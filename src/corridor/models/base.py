"""The declarative base of every table, its naming convention and the shared column types."""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar

from sqlalchemy import JSON, BigInteger, DateTime, Index, MetaData, String, Text, text
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator

from corridor.kit import secretbox
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


class EncryptedText(TypeDecorator[str]):
    """Text encrypted at rest under the server key (kit/secretbox.py): Python sees the
    plaintext, the database holds only a Fernet token."""

    impl = Text
    cache_ok = True

    def process_bind_param(self, value: str | None, dialect: Any) -> str | None:
        return None if value is None else secretbox.current().encrypt(value)

    def process_result_value(self, value: str | None, dialect: Any) -> str | None:
        return None if value is None else secretbox.current().decrypt(value)


JSONDocument = JSON().with_variant(JSONB(), "postgresql")


class EncryptedKeys(TypeDecorator[list[Any]]):
    """A JSON list of objects whose `key` member is encrypted at rest (the signing secrets
    a rotation replaced): `[{"key": "whsec_…", …}]` in Python, a Fernet token in the row."""

    impl = JSONDocument
    cache_ok = True

    def process_bind_param(self, value: list[Any] | None, dialect: Any) -> list[Any] | None:
        if value is None:
            return None
        box = secretbox.current()
        return [{**item, "key": box.encrypt(item["key"])} for item in value]

    def process_result_value(self, value: list[Any] | None, dialect: Any) -> list[Any] | None:
        if value is None:
            return None
        box = secretbox.current()
        return [{**item, "key": box.decrypt(item["key"])} for item in value]


MinorUnits = BigInteger


def partial_index(table: str, column: str, *, leading: tuple[str, ...] = ()) -> Index:
    """`ix_<table>_<column>` over the rows where the column is set (PostgreSQL and SQLite):
    for a column most rows leave NULL and queries only ever match a value in. With
    `leading` columns, `ix_<table>_<leading…>_<column>` on them and then the column."""
    present = text(f"{column} IS NOT NULL")
    columns = (*leading, column)
    return Index(
        f"ix_{table}_{'_'.join(columns)}",
        *columns,
        postgresql_where=present,
        sqlite_where=present,
    )


def unset_index(name: str, *columns: str, unset: str) -> Index:
    """`name` on `columns` over only the rows whose `unset` column is NULL (PostgreSQL and
    SQLite): to find the few rows still waiting for it (audit records not yet linked)."""
    absent = text(f"{unset} IS NULL")
    return Index(name, *columns, postgresql_where=absent, sqlite_where=absent)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    # A table of typed ids names its prefix ("tfr") and what a 404 calls it ("transfer").
    id_prefix: ClassVar[str] = ""
    resource_name: ClassVar[str] = "resource"
    type_annotation_map = {
        datetime: UTCDateTime(),
        dict[str, Any]: JSONDocument,
        list[Any]: JSONDocument,
    }


def id_column(**kwargs: Any) -> Mapped[str]:
    return mapped_column(String(40), primary_key=True, **kwargs)
