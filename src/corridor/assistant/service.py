"""Threads, messages and runs (spec 2.10–2.12, 4.2): who may use the assistant, and the
use cases of its endpoints. Runs are carried out by the worker (execution.py)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.accounts import service as accounts
from corridor.agents import service as agents
from corridor.assistant import events, repository
from corridor.assistant.errors import RunInProgress
from corridor.assistant.rules import (
    ENDED_RUN_STATUSES,
    PINNED_ID_PREFIXES,
    App,
    PinnedType,
    Role,
    RunStatus,
    ThreadStatus,
    ToolCallStatus,
    default_title,
)
from corridor.assistant.schemas import PinnedContextIn, ThreadCreate, ThreadUpdate
from corridor.auth.callers import Caller, CallerKind
from corridor.config import Settings
from corridor.confirmations import repository as confirmation_rows
from corridor.confirmations import service as confirmations
from corridor.confirmations.rules import ConfirmationStatus, DecidedVia
from corridor.customers import service as customers
from corridor.kit import tracing
from corridor.kit.db import get_visible
from corridor.kit.errors import Forbidden, InvalidState, NotFound, ValidationFailed
from corridor.kit.ids import looks_like_id, new_id
from corridor.kit.pagination import Page, PageRequest, fetch_page
from corridor.models.assistant import (
    AssistantMessage,
    AssistantRun,
    AssistantRunEvent,
    AssistantThread,
)
from corridor.transfers import lifecycle


def require_assistant_user(caller: Caller) -> None:
    """Console sessions and unrestricted organization keys; never agent keys (issue 11)."""
    if caller.kind is CallerKind.AGENT_KEY:
        raise Forbidden("Agent keys cannot use the assistant")
    if not caller.is_unrestricted:
        raise Forbidden(
            "Only console sessions and unrestricted organization keys may use the assistant"
        )
    if caller.customer_id is not None:
        raise Forbidden("The assistant acts for the organization; send no X-Corridor-On-Behalf-Of")


def _require_owner(caller: Caller, thread: AssistantThread, action: str) -> None:
    if thread.user_id != caller.actor_id:
        raise Forbidden(f"Only the thread's user may {action}")


def provider_of(settings: Settings) -> str:
    return settings.assistant_provider


# --- Threads ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ThreadView:
    thread: AssistantThread
    active_run_status: str | None
    unread: bool


async def _views(session: AsyncSession, threads: list[AssistantThread]) -> list[ThreadView]:
    ids = [thread.id for thread in threads]
    statuses = await repository.latest_run_statuses(session, ids)
    latest = await repository.latest_assistant_messages(session, ids)
    return [
        ThreadView(
            thread,
            statuses.get(thread.id),
            thread.id in latest
            and (
                thread.last_read_message_id is None
                or latest[thread.id] > thread.last_read_message_id
            ),
        )
        for thread in threads
    ]


async def view_of(session: AsyncSession, thread: AssistantThread) -> ThreadView:
    return (await _views(session, [thread]))[0]


async def _checked_pin(
    session: AsyncSession, caller: Caller, pin: PinnedContextIn
) -> dict[str, str | None]:
    """The pinned resource must exist in the organization (404 like the API otherwise)."""
    prefix = PINNED_ID_PREFIXES[pin.type]
    if not looks_like_id(pin.id, prefix):
        raise ValidationFailed("pinnedContext.id", f"must be a {pin.type.value} id ({prefix}_…)")
    if pin.type is PinnedType.CUSTOMER:
        await customers.get_customer(session, caller=caller, customer_id=pin.id)
    elif pin.type is PinnedType.ACCOUNT:
        await accounts.get_account(session, caller=caller, account_id=pin.id)
    elif pin.type is PinnedType.TRANSFER:
        await lifecycle.get_transfer(session, caller=caller, transfer_id=pin.id)
    else:
        await agents.get_agent(session, caller=caller, agent_id=pin.id)
    return {"type": pin.type.value, "id": pin.id, "label": pin.label}


def _retention(settings: Settings, moment: datetime) -> datetime:
    return moment + timedelta(days=settings.assistant_thread_retention_days)


async def create_thread(
    session: AsyncSession, *, caller: Caller, data: ThreadCreate, settings: Settings, now: datetime
) -> AssistantThread:
    require_assistant_user(caller)
    pinned = (
        await _checked_pin(session, caller, data.pinned_context) if data.pinned_context else None
    )
    if data.agent_id is not None:
        if not looks_like_id(data.agent_id, "agt"):
            raise ValidationFailed("agentId", "must be an agent id (agt_…)")
        await agents.agent_caller(session, caller=caller, agent_id=data.agent_id)
    thread = AssistantThread(
        id=new_id("thr"),
        organization_id=caller.organization_id,
        user_id=caller.actor_id,
        app=App.CONSOLE.value,
        env=settings.env.value,
        title=data.title or default_title,
        status=ThreadStatus.ACTIVE.value,
        visibility=data.visibility.value,
        pinned_context=pinned,
        agent_id=data.agent_id,
        mcp_session_ids={},
        last_message_at=None,
        last_read_message_id=None,
        retention_expires_at=_retention(settings, now),
        created_at=now,
        updated_at=now,
    )
    session.add(thread)
    await session.flush()
    return thread


async def get_thread(
    session: AsyncSession, *, caller: Caller, thread_id: str, for_update: bool = False
) -> AssistantThread:
    require_assistant_user(caller)
    return await get_visible(
        session, repository.visible_threads(caller), thread_id, locked=for_update
    )


async def acting_caller(session: AsyncSession, thread: AssistantThread, user: Caller) -> Caller:
    """Who the thread's tool calls run as: its user, or the agent the thread acts as (the
    caller its newest live key authenticates as; 409 when it has none or cannot pay)."""
    if thread.agent_id is None:
        return user
    return await agents.agent_caller(session, caller=user, agent_id=thread.agent_id)


async def get_thread_row(session: AsyncSession, thread_id: str) -> AssistantThread:
    """A thread by id for the worker (the run already proved who may see it)."""
    thread = await repository.thread(session, thread_id)
    if thread is None:
        raise NotFound("assistant thread", thread_id)
    return thread


async def list_threads(
    session: AsyncSession, *, caller: Caller, status: ThreadStatus | None, page: PageRequest
) -> Page[ThreadView]:
    require_assistant_user(caller)
    statement = repository.listed_threads(caller, status)
    found = await fetch_page(session, statement, AssistantThread.id, page)
    views = await _views(session, found.items)
    return Page(items=views, next_cursor=found.next_cursor, has_more=found.has_more)


async def update_thread(
    session: AsyncSession, *, caller: Caller, thread_id: str, data: ThreadUpdate, now: datetime
) -> AssistantThread:
    thread = await get_thread(session, caller=caller, thread_id=thread_id, for_update=True)
    _require_owner(caller, thread, "change it")
    fields = data.model_fields_set
    if "title" in fields:
        if data.title is None:
            raise ValidationFailed("title", "must not be null")
        thread.title = data.title
    if "visibility" in fields:
        if data.visibility is None:
            raise ValidationFailed("visibility", "must not be null")
        thread.visibility = data.visibility.value
    if "pinned_context" in fields:
        thread.pinned_context = (
            await _checked_pin(session, caller, data.pinned_context)
            if data.pinned_context is not None
            else None
        )
    thread.updated_at = now
    return thread


async def archive_thread(
    session: AsyncSession, *, caller: Caller, thread_id: str, now: datetime
) -> AssistantThread:
    thread = await get_thread(session, caller=caller, thread_id=thread_id, for_update=True)
    _require_owner(caller, thread, "archive it")
    if thread.status != ThreadStatus.ARCHIVED:
        thread.status = ThreadStatus.ARCHIVED.value
        thread.updated_at = now
    return thread


async def mark_read(
    session: AsyncSession, *, caller: Caller, thread_id: str, message_id: str, now: datetime
) -> AssistantThread:
    thread = await get_thread(session, caller=caller, thread_id=thread_id, for_update=True)
    _require_owner(caller, thread, "mark it read")
    await get_visible(session, repository.messages_of(thread.id), message_id)
    if thread.last_read_message_id is None or message_id > thread.last_read_message_id:
        thread.last_read_message_id = message_id
    thread.updated_at = now
    return thread


# --- Messages and runs --------------------------------------------------------------------


async def post_message(
    session: AsyncSession,
    *,
    caller: Caller,
    thread_id: str,
    text: str,
    settings: Settings,
    now: datetime,
) -> tuple[AssistantMessage, AssistantRun]:
    """The user's message and the run that answers it, queued for a worker."""
    thread = await get_thread(session, caller=caller, thread_id=thread_id, for_update=True)
    _require_owner(caller, thread, "write in it")
    if thread.status == ThreadStatus.ARCHIVED:
        raise InvalidState("The thread is archived", current_status=thread.status)
    active = await repository.active_run_of(session, thread.id)
    if active is not None:
        raise RunInProgress(active)
    run = AssistantRun(
        id=new_id("run"),
        organization_id=caller.organization_id,
        thread_id=thread.id,
        user_id=caller.actor_id,
        app=thread.app,
        status=RunStatus.QUEUED.value,
        provider=provider_of(settings),
        model=None,
        history=[],
        tool_call_count=0,
        tokens_in=0,
        tokens_out=0,
        next_event_sequence=1,
        created_at=now,
        updated_at=now,
        # The worker carrying the run out continues this request's trace (kit/tracing.py).
        trace_context=tracing.current_traceparent(),
    )
    session.add(run)
    await session.flush()
    message = AssistantMessage(
        id=new_id("amsg"),
        organization_id=caller.organization_id,
        thread_id=thread.id,
        run_id=run.id,
        role=Role.USER.value,
        parts=[{"type": "text", "text": text}],
        created_at=now,
    )
    session.add(message)
    thread.last_message_at = now
    thread.last_read_message_id = message.id
    thread.retention_expires_at = _retention(settings, now)
    thread.updated_at = now
    await session.flush()
    events.status_changed(session, run, now)
    events.message_event(session, run, message, now)
    return message, run


