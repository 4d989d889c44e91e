"""One page of a list, in either of the server's two shapes."""

from __future__ import annotations

from typing import ClassVar, Generic, TypeVar

from pydantic import Field

from corridor_client._base import CorridorModel

Item = TypeVar("Item")


class Page(CorridorModel, Generic[Item]):
    """`{"data", "nextCursor", "hasMore"}`: every list but webhook messages."""

    data: list[Item]
    next_cursor: str | None = Field(default=None, alias="nextCursor")
    has_more: bool = Field(default=False, alias="hasMore")

    # The query parameter that carries `following()` to the next request.
    cursor_parameter: ClassVar[str] = "cursor"

    def following(self) -> str | None:
        """The cursor of the next page, or None on the last one."""
        return self.next_cursor


class MessagePage(Page[Item], Generic[Item]):
    """`{"available", "data", "iterator", "done"}`: webhook messages (Svix's shape)."""

    available: bool = True
    iterator: str | None = None
    done: bool = True
    cursor_parameter: ClassVar[str] = "iterator"

    def following(self) -> str | None:
        return None if self.done else self.iterator
