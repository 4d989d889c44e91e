"""Writes that must outlive a refusal: a refusal raises and rolls its transaction back, yet
some records of it are kept (the audit chain's denials). The code that refuses attaches a
writer to the error (`defer`); the unit of work that rolls back runs it afterwards in a
transaction of its own (`write_after`), or, when the refusal only undid a savepoint of a
transaction that goes on, in that transaction (`write_within`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.kit.db import Database
from corridor.kit.logging import get_logger

logger = get_logger(__name__)

Writer = Callable[[AsyncSession], Awaitable[None]]
_ATTRIBUTE = "_corridor_aftermath"


def defer(error: BaseException, write: Writer) -> None:
    writers: list[Writer] = getattr(error, _ATTRIBUTE, None) or []
    writers.append(write)
    setattr(error, _ATTRIBUTE, writers)


def _take(error: BaseException) -> list[Writer]:
    writers: list[Writer] = getattr(error, _ATTRIBUTE, None) or []
    if writers:
        setattr(error, _ATTRIBUTE, [])
    return writers


async def write_after(database: Database, error: BaseException) -> None:
    """After the error's transaction rolled back: each writer in its own transaction.
    Never raises (the refusal is the answer either way); a failure is logged."""
    for write in _take(error):
        try:
            async with database.session() as session, session.begin():
                await write(session)
        except Exception:
            logger.exception("aftermath_write_failed")


async def write_within(session: AsyncSession, error: BaseException) -> None:
    """After a savepoint rolled back, in the transaction that goes on (and commits)."""
    for write in _take(error):
        try:
            async with session.begin_nested():
                await write(session)
        except Exception:
            logger.exception("aftermath_write_failed")
