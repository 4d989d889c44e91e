"""The assistant panel: the user's threads at the side, one thread's messages, a box to
write in (the same service as POST /v1/assistant/threads/{id}/messages), the run's text
arriving over its SSE stream (console.js reads GET /v1/assistant/runs/{id}/events, which
the console's session cookie authenticates), and each write the assistant proposes shown
as a card with its summary and preview, approved or refused through the confirmation
service."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import Response

from corridor.agents import service as agents
from corridor.agents.rules import AgentStatus
from corridor.assistant import confirmations
from corridor.assistant import service as assistant
from corridor.assistant.rules import RunStatus, ThreadStatus
from corridor.assistant.schemas import AssistantMessageCreate, AssistantMessageRead, ThreadCreate
from corridor.console.actors import actor_names
from corridor.console.forms import parse_form
from corridor.console.layout import notice, page
from corridor.console.routing import console_router, redirect
from corridor.console.session import Console, ConsolePage
from corridor.kit.errors import CorridorError, ValidationFailed
from corridor.kit.pagination import PageRequest

router = console_router()

# The side panel lists the newest threads; the thread shows its newest messages.
threads_shown_max = 30
agents_shown_max = 100
messages_shown_max = 50

SENT = notice("assistant-sent", "Sent: the assistant is answering.")
CONFIRMED = notice("assistant-confirmed", "Approved: the assistant carried it out.")
REFUSED = notice("assistant-refused", "Refused: nothing was changed.")
CANCELLED = notice("assistant-cancelled", "Cancelled: the waiting write will not run.")


@dataclass(frozen=True, slots=True)
class ThreadList:
    """The side panel: the threads shown, who started each, and which filter is on
    (`mine`: only the signed-in user's; otherwise every thread the user may see, the
    organization's shared ones from any credential included)."""

    views: list[assistant.ThreadView]
    starters: dict[str, str]
    mine_only: bool
    # The organization's agents by id → name: what a new thread may act as (ACTIVE ones)
    # and the name of the agent an open thread acts as.
    agents: dict[str, str]
    active_agents: list[str]


async def _threads(console: Console) -> ThreadList:
    mine_only = console.request.query_params.get("whose") == "mine"
    found = await assistant.list_threads(
        console.session,
        caller=console.caller,
        status=ThreadStatus.ACTIVE,
        page=PageRequest(limit=threads_shown_max, cursor=None),
    )
    views = found.items
    if mine_only:
        views = [view for view in views if view.thread.user_id == console.caller.actor_id]
    others = any(view.thread.user_id != console.caller.actor_id for view in views)
    names = await actor_names(console) if others else {}
    starters = {
        view.thread.id: (
            "you"
            if view.thread.user_id == console.caller.actor_id
            else names.get(view.thread.user_id, view.thread.user_id)
        )
        for view in views
    }
    found_agents = await agents.list_agents(
        console.session,
        caller=console.caller,
        customer_id=None,
        page=PageRequest(limit=agents_shown_max, cursor=None),
    )
    names_of_agents = {agent.id: agent.name for agent in found_agents.items}
    active = [agent.id for agent in found_agents.items if agent.status == AgentStatus.ACTIVE]
    return ThreadList(views, starters, mine_only, names_of_agents, active)


@router.get("/assistant")
async def assistant_home(console: ConsolePage) -> Response:
    return page(console, "assistant/panel.html", threads=await _threads(console), thread=None)


@router.post("/assistant/threads")
async def new_thread(console: ConsolePage) -> Response:
    data = parse_form(
        ThreadCreate,
        {"title": console.form.get("title"), "agentId": console.form.get("agentId")},
    )
    thread = await assistant.create_thread(
        console.session,
        caller=console.caller,
        data=data,
        settings=console.settings,
        now=console.now(),
    )
    await console.commit()
    return redirect(console.request, f"/console/assistant/{thread.id}")


async def _thread_page(
    console: Console,
    thread_id: str,
    *,
    draft: str = "",
    refusal: CorridorError | None = None,
) -> Response:
    """One thread's page. After a refused message the page comes back with the text kept
    in the box and the refusal above it (`draft`, `refusal`), with the refusal's status."""
    thread = await assistant.get_thread(console.session, caller=console.caller, thread_id=thread_id)
    found = await assistant.list_messages(
        console.session,
        caller=console.caller,
        thread_id=thread.id,
        page=PageRequest(limit=messages_shown_max, cursor=None),
    )
    messages = [AssistantMessageRead.of(message) for message in reversed(found.items)]
    # The thread's latest run: followed live while it works (not while it waits for a
    # confirmation: the card is on the page then, and the box waits with it).
    run = None
    latest_run_id = next((m.run_id for m in reversed(messages) if m.run_id), None)
    if latest_run_id is not None:
        run = await assistant.get_run(console.session, caller=console.caller, run_id=latest_run_id)
    live = run is not None and run.status in (RunStatus.QUEUED, RunStatus.RUNNING)
    awaiting = run is not None and run.status == RunStatus.AWAITING_CONFIRMATION
    return page(
        console,
        "assistant/panel.html",
        status=refusal.status if refusal is not None else 200,
        here=f"/console/assistant/{thread.id}",
        threads=await _threads(console),
        thread=thread,
        messages=messages,
        older=found.has_more,
        run=run,
        live=live,
        awaiting=awaiting,
        draft=draft,
        refusal=refusal,
        is_owner=thread.user_id == console.caller.actor_id,
    )


@router.get("/assistant/{thread_id}")
async def thread_page(thread_id: str, console: ConsolePage) -> Response:
    return await _thread_page(console, thread_id)


@router.post("/assistant/{thread_id}/messages")
async def send_message(thread_id: str, console: ConsolePage) -> Response:
    text = console.form.get("text") or ""
    try:
        body = parse_form(AssistantMessageCreate, {"text": text})
        await assistant.post_message(
            console.session,
            caller=console.caller,
            thread_id=thread_id,
            text=body.text,
            settings=console.settings,
            now=console.now(),
        )
    except CorridorError as refused:
        if refused.status not in (409, 422):  # not found, not allowed: the error page
            raise
        # The message is never lost: the thread comes back with the text in the box.
        await console.session.rollback()
        return await _thread_page(console, thread_id, draft=text, refusal=refused)
    await console.commit()
    return redirect(console.request, f"/console/assistant/{thread_id}?done={SENT}")


@router.post("/assistant/runs/{run_id}/cancel")
async def cancel_run(run_id: str, console: ConsolePage) -> Response:
    """The API's own cancel (POST /v1/assistant/runs/{id}/cancel): a write waiting for
    confirmation never runs, and the thread takes messages again."""
    run = await assistant.cancel_run(
        console.session, caller=console.caller, run_id=run_id, now=console.now()
    )
    await console.commit()
    return redirect(console.request, f"/console/assistant/{run.thread_id}?done={CANCELLED}")


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
