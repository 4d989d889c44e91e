"""A person's answer to a write the model asked for (issue 11 item 6).

`approved: true` runs exactly the stored arguments (bound by their hash) as the run's
user (or as the agent its thread acts as), inside the request's unit of work; `false`
records the refusal. Either way the model is told, and once nothing else waits the run
goes back to the worker.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.assistant import events, repository, service
from corridor.assistant.errors import AlreadyDecided, ArgumentsChanged
from corridor.assistant.rules import Role, RunStatus, ToolCallStatus, arguments_sha256
from corridor.auth.callers import Caller
from corridor.confirmations import repository as confirmation_rows
from corridor.confirmations import service as confirmations
from corridor.confirmations.rules import DecidedVia
from corridor.kit.errors import CorridorError, Forbidden, InvalidState, NotFound
from corridor.kit.ids import new_id
from corridor.models.assistant import AssistantMessage, AssistantRun, AssistantToolCall
from corridor.models.confirmation import ToolConfirmationRecord
from corridor.tools.base import ToolError
from corridor.tools.registry import ToolEnvironment, parse_arguments, run_in_session, tool_for

DECLINED = "The user declined this action; it was not carried out."


async def confirm(
    session: AsyncSession,
    *,
    caller: Caller,
    run_id: str,
    tool_call_id: str,
    approved: bool,
    environment: ToolEnvironment,
    now: datetime,
    via: DecidedVia = DecidedVia.ASSISTANT,
) -> AssistantRun:
    run = await service.get_run(session, caller=caller, run_id=run_id, for_update=True)
    if run.user_id != caller.actor_id:
        raise Forbidden("Only the run's user may confirm its actions")
    calls = await repository.tool_calls_of_run(session, run.id, locked=True)
    call = next((found for found in calls if found.id == tool_call_id), None)
    if call is None:
        raise NotFound("tool call", tool_call_id)
    if call.status != ToolCallStatus.PENDING_CONFIRMATION:
        raise AlreadyDecided(call)
    if run.status != RunStatus.AWAITING_CONFIRMATION:
        raise InvalidState(
            f"Run {run.id} is {run.status}, not awaiting confirmation", current_status=run.status
        )
    if arguments_sha256(call.tool, call.arguments) != call.arguments_sha256:
        raise ArgumentsChanged()
    record = await confirmation_rows.of_assistant_call(session, call.id)
    if record is not None:
        await confirmations.decide(
            record, approved=approved, decided_by=caller.actor_id, via=via, now=now
        )
    call.decided_by, call.decided_at = caller.actor_id, now
    if approved:
        await _execute(session, caller, run, call, environment, now)
        if record is not None:
            confirmations.mark_executed(record, call.outcome or {}, now)
    else:
        call.status = ToolCallStatus.REJECTED.value
        call.outcome = {"declined": DECLINED}
    await service.set_part_status(session, run, call.message_id, call.id, call.status, now)
    add_tool_results(session, run, [call], now)
    if all(found.status != ToolCallStatus.PENDING_CONFIRMATION for found in calls):
        run.status = RunStatus.QUEUED.value
        run.updated_at = now
        events.status_changed(session, run, now)
    return run


async def _execute(
    session: AsyncSession,
    user: Caller,
    run: AssistantRun,
    call: AssistantToolCall,
    environment: ToolEnvironment,
    now: datetime,
) -> None:
    """The call as the thread acts: as its user, or as the agent it acts as (an agent that
    can no longer pay fails the call, and the model is told why)."""
    try:
        thread = await service.get_thread_row(session, run.thread_id)
        try:
            caller = await service.acting_caller(session, thread, user)
        except CorridorError as error:
            raise ToolError.of(error) from None
        tool = tool_for(caller, environment.settings, call.tool)
        arguments = parse_arguments(tool, call.arguments)
        result = await run_in_session(
            session,
            caller,
            tool,
            arguments,
            settings=environment.settings,
            plugins=environment.plugins,
            now=now,
        )
    except ToolError as error:
        call.status = ToolCallStatus.FAILED.value
        call.outcome = {"error": error.body}
        return
    call.status = ToolCallStatus.COMPLETED.value
    call.outcome = {"result": result.model_dump(mode="json", by_alias=True)}


def outcome_text(outcome: dict[str, Any] | None) -> str:
    return json.dumps(outcome or {}, ensure_ascii=False)


def add_tool_results(
    session: AsyncSession, run: AssistantRun, calls: list[AssistantToolCall], now: datetime
) -> None:
    """The thread's TOOL message answering `calls` (one part each), and its event."""
    message = AssistantMessage(
        id=new_id("amsg"),
        organization_id=run.organization_id,
        thread_id=run.thread_id,
        run_id=run.id,
        role=Role.TOOL.value,
        parts=[
            {
                "type": "tool_result",
                "toolCallId": call.id,
                "tool": call.tool,
                "status": call.status,
                "text": outcome_text(call.outcome),
            }
            for call in calls
        ],
        created_at=now,
    )
    session.add(message)
    events.message_event(session, run, message, now)


async def decided_as_confirmation(
    session: AsyncSession,
    *,
    caller: Caller,
    record: ToolConfirmationRecord,
    approved: bool,
    environment: ToolEnvironment,
    now: datetime,
) -> None:
    """POST /v1/tool-confirmations/{id}/decision (or the console) on a confirmation card:
    the same as answering the card in its thread (only the run's user may)."""
    if record.assistant_tool_call_id is None:
        return
    call = await repository.tool_call(session, record.assistant_tool_call_id)
    if call is None:
        raise NotFound("tool confirmation", record.id)
    await confirm(
        session,
        caller=caller,
        run_id=call.run_id,
        tool_call_id=call.id,
        approved=approved,
        environment=environment,
        now=now,
        via=DecidedVia.API if not caller.is_console else DecidedVia.CONSOLE,
    )
