"""The assistant panel: the user's threads at the side, one thread's messages, a box to
write in (the same service as POST /v1/assistant/threads/{id}/messages), the run's text
arriving over its SSE stream (console.js reads GET /v1/assistant/runs/{id}/events, which
the console's session cookie authenticates), and each write the assistant proposes shown
as a card with its summary and preview, approved or refused through the confirmation
service."""

from __future__ import annotations

from fastapi import Response

from corridor.assistant import confirmations
from corridor.assistant import service as assistant
from corridor.assistant.rules import RunStatus, ThreadStatus
from corridor.assistant.schemas import AssistantMessageCreate, AssistantMessageRead, ThreadCreate
from corridor.console.forms import parse_form
from corridor.console.layout import notice, page
from corridor.console.routing import console_router, redirect
from corridor.console.session import Console, ConsolePage
from corridor.kit.errors import ValidationFailed
from corridor.kit.pagination import PageRequest

router = console_router()

# The side panel lists the newest threads; the thread shows its newest messages.
threads_shown_max = 30
messages_shown_max = 50

SENT = notice("assistant-sent", "Sent: the assistant is answering.")
CONFIRMED = notice("assistant-confirmed", "Approved: the assistant carried it out.")
REFUSED = notice("assistant-refused", "Refused: nothing was changed.")


async def _threads(console: Console) -> list[assistant.ThreadView]:
    found = await assistant.list_threads(
        console.session,
        caller=console.caller,
        status=ThreadStatus.ACTIVE,
        page=PageRequest(limit=threads_shown_max, cursor=None),
    )
    return found.items


@router.get("/assistant")
async def assistant_home(console: ConsolePage) -> Response:
    return page(console, "assistant/panel.html", threads=await _threads(console), thread=None)


@router.post("/assistant/threads")
async def new_thread(console: ConsolePage) -> Response:
    data = parse_form(ThreadCreate, {"title": console.form.get("title")})
    thread = await assistant.create_thread(
        console.session,
        caller=console.caller,
        data=data,
        settings=console.settings,
        now=console.now(),
    )
    await console.commit()
    return redirect(console.request, f"/console/assistant/{thread.id}")


@router.get("/assistant/{thread_id}")
async def thread_page(thread_id: str, console: ConsolePage) -> Response:
    thread = await assistant.get_thread(console.session, caller=console.caller, thread_id=thread_id)
    found = await assistant.list_messages(
        console.session,
        caller=console.caller,
        thread_id=thread.id,
        page=PageRequest(limit=messages_shown_max, cursor=None),
    )
    messages = [AssistantMessageRead.of(message) for message in reversed(found.items)]
    # The thread's latest run: followed live while it works (not while it waits for a
    # confirmation: the card is on the page then).
    run = None
    latest_run_id = next((m.run_id for m in reversed(messages) if m.run_id), None)
    if latest_run_id is not None:
        run = await assistant.get_run(console.session, caller=console.caller, run_id=latest_run_id)
    live = run is not None and run.status in (RunStatus.QUEUED, RunStatus.RUNNING)
    return page(
        console,
        "assistant/panel.html",
        threads=await _threads(console),
        thread=thread,
        messages=messages,
        older=found.has_more,
        run=run,
        live=live,
        is_owner=thread.user_id == console.caller.actor_id,
    )


@router.post("/assistant/{thread_id}/messages")
async def send_message(thread_id: str, console: ConsolePage) -> Response:
    body = parse_form(AssistantMessageCreate, {"text": console.form.get("text")})
    await assistant.post_message(
        console.session,
        caller=console.caller,
        thread_id=thread_id,
        text=body.text,
        settings=console.settings,
        now=console.now(),
    )
    await console.commit()
    return redirect(console.request, f"/console/assistant/{thread_id}?done={SENT}")


@router.post("/assistant/runs/{run_id}/tool-calls/{tool_call_id}/confirmation")
async def confirm_tool_call(run_id: str, tool_call_id: str, console: ConsolePage) -> Response:
    decision = console.form.get("decision")
    if decision not in ("approve", "refuse"):
        raise ValidationFailed("decision", "must be approve or refuse")
    run = await confirmations.confirm(
        console.session,
        caller=console.caller,
        run_id=run_id,
        tool_call_id=tool_call_id,
        approved=decision == "approve",
        environment=console.request.app.state.tools,
        now=console.now(),
    )
    await console.commit()
    done = CONFIRMED if decision == "approve" else REFUSED
    return redirect(console.request, f"/console/assistant/{run.thread_id}?done={done}")
