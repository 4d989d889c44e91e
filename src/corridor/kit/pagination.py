"""Cursor pagination, newest first: `limit` (1–250, default 50) and `cursor` (the last id seen)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, Self, TypeVar

from pydantic import Field
from sqlalchemy import Select
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.kit.errors import ValidationFailed
from corridor.kit.schemas import ResponseModel

page_size_default = 50
page_size_max = 250
cursor_pattern = r"^[a-z]+_[0-9a-z]{26}$"
_CURSOR_PATTERN = re.compile(cursor_pattern)

Item = TypeVar("Item")
Shown = TypeVar("Shown")


@dataclass(frozen=True, slots=True)
class PageRequest:
    limit: int
    cursor: str | None

    @classmethod
    def checked(cls, *, limit: int = page_size_default, cursor: str | None = None) -> PageRequest:
        """A page asked for from outside: the cursor must be one this API handed out."""
        if not 1 <= limit <= page_size_max:
            raise ValidationFailed("limit", f"must be 1 to {page_size_max}")
        if cursor is not None and not _CURSOR_PATTERN.match(cursor):
            raise ValidationFailed("cursor", "not a cursor returned by this list")
        return cls(limit=limit, cursor=cursor)


@dataclass(frozen=True, slots=True)
class Page(Generic[Item]):
    items: list[Item]
    next_cursor: str | None
    has_more: bool

    def map(self, convert: Callable[[Item], Shown]) -> Page[Shown]:
        """The same page with each item converted."""
        return Page(
            items=[convert(item) for item in self.items],
            next_cursor=self.next_cursor,
            has_more=self.has_more,
        )


async def fetch_page(
    session: AsyncSession, statement: Select[Any], id_column: Any, page: PageRequest
) -> Page[Any]:
    """Run `statement` (already filtered to what the caller may see) one page at a time."""
    if page.cursor is not None:
        statement = statement.where(id_column < page.cursor)
    statement = statement.order_by(id_column.desc()).limit(page.limit + 1)
    rows = list((await session.execute(statement)).scalars())
    has_more = len(rows) > page.limit
    rows = rows[: page.limit]
    return Page(
        items=rows, next_cursor=rows[-1].id if has_more and rows else None, has_more=has_more
    )


class ListResponse(ResponseModel, Generic[Item]):
    data: list[Item]
    next_cursor: str | None = Field(default=None, description="Pass as `cursor` for the next page")
    has_more: bool

    @classmethod
    def of(cls, page: Page[Any], read: Callable[[Any], Item] | None = None) -> Self:
        """The answer for one page, each item shown by `read` (as it is when None)."""
        items = page.items if read is None else [read(item) for item in page.items]
        return cls(data=items, next_cursor=page.next_cursor, has_more=page.has_more)
