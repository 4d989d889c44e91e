"""A thread's `mcpSessionIds`: the MCP session its runs call Corridor's tools in, opened
by its first run, kept while it is live, replaced once it lapsed, gone with the thread."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from corridor.assistant.retention import purge_expired_threads
from corridor.mcp import sessions
from corridor.models.mcp import McpSession
from tests.agents.conftest import Owner
from tests.assistant.conftest import drive, start


async def _thread(owner: Owner, thread_id: str) -> dict:
    response = await owner.client.get(f"/v1/assistant/threads/{thread_id}")
    assert response.status_code == 200, response.text
    return response.json()


async def _sessions_of(app, thread_id: str) -> list[McpSession]:
    async with app.state.database.session(write=False) as session:
        statement = select(McpSession).where(McpSession.thread_id == thread_id)
        return list((await session.execute(statement.order_by(McpSession.id))).scalars())


async def test_a_threads_runs_call_tools_in_its_mcp_session(app, owner: Owner, clock) -> None:
    chat = await start(owner.client)
    assert (await _thread(owner, chat.thread_id))["mcpSessionIds"] == {}
    sent = await chat.say(f"balance of {owner.usd_account}")
    await drive(app)
    first = (await _thread(owner, chat.thread_id))["mcpSessionIds"]
    assert set(first) == {"corridor"} and first["corridor"].startswith("mcps_")
    [row] = await _sessions_of(app, chat.thread_id)
    assert (row.id, row.organization_id) == (first["corridor"], owner.tenant.organization_id)
    assert row.actor_id == sent["run"]["userId"], "the session is the thread user's"

    await chat.say(f"balance of {owner.usd_account}")
    await drive(app)
    assert (await _thread(owner, chat.thread_id))["mcpSessionIds"] == first

    # Unused past its idle limit, the session lapses; the next run opens another.
    clock.set(clock.now() + timedelta(days=sessions.session_idle_days + 1))
    await chat.say(f"balance of {owner.usd_account}")
    await drive(app)
    renewed = (await _thread(owner, chat.thread_id))["mcpSessionIds"]
    assert renewed["corridor"] != first["corridor"]
    assert await sessions.purge_expired_sessions(app.state.database, clock) >= 1
    assert [row.id for row in await _sessions_of(app, chat.thread_id)] == [renewed["corridor"]]

    # The thread's session goes with the thread.
    clock.set(clock.now() + timedelta(days=app.state.settings.assistant_thread_retention_days + 1))
    assert await purge_expired_threads(app.state.database, clock) >= 1
    assert await _sessions_of(app, chat.thread_id) == []
