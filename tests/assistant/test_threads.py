"""Threads, messages and the rules around them: 401 first on every assistant path, who
may use the assistant, visibility, pinned context, limits, read markers, retention."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from corridor.assistant.retention import purge_expired_threads
from tests.agents.conftest import Owner
from tests.assistant.conftest import drive, start
from tests.auth.credentials import bearer, console_token, key_secret
from tests.conftest import assert_error, client_for

PATHS = [
    ("POST", "/v1/assistant/threads"),
    ("GET", "/v1/assistant/threads"),
    ("GET", "/v1/assistant/threads/thr_01jd3x0p6x9e3k2v1m8q4r7s5t"),
    ("PATCH", "/v1/assistant/threads/thr_01jd3x0p6x9e3k2v1m8q4r7s5t"),
    ("POST", "/v1/assistant/threads/thr_01jd3x0p6x9e3k2v1m8q4r7s5t/archive"),
    ("POST", "/v1/assistant/threads/thr_01jd3x0p6x9e3k2v1m8q4r7s5t/messages"),
    ("GET", "/v1/assistant/threads/thr_01jd3x0p6x9e3k2v1m8q4r7s5t/messages"),
    ("POST", "/v1/assistant/threads/thr_01jd3x0p6x9e3k2v1m8q4r7s5t/read"),
    ("GET", "/v1/assistant/runs/run_01jd3x0p6x9e3k2v1m8q4r7s5t"),
    ("POST", "/v1/assistant/runs/run_01jd3x0p6x9e3k2v1m8q4r7s5t/cancel"),
    ("GET", "/v1/assistant/runs/run_01jd3x0p6x9e3k2v1m8q4r7s5t/events"),
    (
        "POST",
        "/v1/assistant/runs/run_01jd3x0p6x9e3k2v1m8q4r7s5t/tool-calls/tc_01jd3x0p6x9e3k2v1m8q4r7s5t"
        "/confirmation",
    ),
    ("GET", "/v1/assistant/no-such-thing"),
    ("GET", "/v1/assistant"),
    ("DELETE", "/v1/assistant/threads/thr_01jd3x0p6x9e3k2v1m8q4r7s5t/messages/x"),
]


@pytest.mark.parametrize(("method", "path"), PATHS)
async def test_every_assistant_path_is_401_without_credentials(anonymous, method, path) -> None:
    response = await anonymous.request(method, path, json={"text": "hi"})
    assert_error(response, 401, "unauthorized")
    bad = await anonymous.request(
        method, path, json={"text": "hi"}, headers=bearer("sk_sandbox_nope")
    )
    assert_error(bad, 401, "unauthorized")


async def test_unknown_assistant_paths_are_404_once_authenticated(tenant) -> None:
    assert_error(await tenant.client.get("/v1/assistant/no-such-thing"), 404, "not_found")


async def test_agent_keys_and_restricted_keys_cannot_use_the_assistant(app, owner: Owner) -> None:
    agent = await owner.create_agent()
    agent_client = await owner.agent_client(agent["id"])
    assert_error(await agent_client.post("/v1/assistant/threads", json={}), 403, "forbidden")
    await agent_client.aclose()
    restricted = await key_secret(owner.tenant, ["transfers:read", "transfers:write"])
    async with client_for(app, bearer(restricted)) as client:
        assert_error(await client.get("/v1/assistant/threads"), 403, "forbidden")


async def test_console_session_holds_a_conversation(app, owner: Owner) -> None:
    token = await console_token(owner.tenant)
    async with client_for(app, bearer(token)) as console:
        chat = await start(console)
        sent = await chat.say(f"balance of {owner.usd_account}")
        assert sent["run"]["userId"].startswith("usr_")
        await drive(app)
        assert (await chat.run(sent["run"]["id"]))["status"] == "completed"


async def test_thread_lifecycle_and_shape(app, owner: Owner) -> None:
    created = await owner.client.post(
        "/v1/assistant/threads",
        json={
            "title": "Supplier payouts",
            "pinnedContext": {"type": "customer", "id": owner.customer.id, "label": "Ada"},
        },
    )
    assert created.status_code == 201, created.text
    thread = created.json()
    assert thread["status"] == "active"
    assert thread["visibility"] == "private"
    assert thread["app"] == "console" and thread["env"] == "sandbox"
    assert thread["userId"].startswith("key_")
    assert thread["pinnedContext"] == {"type": "customer", "id": owner.customer.id, "label": "Ada"}
    assert thread["activeRunStatus"] is None and thread["unread"] is False
    assert thread["mcpSessionIds"] == {}
    created_at = datetime.fromisoformat(thread["createdAt"].replace("Z", "+00:00"))
    expires = datetime.fromisoformat(thread["retentionExpiresAt"].replace("Z", "+00:00"))
    assert expires - created_at == timedelta(days=90)

    thread_id = thread["id"]
    patched = await owner.client.patch(
        f"/v1/assistant/threads/{thread_id}",
        json={"title": "Renamed", "pinnedContext": {"type": "account", "id": owner.usd_account}},
    )
    assert patched.status_code == 200, patched.text
    assert patched.json()["title"] == "Renamed"
    assert patched.json()["pinnedContext"]["type"] == "account"
    missing = await owner.client.patch(
        f"/v1/assistant/threads/{thread_id}",
        json={"pinnedContext": {"type": "transfer", "id": "tfr_01jd3x0p6x9e3k2v1m8q4r7s5t"}},
    )
    assert_error(missing, 404, "not_found")
    wrong_type = await owner.client.patch(
        f"/v1/assistant/threads/{thread_id}",
        json={"pinnedContext": {"type": "planet", "id": owner.usd_account}},
    )
    assert_error(wrong_type, 422, "validation_error")

    archived = await owner.client.post(f"/v1/assistant/threads/{thread_id}/archive")
    assert archived.json()["status"] == "archived"
    active = await owner.client.get("/v1/assistant/threads", params={"status": "active"})
    assert thread_id not in [item["id"] for item in active.json()["data"]]
    listed = await owner.client.get("/v1/assistant/threads", params={"status": "archived"})
    assert [item["id"] for item in listed.json()["data"]] == [thread_id]
    refused = await owner.client.post(
        f"/v1/assistant/threads/{thread_id}/messages", json={"text": "hi"}
    )
    assert_error(refused, 409, "invalid_state")


async def test_message_limits_and_one_active_run_per_thread(app, owner: Owner) -> None:
    chat = await start(owner.client)
    too_long = await owner.client.post(
        f"/v1/assistant/threads/{chat.thread_id}/messages", json={"text": "x" * 8001}
    )
    assert_error(too_long, 422, "validation_error")
    first = await chat.say("x" * 8000)
    busy = await owner.client.post(
        f"/v1/assistant/threads/{chat.thread_id}/messages", json={"text": "again"}
    )
    body = assert_error(busy, 409, "run_in_progress")
    assert body["runId"] == first["run"]["id"]
    await drive(app)
    await chat.say("now it may")


async def test_threads_belong_to_their_user(app, owner: Owner) -> None:
    mine = await start(owner.client)
    shared = await start(owner.client, visibility="organization")
    other_key = await key_secret(owner.tenant, ["*"], name="colleague")
    async with client_for(app, bearer(other_key)) as colleague:
        assert_error(
            await colleague.get(f"/v1/assistant/threads/{mine.thread_id}"), 404, "not_found"
        )
        seen = await colleague.get(f"/v1/assistant/threads/{shared.thread_id}")
        assert seen.status_code == 200
        posted = await colleague.post(
            f"/v1/assistant/threads/{shared.thread_id}/messages", json={"text": "hi"}
        )
        assert_error(posted, 403, "forbidden")
        sent = await shared.say(_send_text(owner))
        await drive(app)
        call = await shared.pending_call()
        confirm = await colleague.post(
            f"/v1/assistant/runs/{sent['run']['id']}/tool-calls/{call['toolCallId']}/confirmation",
            json={"approved": True},
        )
        assert_error(confirm, 403, "forbidden")


async def test_unread_follows_assistant_messages_and_the_read_marker(app, owner: Owner) -> None:
    chat = await start(owner.client)
    await chat.say(f"balance of {owner.usd_account}")
    await drive(app)
    thread = (await owner.client.get(f"/v1/assistant/threads/{chat.thread_id}")).json()
    assert thread["unread"] is True and thread["activeRunStatus"] == "completed"
    last = (await chat.messages())[-1]
    marked = await owner.client.post(
        f"/v1/assistant/threads/{chat.thread_id}/read", json={"lastReadMessageId": last["id"]}
    )
    assert marked.json() == {"ok": True}
    thread = (await owner.client.get(f"/v1/assistant/threads/{chat.thread_id}")).json()
    assert thread["unread"] is False
    unknown = await owner.client.post(
        f"/v1/assistant/threads/{chat.thread_id}/read",
        json={"lastReadMessageId": "amsg_01jd3x0p6x9e3k2v1m8q4r7s5t"},
    )
    assert_error(unknown, 404, "not_found")


async def test_retention_worker_deletes_threads_past_their_retention(
    app, owner: Owner, clock
) -> None:
    chat = await start(owner.client)
    await chat.say(f"balance of {owner.usd_account}")
    await drive(app)
    clock.set(datetime(2026, 11, 18, 12, 0, tzinfo=UTC) + timedelta(days=89))
    await purge_expired_threads(app.state.database, clock)
    assert (await owner.client.get(f"/v1/assistant/threads/{chat.thread_id}")).status_code == 200
    clock.set(datetime(2026, 11, 18, 12, 0, tzinfo=UTC) + timedelta(days=91))
    assert await purge_expired_threads(app.state.database, clock) >= 1
    gone = await owner.client.get(f"/v1/assistant/threads/{chat.thread_id}")
    assert_error(gone, 404, "not_found")


def _send_text(owner: Owner) -> str:
    return f"send 5 USD to Müller Maschinenbau GmbH from {owner.usd_account}"
