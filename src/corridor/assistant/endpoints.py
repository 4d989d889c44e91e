"""HTTP endpoints of the assistant (spec 4.2; API.md §5 "Assistant"). Every path answers
401 without valid credentials before anything else, including paths that do not exist."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from enum import Enum
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Query, Request, Response
from sse_starlette import EventSourceResponse

from corridor.assistant import confirmations, service
from corridor.assistant.rules import ThreadStatus
from corridor.assistant.schemas import (
    AssistantMessageAndRun,
    AssistantMessageCreate,
    AssistantMessageList,
    AssistantMessageRead,
    AssistantRunRead,
    AssistantThreadList,
    AssistantThreadRead,
    Confirmation,
    Ok,
    PinnedContextRead,
    ReadMarker,
    ThreadCreate,
    ThreadUpdate,
)
from corridor.kit.db import Database
from corridor.kit.errors import NotFound
from corridor.kit.pagination import PageRequest
from corridor.web.context import Context
from corridor.web.openapi import ERROR_RESPONSES
from corridor.web.pagination import page_request

router = APIRouter(prefix="/v1/assistant", responses=ERROR_RESPONSES)
TAGS: list[str | Enum] = ["Assistant"]
Pages = Annotated[PageRequest, Depends(page_request)]

event_poll_s = 0.2
event_stream_s_max = 600
events_per_poll_max = 200


def thread_read(view: service.ThreadView) -> AssistantThreadRead:
    thread = view.thread
    return AssistantThreadRead(
        id=thread.id,
        app=thread.app,
        env=thread.env,
        organization_id=thread.organization_id,
        user_id=thread.user_id,
        title=thread.title,
        status=thread.status,
        mcp_session_ids=thread.mcp_session_ids,
        visibility=thread.visibility,
        created_at=thread.created_at,
        updated_at=thread.updated_at,
        pinned_context=PinnedContextRead.model_validate(thread.pinned_context)
        if thread.pinned_context
        else None,
        agent_id=thread.agent_id,
        last_message_at=thread.last_message_at,
        retention_expires_at=thread.retention_expires_at,
        active_run_status=view.active_run_status,
        unread=view.unread,
    )


@router.post(
    "/threads",
    status_code=201,
    response_model=AssistantThreadRead,
    tags=TAGS,
    summary="Create a thread",
)
async def create_thread(body: ThreadCreate, context: Context) -> Response:
    """A conversation of the caller (a console user or an unrestricted key; never an agent
    key). `visibility` private (default) or organization; `pinnedContext` names a customer,
    transfer, agent or account of the organization."""
    thread = await service.create_thread(
        context.session,
        caller=context.caller,
        data=body,
        settings=context.settings,
        now=context.now(),
    )
    view = await service.view_of(context.session, thread)
    return await context.respond(thread_read(view), status=201)


@router.get("/threads", response_model=AssistantThreadList, tags=TAGS, summary="List threads")
async def list_threads(
    context: Context,
    page: Pages,
    status: Annotated[ThreadStatus | None, Query(description="active or archived")] = None,
) -> AssistantThreadList:
    """The caller's threads and the organization's shared ones, newest first."""
    found = await service.list_threads(
        context.session, caller=context.caller, status=status, page=page
    )
    return AssistantThreadList(
        data=[thread_read(view) for view in found.items],
        next_cursor=found.next_cursor,
        has_more=found.has_more,
    )


@router.get(
    "/threads/{thread_id}", response_model=AssistantThreadRead, tags=TAGS, summary="Get a thread"
)
async def get_thread(thread_id: str, context: Context) -> AssistantThreadRead:
    """A thread: title, visibility, pinned context, unread state and when it will be
    deleted (`retentionExpiresAt`, 90 days after its last message). Private threads are
    visible to their user only."""
    thread = await service.get_thread(context.session, caller=context.caller, thread_id=thread_id)
    return thread_read(await service.view_of(context.session, thread))


@router.patch(
    "/threads/{thread_id}", response_model=AssistantThreadRead, tags=TAGS, summary="Update a thread"
)
async def update_thread(thread_id: str, body: ThreadUpdate, context: Context) -> Response:
    """`title`, `visibility`, `pinnedContext` (null unpins). The thread's user only."""
    thread = await service.update_thread(
        context.session, caller=context.caller, thread_id=thread_id, data=body, now=context.now()
    )
    return await context.respond(thread_read(await service.view_of(context.session, thread)))