async def list_messages(
    session: AsyncSession, *, caller: Caller, thread_id: str, page: PageRequest
) -> Page[AssistantMessage]:
    thread = await get_thread(session, caller=caller, thread_id=thread_id)
    return await fetch_page(session, repository.messages_of(thread.id), AssistantMessage.id, page)


async def get_run(
    session: AsyncSession, *, caller: Caller, run_id: str, for_update: bool = False
) -> AssistantRun:
    require_assistant_user(caller)
    return await get_visible(session, repository.visible_runs(caller), run_id, locked=for_update)


@dataclass(frozen=True, slots=True)
class RunEvents:
    """One poll of a run's event stream: the events after the last one sent, and whether
    the run has ended (or is gone), so an empty poll ends the stream."""

    events: list[AssistantRunEvent]
    run_ended: bool


async def run_events_after(
    session: AsyncSession, *, run_id: str, after: int, limit: int
) -> RunEvents:
    """The run's events after sequence `after`, at most `limit`. The stream polls this in a
    session of its own for a run `get_run` already showed its caller."""
    found = await repository.events_after(session, run_id, after, limit=limit)
    run = await repository.get_run_row(session, run_id)
    return RunEvents(found, run_ended=run is None or run.status in ENDED_RUN_STATUSES)


async def cancel_run(
    session: AsyncSession, *, caller: Caller, run_id: str, now: datetime
) -> AssistantRun:
    """A queued or awaiting run ends at once (a write waiting for confirmation never runs);
    a running one stops at its next step. An ended run stays as it is."""
    run = await get_run(session, caller=caller, run_id=run_id, for_update=True)
    if run.user_id != caller.actor_id:
        raise Forbidden("Only the run's user may cancel it")
    if run.status in ENDED_RUN_STATUSES:
        return run
    run.cancel_requested_at = run.cancel_requested_at or now
    run.updated_at = now
    if run.status == RunStatus.RUNNING:
        return run
    for call in await repository.tool_calls_of_run(session, run.id, locked=True):
        if call.status == ToolCallStatus.PENDING_CONFIRMATION:
            call.status = ToolCallStatus.CANCELLED.value
            call.decided_at = now
            call.decided_by = caller.actor_id
            record = await confirmation_rows.of_assistant_call(session, call.id)
            if record is not None and record.status == ConfirmationStatus.PENDING:
                await confirmations.decide(
                    record,
                    approved=False,
                    decided_by=caller.actor_id,
                    via=DecidedVia.ASSISTANT,
                    now=now,
                )
            await set_part_status(session, run, call.message_id, call.id, call.status, now)
    end_run(session, run, RunStatus.CANCELLED, now)
    return run


def end_run(
    session: AsyncSession,
    run: AssistantRun,
    status: RunStatus,
    now: datetime,
    *,
    error: str | None = None,
) -> None:
    run.status = status.value
    run.error = error
    run.ended_at = now
    run.updated_at = now
    run.lease_expires_at = None
    events.status_changed(session, run, now)


async def set_part_status(
    session: AsyncSession,
    run: AssistantRun,
    message_id: str,
    tool_call_id: str,
    status: str,
    now: datetime,
) -> None:
    message = await repository.message(session, message_id)
    if message is None:
        raise NotFound("assistant message", message_id)
    message.parts = [
        {**part, "status": status} if part.get("toolCallId") == tool_call_id else part
        for part in message.parts
    ]
    events.message_event(session, run, message, now, updated=True)
