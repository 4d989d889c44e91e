"""The assistant panel over HTTP: threads, a message sent through the form, the run carried
out by the worker (driven by hand, with the sandbox provider), the proposed payment shown
as a card with its summary and preview, approved or refused through the form; the run's
SSE stream answers the console's cookie."""

from __future__ import annotations

import re

from tests.assistant.conftest import drive
from tests.console.helpers import console_browser, csrf_of, post_form
from tests.transfers.conftest import fetch


def _send(owner) -> str:
    return f"send 25 USD to Müller Maschinenbau GmbH from {owner.usd_account}"


async def _thread(browser, title: str = "Payouts") -> str:
    started = await post_form(
        browser, "/console/assistant", "/console/assistant/threads", {"title": title}
    )
    assert started.status_code == 303, started.text
    location = started.headers["location"]
    assert re.fullmatch(r"/console/assistant/thr_[0-9a-z]+", location)
    return location


async def test_a_payment_waits_as_a_card_and_runs_once_approved(app, owner):
    async with console_browser(app, owner.tenant) as browser:
        empty = await browser.get("/console/assistant")
        assert empty.status_code == 200 and "No threads yet." in empty.text
        thread = await _thread(browser)
        sent = await post_form(browser, thread, f"{thread}/messages", {"text": _send(owner)})
        assert sent.status_code == 303
        assert sent.headers["location"] == f"{thread}?done=assistant-sent"
        waiting = await browser.get(sent.headers["location"])
        assert "Sent: the assistant is answering." in waiting.text
        run_id = re.search(
            r'data-run-events="/v1/assistant/runs/(run_[0-9a-z]+)/events', waiting.text
        )
        assert run_id, "a queued run is followed live"
        assert 'name="text"' in waiting.text and "disabled" in waiting.text

        await drive(app)
        card = await browser.get(thread)
        assert "data-run-events" not in card.text  # waiting for a person, not streaming
        assert "pending confirmation" in card.text
        assert (
            f"Send 25.00 USD from {owner.usd_account} to Ada Lovelace "
            f"({owner.payee_account_id}) by ACH" in card.text
        )
        assert "Recipient gets: 25.00 USD" in card.text
        action = re.search(
            r'action="(/console/assistant/runs/run_[0-9a-z]+/tool-calls/[^"]+/confirmation)"',
            card.text,
        )
        assert action
        approved = await browser.post(
            action.group(1), data={"decision": "approve", "csrf_token": csrf_of(card.text)}
        )
        assert approved.status_code == 303
        assert approved.headers["location"] == f"{thread}?done=assistant-confirmed"
        await drive(app)
        done = await browser.get(thread)
        transfer_id = re.search(
            r"Sent: transfer (tfr_[0-9a-z]+) of 25.00 USD is PENDING", done.text
        )
        assert transfer_id, done.text
        assert (await fetch(owner.client, transfer_id.group(1)))["status"] == "PENDING"
        again = await browser.post(
            action.group(1), data={"decision": "approve", "csrf_token": csrf_of(done.text)}
        )
        assert again.status_code == 409

        # The run's events over SSE, authenticated by the console cookie alone.
        stream = await browser.get(f"/v1/assistant/runs/{run_id.group(1)}/events")
        assert stream.status_code == 200
        assert stream.headers["content-type"].startswith("text/event-stream")
        assert "event: run.status" in stream.text and "event: text.delta" in stream.text


async def test_a_refused_payment_never_runs(app, owner):
    async with console_browser(app, owner.tenant) as browser:
        thread = await _thread(browser)
        await post_form(browser, thread, f"{thread}/messages", {"text": _send(owner)})
        await drive(app)
        card = await browser.get(thread)
        action = re.search(r'action="(/console/assistant/runs/[^"]+/confirmation)"', card.text)
        assert action
        token = csrf_of(card.text)
        wrong = await browser.post(action.group(1), data={"decision": "maybe", "csrf_token": token})
        assert wrong.status_code == 422
        forged = await browser.post(action.group(1), data={"decision": "approve"})
        assert forged.status_code == 403
        refused = await browser.post(
            action.group(1), data={"decision": "refuse", "csrf_token": token}
        )
        assert refused.headers["location"] == f"{thread}?done=assistant-refused"
        await drive(app)
        after = await browser.get(thread)
        assert "Refused: nothing was changed." not in after.text  # the notice was for the redirect
        listed = await owner.client.get("/v1/transfers", params={"customerId": owner.customer.id})
        assert listed.json()["data"] == []


