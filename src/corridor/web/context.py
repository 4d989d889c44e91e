"""The request context: caller, clock, settings and the request's one unit of work.

Endpoints get a RequestContext, call one service function with `context.session`, and
answer through `context.respond(...)`, which stores an Idempotency-Key answer inside the
same transaction and commits once. A request that fails rolls everything back.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Annotated

from fastapi import Depends, Request, Response
from fastapi.security import HTTPAuthorizationCredentials
from pydantic import BaseModel
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth.callers import Caller
from corridor.config import Settings
from corridor.kit import aftermath
from corridor.kit.clock import Clock
from corridor.kit.db import Database
from corridor.kit.errors import CorridorError, ValidationFailed, render_error
from corridor.kit.schemas import ShownOnce
from corridor.models import clock as sandbox_clocks
from corridor.web import idempotency
from corridor.web.authentication import (
    api_key_scheme,
    bearer_scheme,
    caller_in,
    current_caller,
)

IDEMPOTENCY_HEADER = "Idempotency-Key"
_READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


class IdempotentReplay(Exception):
    """Raised before the endpoint runs when the key's first answer is to be replayed."""

    def __init__(self, stored: idempotency.StoredResponse) -> None:
        self.stored = stored


def replay_response(replay: IdempotentReplay) -> Response:
    return Response(
        replay.stored.body,
        status_code=replay.stored.status,
        media_type="application/json",
        headers={"Idempotent-Replayed": "true"},
    )


@dataclass
class PublicContext:
    session: AsyncSession
    clock: Clock
    settings: Settings
    database: Database
    request: Request

    def now(self) -> datetime:
        return self.clock.now()

    async def respond(self, model: BaseModel, *, status: int = 200) -> Response:
        body = model.model_dump_json(by_alias=True)
        await self.session.commit()
        return Response(body, status_code=status, media_type="application/json")

    async def refuse(self, error: CorridorError) -> Response:
        """Answer with an error and keep the request's work all the same (a rejected upload
        keeps its document marked rejected): the work commits, then the error is sent."""
        await self.session.commit()
        return Response(
            render_error(error),
            status_code=error.status,
            headers=error.headers,
            media_type="application/json",
        )


@dataclass
class RequestContext(PublicContext):
    caller: Caller = field(kw_only=True)
    claim: idempotency.Claim | None = field(default=None, kw_only=True)
    responded: bool = field(default=False, kw_only=True)

    async def respond(self, model: BaseModel, *, status: int = 200) -> Response:
        body = model.model_dump_json(by_alias=True)
        if self.claim is not None:
            # A secret is shown once and never stored: the kept answer goes without it.
            kept = (
                model.redacted().model_dump_json(by_alias=True)
                if isinstance(model, ShownOnce)
                else body
            )
            await idempotency.complete(self.session, self.claim, status=status, body=kept)
        await self.session.commit()
        self.responded = True
        return Response(body, status_code=status, media_type="application/json")

    async def respond_json(self, body: bytes, *, status: int = 200) -> Response:
        """`respond` with an answer already serialised (a transfer's JSON form, built once
        for its event and its answer): stored under the Idempotency-Key as it is sent."""
        if self.claim is not None:
            await idempotency.complete(self.session, self.claim, status=status, body=body.decode())
        await self.session.commit()
        self.responded = True
        return Response(body, status_code=status, media_type="application/json")

    async def refuse(self, error: CorridorError) -> Response:
        """Answer with an error and keep the request's work all the same (a submit held for
        an owner's approval keeps its parked draft): the work and the stored
        Idempotency-Key answer commit together, then the error is sent."""
        body = render_error(error)
        if self.claim is not None:
            await idempotency.complete(
                self.session, self.claim, status=error.status, body=body.decode()
            )
        await self.session.commit()
        self.responded = True
        return Response(
            body, status_code=error.status, headers=error.headers, media_type="application/json"
        )


async def _clock_of(request: Request, session: AsyncSession, caller: Caller) -> Clock:
    """The caller's organization's clock: its sandbox clock when it was advanced (API.md
    9), else the system's. Production never reads one."""
    state = request.app.state
    if not state.settings.is_sandbox:
        return state.clock
    return await sandbox_clocks.clock_of(session, caller.organization_id, state.clock)


