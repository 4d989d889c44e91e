"""MCP sessions in the database (spec 5.7's binding lives in them).

A session is opened by an `initialize` over HTTP (its id is the `Mcp-Session-Id` the
client sends back), by `corridor mcp` at start, or by an assistant thread for its runs.
Any API process continues it, and it outlives a restart: nothing of it is kept in a
process. Only the credential that opened it may continue it. A platform session that
creates a business customer in it is bound to that customer for the rest of it.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth.callers import Caller, CallerKind
from corridor.kit.clock import Clock
from corridor.kit.db import Database
from corridor.kit.ids import looks_like_id, new_id
from corridor.mcp import repository
from corridor.mcp.errors import McpSessionNotFound
from corridor.models.mcp import McpSession

# The name of Corridor's tool server in a thread's mcpSessionIds.
SERVER_NAME = "corridor"
session_idle_days = 30
# A session's expiry is pushed back at most this often (not a write per message).
session_renew_interval_s = 3600
sessions_per_credential_max = 1000
sessions_deleted_per_pass_max = 1000


def _expiry(now: datetime) -> datetime:
    return now + timedelta(days=session_idle_days)


async def open_session(
    session: AsyncSession, *, caller: Caller, now: datetime, thread_id: str | None = None
) -> McpSession:
    """A new, unbound session of the caller's credential (X-Corridor-On-Behalf-Of binds
    per request, not the session); its least recently used sessions beyond the limit end."""
    row = McpSession(
        id=new_id("mcps"),
        organization_id=caller.organization_id,
        actor_id=caller.actor_id,
        customer_id=None,
        thread_id=thread_id,
        created_at=now,
        last_used_at=now,
        expires_at=_expiry(now),
    )
    session.add(row)
    await session.flush()
    if thread_id is None:
        await repository.trim_sessions_of(
            session, actor_id=caller.actor_id, keep=sessions_per_credential_max
        )
    return row


async def find_session(
    session: AsyncSession, *, caller: Caller, session_id: str, now: datetime
) -> McpSession:
    """The caller's live session, or McpSessionNotFound."""
    if not looks_like_id(session_id, "mcps"):
        raise McpSessionNotFound()
    row = await repository.live_session(session, session_id, caller=caller, now=now)
    if row is None:
        raise McpSessionNotFound()
    return row


def caller_in(caller: Caller, row: McpSession) -> Caller:
    """The caller as the session knows it: a platform session bound in it acts for its
    customer (an explicit X-Corridor-On-Behalf-Of wins)."""
    if caller.kind is not CallerKind.PLATFORM_SESSION or caller.customer_id is not None:
        return caller
    return caller if row.customer_id is None else caller.bound_to(row.customer_id)


def needs_renewal(row: McpSession, now: datetime) -> bool:
    return now - row.last_used_at >= timedelta(seconds=session_renew_interval_s)


async def renew(database: Database, *, session_id: str, now: datetime) -> None:
    async with database.session() as session, session.begin():
        await repository.renew(session, session_id=session_id, now=now, expires_at=_expiry(now))


async def bind_customer(
    database: Database, *, caller: Caller, session_id: str, customer_id: str
) -> None:
    """Spec 5.7: a platform session creating a business customer binds automatically."""
    if caller.kind is not CallerKind.PLATFORM_SESSION or caller.customer_id is not None:
        return
    async with database.session() as session, session.begin():
        await repository.set_customer(session, session_id=session_id, customer_id=customer_id)


async def end_session(
    session: AsyncSession, *, caller: Caller, session_id: str, now: datetime
) -> None:
    """DELETE /mcp: the client ends its session (a thread's session is the thread's)."""
    row = await find_session(session, caller=caller, session_id=session_id, now=now)
    if row.thread_id is not None:
        raise McpSessionNotFound()
    await repository.delete_session(session, session_id=row.id)


async def thread_session(
    session: AsyncSession, *, caller: Caller, thread_id: str, known: str | None, now: datetime
) -> McpSession:
    """An assistant thread's session with the tool server: the one it has while it is
    live, else a new one (the thread then records the new id)."""
    if known is not None:
        row = await repository.live_session(session, known, caller=caller, now=now)
        if row is not None:
            if needs_renewal(row, now):
                row.last_used_at, row.expires_at = now, _expiry(now)
            return row
    return await open_session(session, caller=caller, now=now, thread_id=thread_id)


async def purge_expired_sessions(database: Database, clock: Clock) -> int:
    """The retention worker's pass: sessions unused for `session_idle_days`."""
    async with database.session() as session, session.begin():
        return await repository.delete_expired(
            session, now=clock.now(), limit=sessions_deleted_per_pass_max
        )