async def test_bad_messages_and_unknown_threads(app, owner):
    async with console_browser(app, owner.tenant) as browser:
        thread = await _thread(browser)
        empty = await post_form(browser, thread, f"{thread}/messages", {"text": ""})
        assert empty.status_code == 422 and "text" in empty.text
        long = await post_form(browser, thread, f"{thread}/messages", {"text": "x" * 8001})
        assert long.status_code == 422
        missing = await browser.get("/console/assistant/thr_00000000000000000000000000")
        assert missing.status_code == 404
        sly = await _thread(browser, "<script>alert(1)</script>")
        page = await browser.get(sly)
        assert "<script>alert(1)</script>" not in page.text
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page.text


async def test_while_a_write_waits_the_box_says_why_and_a_message_is_never_lost(app, owner):
    async with console_browser(app, owner.tenant) as browser:
        thread = await _thread(browser)
        await post_form(browser, thread, f"{thread}/messages", {"text": _send(owner)})
        await drive(app)
        waiting = await browser.get(thread)
        assert "pending confirmation" in waiting.text
        composer = re.search(r"<textarea[^>]*>", waiting.text)
        assert composer and "disabled" in composer.group(0)
        assert "Waiting for you: approve or reject the proposed write above" in waiting.text
        cancel = re.search(
            r'action="(/console/assistant/runs/(run_[0-9a-z]+)/cancel)"', waiting.text
        )
        assert cancel, "a Cancel button while the write waits"

        # A message sent anyway (an old tab) comes back in the box, inside the console.
        text = "yes, send it"
        refused = await post_form(browser, thread, f"{thread}/messages", {"text": text})
        assert refused.status_code == 409
        assert "Not sent: Run " in refused.text and "awaiting_confirmation" in refused.text
        assert f">{text}</textarea>" in refused.text
        assert 'href="/console/transfers"' in refused.text  # the layout, not a bare page

        cancelled = await browser.post(cancel.group(1), data={"csrf_token": csrf_of(waiting.text)})
        assert cancelled.status_code == 303
        assert cancelled.headers["location"] == f"{thread}?done=assistant-cancelled"
        after = await browser.get(cancelled.headers["location"])
        assert "Cancelled: the waiting write will not run." in after.text
        composer = re.search(r"<textarea[^>]*>", after.text)
        assert composer and "disabled" not in composer.group(0)
        assert "/cancel" not in after.text
        assert "cancelled" in after.text  # the tool call's card says so
        again = await post_form(browser, thread, f"{thread}/messages", {"text": text})
        assert again.status_code == 303
        listed = await owner.client.get("/v1/transfers", params={"customerId": owner.customer.id})
        assert listed.json()["data"] == []


async def test_a_refused_message_keeps_its_text(app, owner):
    async with console_browser(app, owner.tenant) as browser:
        thread = await _thread(browser)
        long = "x" * 8001
        refused = await post_form(browser, thread, f"{thread}/messages", {"text": long})
        assert refused.status_code == 422
        assert f">{long}</textarea>" in refused.text
        assert "Not sent:" in refused.text and 'href="/console/transfers"' in refused.text


async def test_threads_from_an_api_key_show_once_shared_labelled_by_the_key(app, owner):
    private = await owner.client.post("/v1/assistant/threads", json={"title": "Key private"})
    shared = await owner.client.post(
        "/v1/assistant/threads", json={"title": "Key shared", "visibility": "organization"}
    )
    assert private.status_code == 201 and shared.status_code == 201, shared.text
    keys = (await owner.client.get("/v1/api-keys")).json()["data"]
    async with console_browser(app, owner.tenant) as browser:
        mine = await _thread(browser, "Console own")
        listed = await browser.get("/console/assistant")
        assert "Key shared" in listed.text and "Console own" in listed.text
        assert "Key private" not in listed.text
        assert "private to that key until it is shared" in listed.text  # why one is missing
        assert any(f"started by API key “{key['name']}”" in listed.text for key in keys)
        assert "started by you" in listed.text
        only = await browser.get("/console/assistant?whose=mine")
        assert "Showing threads you started." in only.text
        assert "Console own" in only.text and "Key shared" not in only.text
        # Someone else's shared thread opens read-only: no box to write in.
        other = re.search(
            r'href="(/console/assistant/thr_[0-9a-z]+)"[^>]*>\s*Key shared', listed.text
        )
        assert other and other.group(1) != mine
        opened = await browser.get(other.group(1))
        assert opened.status_code == 200 and "<textarea" not in opened.text
