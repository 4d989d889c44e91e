"""Fixtures of the assistant tests: a shop to talk about, and the worker run by hand."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from corridor.assistant.execution import AssistantEnvironment, process_runs
from tests.agents.conftest import Owner, make_owner

passes_max = 50


@pytest.fixture
async def owner(app, tenant, clock) -> Owner:
    clock.set(datetime(2026, 11, 18, 12, 0, tzinfo=UTC))
    return await make_owner(app, tenant)


async def drive(app, environment: AssistantEnvironment | None = None) -> int:
    """Run the assistant worker until no run is due; how many passes claimed something."""
    environment = environment or app.state.assistant
    passes = 0
    for _ in range(passes_max):
        if await process_runs(environment) == 0:
            return passes
        passes += 1
    raise AssertionError("the assistant worker never ran out of due runs")


@dataclass
class Conversation:
    client: httpx.AsyncClient
    thread_id: str

    async def say(self, text: str, *, status: int = 201) -> dict[str, Any]:
        response = await self.client.post(
            f"/v1/assistant/threads/{self.thread_id}/messages", json={"text": text}
        )
        assert response.status_code == status, response.text
        return response.json()

    async def run(self, run_id: str) -> dict[str, Any]:
        response = await self.client.get(f"/v1/assistant/runs/{run_id}")
        assert response.status_code == 200, response.text
        return response.json()

    async def messages(self) -> list[dict[str, Any]]:
        """Oldest first."""
        response = await self.client.get(f"/v1/assistant/threads/{self.thread_id}/messages")
        assert response.status_code == 200, response.text
        return list(reversed(response.json()["data"]))

    async def pending_call(self) -> dict[str, Any]:
        for message in reversed(await self.messages()):
            for part in message["parts"]:
                if part.get("status") == "pending_confirmation":
                    return part
        raise AssertionError("no tool call awaits confirmation")

    async def confirm(self, run_id: str, tool_call_id: str, approved: bool) -> httpx.Response:
        return await self.client.post(
            f"/v1/assistant/runs/{run_id}/tool-calls/{tool_call_id}/confirmation",
            json={"approved": approved},
        )

    async def last_text(self) -> str:
        for message in reversed(await self.messages()):
            if message["role"] == "assistant":
                texts = [part["text"] for part in message["parts"] if part["type"] == "text"]
                if texts:
                    return "\n".join(texts)
        raise AssertionError("no assistant text")


async def start(client: httpx.AsyncClient, **body: Any) -> Conversation:
    response = await client.post("/v1/assistant/threads", json={"title": "Payments", **body})
    assert response.status_code == 201, response.text
    return Conversation(client, response.json()["id"])
