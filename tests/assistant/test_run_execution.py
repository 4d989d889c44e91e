"""How runs are carried out: events streamed over SSE and resumed with Last-Event-ID, a
run resumed after its worker died, and the ceilings on tool calls and tokens."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from datetime import timedelta
from unittest.mock import ANY

from pydantic_ai.messages import (
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import FunctionModel

from corridor.assistant.execution import AssistantEnvironment, _claim
from corridor.assistant.providers import ChosenModel
from tests.agents.conftest import Owner
from tests.assistant.conftest import drive, start


def _events(body: str) -> list[dict]:
    found = []
    for block in body.replace("\r\n", "\n").split("\n\n"):
        fields: dict = {}
        for line in block.splitlines():
            name, _, value = line.partition(":")
            if name in {"id", "event", "data"}:
                fields[name] = value.strip()
        if "id" in fields:
            fields["data"] = json.loads(fields["data"])
            found.append(fields)
    return found


async def test_run_events_stream_in_order_and_resume_after_last_event_id(app, owner: Owner) -> None:
    chat = await start(owner.client)
    sent = await chat.say(f"balance of {owner.usd_account}")
    run_id = sent["run"]["id"]
    await drive(app)
    response = await owner.client.get(f"/v1/assistant/runs/{run_id}/events")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    events = _events(response.text)
    sequences = [int(event["id"]) for event in events]
    assert sequences == list(range(1, len(events) + 1))
    statuses = [event["data"]["status"] for event in events if event["event"] == "run.status"]
    assert statuses == ["queued", "running", "completed"]
    kinds = {event["event"] for event in events}
    assert {"message.created", "text.delta"} <= kinds
    streamed = "".join(e["data"]["text"] for e in events if e["event"] == "text.delta")
    assert streamed == await chat.last_text()

    resumed = await owner.client.get(
        f"/v1/assistant/runs/{run_id}/events", headers={"Last-Event-ID": events[2]["id"]}
    )
    assert [event["id"] for event in _events(resumed.text)] == [e["id"] for e in events[3:]]


async def test_sandbox_text_streams_in_several_chunks_before_its_message(app, owner: Owner) -> None:
    chat = await start(owner.client)
    sent = await chat.say("What can you do?")
    run_id = sent["run"]["id"]
    await drive(app)
    events = _events((await owner.client.get(f"/v1/assistant/runs/{run_id}/events")).text)
    answer = [m for m in await chat.messages() if m["role"] == "assistant"][-1]
    kinds = [event["event"] for event in events]
    deltas = [
        index
        for index, event in enumerate(events)
        if event["event"] == "text.delta" and event["data"]["messageId"] == answer["id"]
    ]
    created = [
        index
        for index, event in enumerate(events)
        if event["event"] == "message.created" and event["data"]["id"] == answer["id"]
    ]
    assert len(deltas) > 10, kinds
    # Streamed as it is written: every piece arrives before the message is recorded.
    assert max(deltas) < created[0]
    pieces = [events[index]["data"]["text"] for index in deltas]
    assert all(len(piece.split()) <= 3 for piece in pieces)
    assert "".join(pieces) == await chat.last_text()


async def test_a_run_whose_worker_died_is_resumed_after_its_lease(app, owner: Owner, clock) -> None:
    chat = await start(owner.client)
    sent = await chat.say(f"balance of {owner.usd_account}")
    run_id = sent["run"]["id"]
    assert await _claim(app.state.assistant) == [run_id]  # then the worker "dies"
    assert (await chat.run(run_id))["status"] == "running"
    assert await drive(app) == 0, "a live lease is respected"
    clock.set(clock.now() + timedelta(seconds=app.state.settings.assistant_run_lease_s + 1))
    assert await drive(app) == 1
    run = await chat.run(run_id)
    assert run["status"] == "completed"
    assert "1000000.00 USD available" in await chat.last_text()


def _scripted(function) -> ChosenModel:
    return ChosenModel("scripted", "scripted", FunctionModel(function, model_name="scripted"))


async def test_tool_call_ceiling_fails_the_run_clearly(app, owner: Owner) -> None:
    def endless(messages, info):
        return ModelResponse(
            parts=[
                ToolCallPart(
                    "get_balance",
                    {"accountId": owner.usd_account},
                    tool_call_id=f"c{len(messages)}",
                )
            ]
        )

    environment = AssistantEnvironment(app.state.tools, model_of=lambda: _scripted(endless))
    chat = await start(owner.client)
    sent = await chat.say("loop")
    await drive(app, environment)
    run = await chat.run(sent["run"]["id"])
    assert run["status"] == "failed"
    assert run["error"].startswith("tool_call_limit_exceeded")
    assert run["endedAt"] is not None


async def test_token_ceiling_fails_the_run_clearly(app, owner: Owner) -> None:
    def chatty(messages, info):
        return ModelResponse(
            parts=[
                ToolCallPart(
                    "get_balance",
                    {"accountId": owner.usd_account},
                    tool_call_id=f"c{len(messages)}",
                )
            ]
        )

    settings = app.state.settings.model_copy(update={"assistant_run_tokens_max": 1000})
    tools = replace(app.state.tools, settings=settings)
    environment = AssistantEnvironment(tools, model_of=lambda: _scripted(chatty))
    chat = await start(owner.client)
    sent = await chat.say("padding " * 300)
    await drive(app, environment)
    run = await chat.run(sent["run"]["id"])
    assert run["status"] == "failed"
    assert run["error"].startswith("token_limit_exceeded")


async def test_a_provider_failure_fails_the_run_with_its_reason(app, owner: Owner) -> None:
    def broken(messages, info):
        raise RuntimeError("upstream said no")

    environment = AssistantEnvironment(app.state.tools, model_of=lambda: _scripted(broken))
    chat = await start(owner.client)
    sent = await chat.say("hello")
    await drive(app, environment)
    run = await chat.run(sent["run"]["id"])
    assert run["status"] == "failed"
    assert "upstream said no" in run["error"]


async def test_a_cancelled_runs_unanswered_write_is_replayed_as_not_run(app, owner: Owner) -> None:
    chat = await start(owner.client)
    paid = await chat.say(f"send 25 USD to Müller Maschinenbau GmbH from {owner.usd_account}")
    await drive(app)
    assert (await chat.run(paid["run"]["id"]))["status"] == "awaiting_confirmation"
    cancelled = await owner.client.post(f"/v1/assistant/runs/{paid['run']['id']}/cancel")
    assert cancelled.status_code == 200, cancelled.text
    seen: list = []

    def recorder(messages, info):
        seen.append(messages)
        return ModelResponse(parts=[TextPart("Nothing was sent.")])

    environment = AssistantEnvironment(app.state.tools, model_of=lambda: _scripted(recorder))
    asked = await chat.say("Did the payment go out?")
    await drive(app, environment)
    assert (await chat.run(asked["run"]["id"]))["status"] == "completed"
    history = seen[0]
    calls = [p for m in history if isinstance(m, ModelResponse) for p in m.parts]
    writes = [p for p in calls if isinstance(p, ToolCallPart) and p.tool_name == "create_transfer"]
    returns = {
        p.tool_call_id: p
        for m in history
        if isinstance(m, ModelRequest)
        for p in m.parts
        if isinstance(p, ToolReturnPart)
    }
    # Every earlier call is answered (the read tools with their results), and the write
    # the user never confirmed says it was not run; one system prompt, the question last.
    assert len(writes) == 1
    assert {p.tool_call_id for p in calls if isinstance(p, ToolCallPart)} == set(returns)
    assert returns[writes[0].tool_call_id].content["error"]["code"] == "not_run"
    systems = [p for m in history for p in m.parts if isinstance(p, SystemPromptPart)]
    assert len(systems) == 1
    assert history[-1].parts[-1] == UserPromptPart("Did the payment go out?", timestamp=ANY)


async def test_two_workers_claiming_at_once_never_take_the_same_run(app, owner: Owner) -> None:
    queued = []
    for _ in range(3):
        chat = await start(owner.client)
        queued.append((await chat.say(f"balance of {owner.usd_account}"))["run"]["id"])
    first, second = await asyncio.gather(_claim(app.state.assistant), _claim(app.state.assistant))
    assert not set(first) & set(second), "a run is claimed by one worker only"
    for run_id in set(queued) & (set(first) | set(second)):
        run = await owner.client.get(f"/v1/assistant/runs/{run_id}")
        assert run.json()["status"] == "running"
