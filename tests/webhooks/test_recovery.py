"""Recovery and retention: replay an endpoint's failed deliveries since a time, resend one
message, and the workers' purge of history older than 90 days."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import func, select

from corridor.models.event import Event
from corridor.models.webhook import WebhookAttempt, WebhookDelivery
from corridor.webhooks import retention, service
from tests.conftest import assert_error
from tests.webhooks.support import (
    attempts,
    create_endpoint,
    deliver,
    emit_events,
    message,
    secret_of,
    verify,
    worker_settings,
)


def _iso(moment) -> str:
    return moment.isoformat().replace("+00:00", "Z")


async def _replay(client, endpoint_id: str, since, **extra):
    return await client.post(
        f"/v1/webhooks/endpoints/{endpoint_id}/replay", json={"since": _iso(since), **extra}
    )


async def _failed_messages(app, tenant, receiver, count: int) -> tuple[dict, list[str]]:
    """An endpoint whose deliveries of `count` messages all failed (one attempt each)."""
    created = await create_endpoint(tenant.client, receiver.url)
    receiver.answer_with(*[500] * count)
    sent = await emit_events(app, tenant.organization_id, count)
    await deliver(app, worker_settings(app, webhook_retry_schedule_s=[]))
    for message_id in sent:
        assert (await message(tenant.client, message_id))["status"] == "FAIL"
    return created, sent


async def test_replay_sends_failed_deliveries_again_in_the_background(tenant, app, receiver, clock):
    created, sent = await _failed_messages(app, tenant, receiver, 3)
    replayed = await _replay(tenant.client, created["id"], clock.now() - timedelta(hours=1))
    assert replayed.status_code == 202, replayed.text
    body = replayed.json()
    assert body["queued"] == 3
    assert body["complete"] is True
    assert body["endpointId"] == created["id"]
    assert receiver.ids().count(sent[0]) == 1, "nothing is sent before the workers run"

    await deliver(app)
    secret = await secret_of(tenant.client, created["id"])
    for message_id in sent:
        assert (await message(tenant.client, message_id))["status"] == "SUCCESS"
        latest = (await attempts(tenant.client, message_id))[0]
        assert latest["trigger"] == "MANUAL"
        assert latest["attemptNumber"] == 1
    assert sorted(receiver.ids()) == sorted(sent * 2)
    for delivery in receiver.received[-3:]:
        verify(delivery, secret)


async def test_replay_takes_only_messages_created_since(tenant, app, receiver, clock):
    start = clock.now()
    clock.set(start - timedelta(hours=1))
    created = await create_endpoint(tenant.client, receiver.url, eventTypes=["test.ping"])
    clock.reset()
    receiver.answer_with(500, 500)
    no_retries = worker_settings(app, webhook_retry_schedule_s=[])
    [old] = await emit_events(app, tenant.organization_id, at=start - timedelta(minutes=30))
    [recent] = await emit_events(app, tenant.organization_id, at=start - timedelta(minutes=5))
    await deliver(app, no_retries)

    replayed = await _replay(tenant.client, created["id"], start - timedelta(minutes=10))
    assert replayed.json()["queued"] == 1
    await deliver(app)
    assert (await message(tenant.client, recent))["status"] == "SUCCESS"
    assert (await message(tenant.client, old))["status"] == "FAIL"


async def test_replay_after_enabling_sends_what_the_endpoint_missed(tenant, app, receiver, clock):
    created = await create_endpoint(tenant.client, receiver.url, disabled=True)
    sent = await emit_events(app, tenant.organization_id, 2)
    await deliver(app)
    refused = await _replay(tenant.client, created["id"], clock.now() - timedelta(hours=1))
    assert_error(refused, 409, "invalid_state")
    await tenant.client.patch(f"/v1/webhooks/endpoints/{created['id']}", json={"disabled": False})
    replayed = await _replay(tenant.client, created["id"], clock.now() - timedelta(hours=1))
    assert replayed.json()["queued"] == 2
    await deliver(app)
    assert sorted(receiver.ids()) == sorted(sent)


async def test_a_replay_is_bounded_and_says_when_to_call_again(
    tenant, app, receiver, clock, monkeypatch
):
    created, sent = await _failed_messages(app, tenant, receiver, 3)
    monkeypatch.setattr(service, "replay_deliveries_max", 2)
    since = clock.now() - timedelta(hours=1)
    first = (await _replay(tenant.client, created["id"], since)).json()
    assert (first["queued"], first["complete"]) == (2, False)
    second = (await _replay(tenant.client, created["id"], since)).json()
    assert (second["queued"], second["complete"]) == (1, True)
    await deliver(app)
    assert sorted(receiver.ids()) == sorted(sent * 2)


async def test_replay_needs_a_since_before_now(tenant, clock):
    created = await create_endpoint(tenant.client, "https://example.com/hooks")
    future = await _replay(tenant.client, created["id"], clock.now() + timedelta(hours=1))
    assert_error(future, 422, "validation_error")
    missing = await tenant.client.post(f"/v1/webhooks/endpoints/{created['id']}/replay", json={})
    assert_error(missing, 422, "validation_error")


async def test_resend_sends_a_delivered_message_again_with_the_same_id(tenant, app, receiver):
    created = await create_endpoint(tenant.client, receiver.url)
    [message_id] = await emit_events(app, tenant.organization_id)
    await deliver(app)
    resent = await tenant.client.post(f"/v1/webhooks/messages/{message_id}/resend")
    assert resent.status_code == 202, resent.text
    assert resent.json() == {"messageId": message_id, "endpointIds": [created["id"]]}
    await deliver(app)
    assert receiver.ids() == [message_id, message_id]
    secret = await secret_of(tenant.client, created["id"])
    verify(receiver.received[1], secret)


async def test_resend_to_an_endpoint_made_after_the_message(tenant, app, make_receiver):
    first, later = make_receiver(), make_receiver()
    await create_endpoint(tenant.client, first.url)
    [message_id] = await emit_events(app, tenant.organization_id)
    await deliver(app)
    added = await create_endpoint(tenant.client, later.url)
    resent = await tenant.client.post(
        f"/v1/webhooks/messages/{message_id}/resend", json={"endpointId": added["id"]}
    )
    assert resent.json()["endpointIds"] == [added["id"]]
    await deliver(app)
    assert later.ids() == [message_id]
    assert first.ids() == [message_id]


async def test_resend_refusals(tenant, app, receiver):
    unsubscribed = await create_endpoint(
        tenant.client, receiver.url, eventTypes=["transfer.completed"]
    )
    disabled = await create_endpoint(tenant.client, receiver.url, disabled=True)
    [message_id] = await emit_events(app, tenant.organization_id)
    path = f"/v1/webhooks/messages/{message_id}/resend"
    assert_error(await tenant.client.post(path), 409, "invalid_state")  # not fanned out yet
    await deliver(app)
    for endpoint_id, status, code in [
        (unsubscribed["id"], 409, "conflict"),
        (disabled["id"], 409, "invalid_state"),
        ("ep_" + "0" * 26, 404, "not_found"),
    ]:
        response = await tenant.client.post(path, json={"endpointId": endpoint_id})
        assert_error(response, status, code)
    assert_error(
        await tenant.client.post(f"/v1/webhooks/messages/msg_{'0' * 26}/resend"), 404, "not_found"
    )


async def _counts(app, message_ids: list[str]) -> tuple[int, int, int]:
    async with app.state.database.session(write=False) as session:
        counted = []
        for model, column in [
            (Event, Event.id),
            (WebhookDelivery, WebhookDelivery.event_id),
            (WebhookAttempt, WebhookAttempt.event_id),
        ]:
            statement = select(func.count()).select_from(model).where(column.in_(message_ids))
            counted.append((await session.execute(statement)).scalar_one())
    return counted[0], counted[1], counted[2]


async def test_history_older_than_90_days_is_purged_by_the_workers(tenant, app, receiver, clock):
    now = clock.now()
    clock.set(now - timedelta(days=92))
    await create_endpoint(tenant.client, receiver.url, eventTypes=["test.ping"])
    clock.set(now - timedelta(days=91))
    old = await emit_events(app, tenant.organization_id, 2)
    await deliver(app)
    clock.set(now - timedelta(days=89))
    young = await emit_events(app, tenant.organization_id, 1)
    await deliver(app)
    clock.set(now)
    assert await _counts(app, old) == (2, 2, 2)

    removed = await retention.purge_history(app.state.database, clock, app.state.settings)

    assert removed >= 2
    assert await _counts(app, old) == (0, 0, 0)
    assert await _counts(app, young) == (1, 1, 1)
    assert_error(await tenant.client.get(f"/v1/webhooks/messages/{old[0]}"), 404, "not_found")


async def test_without_history_finished_messages_are_purged_and_waiting_ones_kept(
    tenant, app, make_receiver
):
    good, bad = make_receiver(), make_receiver()
    await create_endpoint(tenant.client, good.url, eventTypes=["test.ping"])
    await create_endpoint(tenant.client, bad.url, eventTypes=["test.pong"])
    bad.answer_with(500)
    [finished] = await emit_events(app, tenant.organization_id, event_type="test.ping")
    [waiting] = await emit_events(app, tenant.organization_id, event_type="test.pong")
    await deliver(app, worker_settings(app, webhook_retry_schedule_s=[3600]))
    await tenant.client.patch(
        "/v1/organizations/current/configuration", json={"webhookHistoryEnabled": False}
    )

    await retention.purge_history(app.state.database, app.state.clock, app.state.settings)

    assert await _counts(app, [finished]) == (0, 0, 0)
    assert await _counts(app, [waiting]) == (1, 1, 1)