@router.post(
    "/threads/{thread_id}/archive",
    response_model=AssistantThreadRead,
    tags=TAGS,
    summary="Archive a thread",
)
async def archive_thread(thread_id: str, context: Context) -> Response:
    """Archive a thread: it keeps its messages and its status becomes `archived` (list
    threads with `status=archived` to see them). The thread's user only."""
    thread = await service.archive_thread(
        context.session, caller=context.caller, thread_id=thread_id, now=context.now()
    )
    return await context.respond(thread_read(await service.view_of(context.session, thread)))


@router.post(
    "/threads/{thread_id}/messages",
    status_code=201,
    response_model=AssistantMessageAndRun,
    tags=TAGS,
    summary="Send a message",
)
async def post_message(thread_id: str, body: AssistantMessageCreate, context: Context) -> Response:
    """Up to 8,000 characters. Starts a run (queued; a worker carries it out) and answers
    with both; 409 `run_in_progress` while the thread's previous run has not ended."""
    message, run = await service.post_message(
        context.session,
        caller=context.caller,
        thread_id=thread_id,
        text=body.text,
        settings=context.settings,
        now=context.now(),
    )
    answer = AssistantMessageAndRun(
        message=AssistantMessageRead.of(message), run=AssistantRunRead.of(run)
    )
    return await context.respond(answer, status=201)


@router.get(
    "/threads/{thread_id}/messages",
    response_model=AssistantMessageList,
    tags=TAGS,
    summary="List a thread's messages",
)
async def list_messages(thread_id: str, context: Context, page: Pages) -> AssistantMessageList:
    """Newest first, like every list (`cursor` pages back in time)."""
    found = await service.list_messages(
        context.session, caller=context.caller, thread_id=thread_id, page=page
    )
    return AssistantMessageList(
        data=[AssistantMessageRead.of(message) for message in found.items],
        next_cursor=found.next_cursor,
        has_more=found.has_more,
    )


@router.post(
    "/threads/{thread_id}/read", response_model=Ok, tags=TAGS, summary="Mark a thread read"
)
async def mark_read(thread_id: str, body: ReadMarker, context: Context) -> Response:
    """Messages up to `lastReadMessageId` are read; `unread` turns false until the next
    assistant message."""
    await service.mark_read(
        context.session,
        caller=context.caller,
        thread_id=thread_id,
        message_id=body.last_read_message_id,
        now=context.now(),
    )
    return await context.respond(Ok())


@router.get("/runs/{run_id}", response_model=AssistantRunRead, tags=TAGS, summary="Get a run")
async def get_run(run_id: str, context: Context) -> AssistantRunRead:
    """A run: its status (queued, running, awaiting_confirmation, completed, failed,
    cancelled), provider and model, token counts and `costUsd`, and its error if it failed.
    Follow it live with GET /v1/assistant/runs/{id}/events."""
    return AssistantRunRead.of(
        await service.get_run(context.session, caller=context.caller, run_id=run_id)
    )


@router.post(
    "/runs/{run_id}/cancel", response_model=AssistantRunRead, tags=TAGS, summary="Cancel a run"
)
async def cancel_run(run_id: str, context: Context) -> Response:
    """Queued or awaiting confirmation: cancelled now, and a write waiting for confirmation
    never runs. Running: stops at its next step. Ended: unchanged."""
    run = await service.cancel_run(
        context.session, caller=context.caller, run_id=run_id, now=context.now()
    )
    return await context.respond(AssistantRunRead.of(run))


@router.post(
    "/runs/{run_id}/tool-calls/{tool_call_id}/confirmation",
    response_model=Ok,
    tags=TAGS,
    summary="Confirm or refuse a write",
)
async def confirm_tool_call(
    run_id: str, tool_call_id: str, body: Confirmation, context: Context, request: Request
) -> Response:
    """`approved: true` runs exactly the previewed arguments as the run's user;
    `false` records the refusal. Either way the run then continues. Deciding twice, or on
    a run not awaiting confirmation: 409; another user than the run's: 403."""
    await confirmations.confirm(
        context.session,
        caller=context.caller,
        run_id=run_id,
        tool_call_id=tool_call_id,
        approved=body.approved,
        environment=request.app.state.tools,
        now=context.now(),
    )
    return await context.respond(Ok())


