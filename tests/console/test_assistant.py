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
