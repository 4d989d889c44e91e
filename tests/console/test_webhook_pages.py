"""The console's webhook pages over HTTP: endpoints (create, disable and enable, delete,
the signing secret shown and rotated), the message history with the API's filters, each
message's deliveries and attempts, resend and replay, against real receivers on
127.0.0.1. This module has a database of its own (as tests/webhooks has), so the worker
the tests drive sees only its messages."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from datetime import timedelta

import pytest
from fastapi import FastAPI

from corridor.config import Environment
from tests.conftest import BACKENDS, built_app, migrated_database
from tests.console.helpers import console_browser, post_form
from tests.webhooks.support import (
    Answer,
    Receiver,
    attempts,
    create_endpoint,
    deliver,
    emit_events,
    endpoint,
    message,
    secret_of,
    worker_settings,
)


@pytest.fixture(scope="module", params=BACKENDS)
async def database_url(request, tmp_path_factory) -> AsyncIterator[str]:
    async with migrated_database(request.param, tmp_path_factory.mktemp("console-hooks")) as url:
        yield url


@pytest.fixture(scope="module")
async def app(database_url: str) -> AsyncIterator[FastAPI]:
    async with built_app(database_url, Environment.SANDBOX) as application:
        yield application


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    made = Receiver()
    yield made
    made.close()


def _message_ids(html: str) -> list[str]:
    return re.findall(r'href="/console/webhooks/messages/(msg_[0-9a-z]+)"', html)


def _minute(moment) -> str:
    """A time as a datetime-local field sends it."""
    return moment.strftime("%Y-%m-%dT%H:%M")


async def test_create_an_endpoint_from_the_form(app, tenant):
    async with console_browser(app, tenant) as browser:
        created = await post_form(
            browser,
            "/console/webhooks",
            "/console/webhooks",
            {
                "url": "https://example.com/hooks/corridor",
                "description": "Ledger sync",
                "eventTypes": "transfer.completed, transfer.failed",
            },
        )
        assert created.status_code == 303, created.text
        location = created.headers["location"]
        endpoint_id = re.search(
            r"/console/webhooks/(ep_[0-9a-z]+)\?done=endpoint-created", location
        )
        assert endpoint_id
        detail = await browser.get(location)
        assert "Endpoint created" in detail.text and "transfer.failed" in detail.text
        listed = await browser.get("/console/webhooks")
        assert "https://example.com/hooks/corridor" in listed.text and "Ledger sync" in listed.text
        refused = await post_form(
            browser, "/console/webhooks", "/console/webhooks", {"url": "ftp://example.com/x"}
        )
        assert refused.status_code == 422 and "url" in refused.text
        bad_type = await post_form(
            browser,
            "/console/webhooks",
            "/console/webhooks",
            {"url": "https://example.com/x", "eventTypes": "Not A Type"},
        )
        assert bad_type.status_code == 422 and "eventTypes" in bad_type.text
    made = await endpoint(tenant.client, endpoint_id.group(1))
    assert made["eventTypes"] == ["transfer.completed", "transfer.failed"]


async def test_disable_enable_and_delete_an_endpoint(app, tenant):
    made = await create_endpoint(tenant.client, "https://example.com/hooks/a")
    page = f"/console/webhooks/{made['id']}"
    async with console_browser(app, tenant) as browser:
        disabled = await post_form(browser, page, f"{page}/disable", {})
        assert disabled.headers["location"] == f"{page}?done=endpoint-disabled"
        assert (await endpoint(tenant.client, made["id"]))["disabledReason"] == "MANUAL"
        shown = await browser.get(disabled.headers["location"])
        assert "DISABLED" in shown.text and ">Enable</button>" in shown.text
        enabled = await post_form(browser, page, f"{page}/enable", {})
        assert enabled.headers["location"] == f"{page}?done=endpoint-enabled"
        assert (await endpoint(tenant.client, made["id"]))["disabled"] is False
        unconfirmed = await post_form(browser, page, f"{page}/delete", {})
        assert unconfirmed.status_code == 422
        deleted = await post_form(browser, page, f"{page}/delete", {"confirm": "yes"})
        assert deleted.headers["location"] == "/console/webhooks?done=endpoint-deleted"
        assert (await browser.get(page)).status_code == 404
    gone = await tenant.client.get(f"/v1/webhooks/endpoints/{made['id']}")
    assert gone.status_code == 404


async def test_the_signing_secret_is_shown_on_request_and_a_rotated_one_once(app, tenant):
    made = await create_endpoint(tenant.client, "https://example.com/hooks/b")
    page = f"/console/webhooks/{made['id']}"
    before = await secret_of(tenant.client, made["id"])
    async with console_browser(app, tenant) as browser:
        detail = await browser.get(page)
        assert before not in detail.text
        revealed = await post_form(browser, page, f"{page}/secret", {})
        assert revealed.status_code == 200 and before in revealed.text
        assert revealed.headers["cache-control"] == "no-store"
        rotated = await post_form(browser, page, f"{page}/secret/rotate", {})
        assert rotated.status_code == 200 and "location" not in rotated.headers
        assert rotated.headers["cache-control"] == "no-store"
        new = re.search(r'id="secret-value">(whsec_[^<]+)<', rotated.text)
        assert new and new.group(1) != before
        assert new.group(1) not in (await browser.get(page)).text
    assert await secret_of(tenant.client, made["id"]) == new.group(1)


async def test_message_history_filters_and_pages(app, tenant, receiver):
    first = await create_endpoint(tenant.client, receiver.url)
    second = await create_endpoint(tenant.client, receiver.url + "/other")
    pings = await emit_events(
        app, tenant.organization_id, 3, tags=("tfr_01jd3x0p6x9e3k2v1m8q4r7s5t",)
    )
    other = await emit_events(app, tenant.organization_id, 1, event_type="test.other")
    receiver.answer_with(200, 500, 200, 200, 500, 200, 200, 200)
    await deliver(app, worker_settings(app, webhook_retry_schedule_s=[]))
    async with console_browser(app, tenant) as browser:
        everything = await browser.get("/console/webhooks/messages")
        assert set(pings + other) <= set(_message_ids(everything.text))
        by_type = await browser.get("/console/webhooks/messages?eventTypes=test.other")
        assert _message_ids(by_type.text) == other
        by_tag = await browser.get(
            "/console/webhooks/messages?tag=tfr_01jd3x0p6x9e3k2v1m8q4r7s5t&limit=2"
        )
        assert _message_ids(by_tag.text) == [pings[2], pings[1]]
        next_link = re.search(r'href="([^"]+)" rel="next"', by_tag.text)
        assert next_link and "tag=tfr_" in next_link.group(1)
        rest = await browser.get(next_link.group(1).replace("&amp;", "&"))
        assert _message_ids(rest.text) == [pings[0]]
        failed = await browser.get(
            f"/console/webhooks/messages?endpointId={first['id']}&status=FAIL"
        )
        failed_ids = _message_ids(failed.text)
        for message_id in failed_ids:
            assert (await message(tenant.client, message_id))["status"] == "FAIL"
        after = await browser.get(
            "/console/webhooks/messages?after="
            + _minute(app.state.clock.now() + timedelta(hours=1))
        )
        assert _message_ids(after.text) == []
        refused = await browser.get("/console/webhooks/messages?status=FAIL")
        assert refused.status_code == 422 and "endpointId" in refused.text
        bad_status = await browser.get(
            f"/console/webhooks/messages?endpointId={second['id']}&status=MAYBE"
        )
        assert bad_status.status_code == 422
        bad_time = await browser.get("/console/webhooks/messages?after=yesterday")
        assert bad_time.status_code == 422


async def test_a_message_shows_its_attempts_and_resends(app, tenant, receiver):
    made = await create_endpoint(tenant.client, receiver.url)
    (sent,) = await emit_events(app, tenant.organization_id, 1)
    receiver.answer_with(Answer(status=500, body=b"upstream is down"))
    await deliver(app, worker_settings(app, webhook_retry_schedule_s=[]))
    page = f"/console/webhooks/messages/{sent}"
    async with console_browser(app, tenant) as browser:
        detail = await browser.get(page)
        assert detail.status_code == 200
        assert "upstream is down" in detail.text and ">500<" in detail.text
        assert "FAIL" in detail.text and "&#34;type&#34;: &#34;test.ping&#34;" in detail.text
        assert "&#34;text&#34;: &#34;héllo&#34;" in detail.text  # the payload as sent
        resent = await post_form(browser, page, f"{page}/resend", {"endpointId": made["id"]})
        assert resent.headers["location"] == f"{page}?done=resent"
        receiver.answer_with(200)
        await deliver(app)
        after = await browser.get(resent.headers["location"])
        assert "Resend queued" in after.text
        assert after.text.count('class="badge status-success">SUCCESS') >= 2
    tried = await attempts(tenant.client, sent)
    assert [attempt["status"] for attempt in tried] == ["SUCCESS", "FAIL"]
    assert tried[0]["trigger"] == "MANUAL"


async def test_replay_failed_deliveries_since_a_time(app, tenant, receiver):
    made = await create_endpoint(tenant.client, receiver.url)
    sent = await emit_events(app, tenant.organization_id, 2)
    receiver.answer_with(500, 500)
    await deliver(app, worker_settings(app, webhook_retry_schedule_s=[]))
    page = f"/console/webhooks/{made['id']}"
    since = _minute(app.state.clock.now() - timedelta(hours=1))
    async with console_browser(app, tenant) as browser:
        detail = await browser.get(page)
        assert set(sent) <= set(_message_ids(detail.text))
        replayed = await post_form(browser, page, f"{page}/replay", {"since": since})
        assert replayed.headers["location"] == f"{page}?done=replayed"
        receiver.answer_with(200, 200)
        await deliver(app)
        for message_id in sent:
            assert (await message(tenant.client, message_id))["status"] == "SUCCESS"
        nothing = await post_form(browser, page, f"{page}/replay", {"since": since})
        assert nothing.headers["location"] == f"{page}?done=replayed-none"
        refused = await post_form(browser, page, f"{page}/replay", {"since": "soon"})
        assert refused.status_code == 422 and "since" in refused.text