def _sse(sequence: int, event_type: str, data: dict[str, Any]) -> str:
    return f"id: {sequence}\nevent: {event_type}\ndata: {json.dumps(data)}\n\n"


_EXAMPLE_RUN = {
    "id": "run_01m87tscr02v0xan48kkbnf4s8",
    "threadId": "thr_01m87tscqebafhy248pp5ytaf5",
    "userId": "key_01m87tscm657g5gg5rj69c1rg1",
    "organizationId": "org_01m87tsccn3t0sgw4sf9v10pjk",
    "app": "console",
    "status": "running",
    "createdAt": "2026-11-18T12:00:00.000Z",
    "updatedAt": "2026-11-18T12:00:01.000Z",
    "model": "corridor-sandbox",
    "provider": "sandbox",
    "costUsd": "0",
    "cancelRequestedAt": None,
    "startedAt": "2026-11-18T12:00:01.000Z",
    "endedAt": None,
    "error": None,
    "tokensIn": 0,
    "tokensOut": 0,
}
# The stream's first events as /openapi.json shows them: the run starts, the answer's text
# arrives in pieces (tests/web/test_openapi_examples.py checks each event's data).
_EVENTS = (
    _sse(1, "run.status", _EXAMPLE_RUN)
    + _sse(2, "text.delta", {"messageId": "msg_01m87tsd0d6k1x2v3w4y5z6a7b", "text": "Your USD "})
    + _sse(3, "text.delta", {"messageId": "msg_01m87tsd0d6k1x2v3w4y5z6a7b", "text": "balance is"})
)


@router.get(
    "/runs/{run_id}/events",
    tags=TAGS,
    summary="Stream a run's events (SSE)",
    response_class=EventSourceResponse,
    responses={
        200: {"content": {"text/event-stream": {"schema": {"type": "string"}, "example": _EVENTS}}}
    },
)
async def run_events(
    run_id: str,
    context: Context,
    request: Request,
    last_event_id: Annotated[str | None, Header(alias="Last-Event-ID", max_length=20)] = None,
    after: Annotated[
        int | None,
        Query(alias="lastEventId", ge=0, description="As the Last-Event-ID header"),
    ] = None,
) -> EventSourceResponse:
    """Server-Sent Events: `run.status` (the run), `message.created` and `message.updated`
    (a message with its parts), `text.delta` (`messageId`, `text`: an answer's text as the
    model writes it), each with an `id`; reconnect with `Last-Event-ID` (or `lastEventId`)
    to resume after it. The stream ends once the run has ended and every event was sent."""
    run = await service.get_run(context.session, caller=context.caller, run_id=run_id)
    if after is None:
        after = int(last_event_id) if last_event_id and last_event_id.isdigit() else 0
    database: Database = request.app.state.database
    return EventSourceResponse(_stream(database, run.id, after, request), ping=15)


async def _stream(
    database: Database, run_id: str, after: int, request: Request
) -> AsyncIterator[dict[str, Any]]:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + event_stream_s_max
    while loop.time() < deadline and not await request.is_disconnected():
        async with database.session(write=False) as session:
            polled = await service.run_events_after(
                session, run_id=run_id, after=after, limit=events_per_poll_max
            )
        for event in polled.events:
            after = event.sequence
            yield {"id": str(event.sequence), "event": event.type, "data": json.dumps(event.data)}
        if not polled.events and polled.run_ended:
            return
        if not polled.events:
            await asyncio.sleep(event_poll_s)


_ANY_METHOD = ["GET", "POST", "PATCH", "PUT", "DELETE"]


@router.api_route("", methods=_ANY_METHOD, include_in_schema=False)
@router.api_route("/{path:path}", methods=_ANY_METHOD, include_in_schema=False)
async def unknown_assistant_path(context: Context, path: str = "") -> Response:
    """Authenticated first: without credentials every assistant path is 401, not 404."""
    raise NotFound("assistant path", f"/v1/assistant/{path}".rstrip("/"))