async def _claim_idempotency_key(
    request: Request, caller: Caller, session: AsyncSession | None = None
) -> idempotency.Claim | None:
    """The request's claim of its Idempotency-Key (None: no key, or not a POST); in
    `session`'s transaction, committed here before the work, else in one of its own."""
    key = request.headers.get(IDEMPOTENCY_HEADER)
    if key is None or request.method != "POST":
        return None
    if not 1 <= len(key) <= idempotency.idempotency_key_chars_max:
        raise ValidationFailed(IDEMPOTENCY_HEADER, "must be 1 to 255 characters")
    state = request.app.state
    use = idempotency.KeyUse(
        organization_id=caller.organization_id,
        key=key,
        request_fingerprint=idempotency.fingerprint(
            request.method,
            request.url.path,
            await request.body(),
            # The credential (or console user) and the customer it is bound to, if any.
            caller=f"{caller.actor_id} {caller.customer_id or ''}",
        ),
        now=state.clock.now(),
        lifetime_s=state.settings.idempotency_key_lifetime_s,
    )
    if session is None:
        result = await idempotency.claim(state.database, use)
    else:
        result = await idempotency.claim_in(session, use)
        await session.commit()
    if isinstance(result, idempotency.StoredResponse):
        raise IdempotentReplay(result)
    return result


async def _request_context(
    request: Request,
    bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer_scheme)],
    api_key: Annotated[str | None, Depends(api_key_scheme)],
) -> AsyncIterator[RequestContext]:
    state = request.app.state
    # On PostgreSQL the caller is read in the request's own unit of work, whose rows (the
    # organization, the agent, what they lack) the work then reads for free; an
    # Idempotency-Key is claimed there too, in a first transaction committed before the
    # work's. Not on SQLite, whose write transactions take the database's lock at their
    # first read: there the caller is read, and the key claimed, in transactions of their own.
    inside = not state.database.is_sqlite
    caller: Caller | None = getattr(request.state, "caller", None)  # a route dependency's
    if caller is None and not inside:
        caller = await current_caller(request, bearer, api_key)
    claim = None if caller is None else await _claim_idempotency_key(request, caller)
    async with state.database.session(write=request.method not in _READ_METHODS) as session:
        if caller is None:
            caller = await caller_in(session, request, bearer, api_key)
            claim = await _claim_idempotency_key(request, caller, session)
        context = RequestContext(
            session=session,
            clock=await _clock_of(request, session, caller),
            settings=state.settings,
            database=state.database,
            request=request,
            caller=caller,
            claim=claim,
        )
        try:
            yield context
        except CorridorError as error:
            await session.rollback()
            await aftermath.write_after(state.database, error)
            if claim is not None:
                await _settle_claim_after_error(state.database, claim, error)
            raise
        except BaseException:
            await session.rollback()
            if claim is not None:
                await idempotency.release(state.database, claim)
            raise
        if session.in_transaction():
            await session.commit()
        if claim is not None and not context.responded:
            # The endpoint answered without `respond`: nothing to replay, so free the key.
            await idempotency.release(state.database, claim)


async def _settle_claim_after_error(
    database: Database, claim: idempotency.Claim, error: CorridorError
) -> None:
    if error.status >= 500:
        await idempotency.release(database, claim)
    else:
        await idempotency.complete_separately(
            database, claim, status=error.status, body=render_error(error).decode()
        )


async def _reading_context(
    request: Request,
    bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer_scheme)],
    api_key: Annotated[str | None, Depends(api_key_scheme)],
) -> AsyncIterator[RequestContext]:
    """The unit of work of a request that reads and decides nothing (a list, history, a
    statement): on the read replica while it is fresh (kit/replica.py). The caller is
    authenticated on the primary all the same (a key revoked a moment ago is refused).
    Without a replica, exactly `Context`'s unit of work."""
    state = request.app.state
    database: Database = state.database
    if database.replica is None:
        async with asynccontextmanager(_request_context)(request, bearer, api_key) as context:
            yield context
        return
    caller: Caller | None = getattr(request.state, "caller", None)
    if caller is None:
        caller = await current_caller(request, bearer, api_key)
    async with database.reading_session() as session:
        context = RequestContext(
            session=session,
            clock=await _clock_of(request, session, caller),
            settings=state.settings,
            database=database,
            request=request,
            caller=caller,
        )
        try:
            yield context
        except BaseException:
            await session.rollback()
            raise
        if session.in_transaction():
            await session.commit()


async def _public_context(request: Request) -> AsyncIterator[PublicContext]:
    state = request.app.state
    async with state.database.session(write=request.method not in _READ_METHODS) as session:
        try:
            yield PublicContext(
                session=session,
                clock=state.clock,
                settings=state.settings,
                database=state.database,
                request=request,
            )
        except BaseException:
            await session.rollback()
            raise
        if session.in_transaction():
            await session.commit()


# scope="function": the unit of work ends (commits) before the response is sent.
Context = Annotated[RequestContext, Depends(_request_context, scope="function")]
Public = Annotated[PublicContext, Depends(_public_context, scope="function")]
# Lists, history, statements, exports: may read from the replica (kit/db.py
# `reading_session`). Anything that decides money (a balance behind a hold, a limit, an
# idempotency key) takes `Context`, always the primary.
Reading = Annotated[RequestContext, Depends(_reading_context, scope="function")]
