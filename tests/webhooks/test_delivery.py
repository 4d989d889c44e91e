"""Delivery to a real receiver: signed Standard Webhooks requests, at least once, with the
retry schedule, statuses and endpoint disabling of API.md section 7."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from standardwebhooks.webhooks import WebhookVerificationError

from tests.support import create_individual
from tests.webhooks.support import (
    Answer,
    attempts,
    create_endpoint,
    deliver,
    emit_events,
    endpoint,
    message,
    secret_of,
    verify,
    worker_settings,
)


async def test_an_outbox_event_is_delivered_signed_with_the_message_id(tenant, app, receiver):
    created = await create_endpoint(tenant.client, receiver.url, eventTypes=["customer.created"])
    secret = await secret_of(tenant.client, created["id"])
    customer = await create_individual(tenant.client)

    await deliver(app)

    assert len(receiver.received) == 1
    delivery = receiver.received[0]
    payload = verify(delivery, secret)
    assert payload["type"] == "customer.created"
    assert payload["data"]["id"] == customer["id"]
    assert payload["timestamp"].endswith("Z")
    assert set(payload) == {"type", "timestamp", "data"}
    assert delivery.message_id.startswith("msg_")
    assert delivery.headers["content-type"] == "application/json"
    assert delivery.headers["webhook-signature"].startswith("v1,")
    shown = await message(tenant.client, delivery.message_id)
    assert shown["status"] == "SUCCESS"
    assert shown["eventType"] == "customer.created"
    assert customer["id"] in shown["tags"]
    assert shown["payload"] == payload


@pytest.mark.parametrize("part", ["webhook-id", "webhook-timestamp", "body"])
async def test_a_flipped_byte_anywhere_fails_verification(tenant, app, receiver, part):
    created = await create_endpoint(tenant.client, receiver.url)
    secret = await secret_of(tenant.client, created["id"])
    await emit_events(app, tenant.organization_id)
    await deliver(app)
    delivery = receiver.received[0]
    verify(delivery, secret)

    headers = dict(delivery.headers)
    body = bytearray(delivery.body)
    if part == "body":
        body[len(body) // 2] ^= 0x01
    elif part == "webhook-id":
        headers["webhook-id"] = headers["webhook-id"][:-1] + (
            "0" if headers["webhook-id"][-1] != "0" else "1"
        )
    else:
        headers["webhook-timestamp"] = str(int(headers["webhook-timestamp"]) - 1)
    tampered = type(delivery)(path=delivery.path, headers=headers, body=bytes(body))
    with pytest.raises(WebhookVerificationError):
        verify(tampered, secret)


async def test_every_subscribed_endpoint_gets_each_message_once(tenant, app, make_receiver):
    first, second, other_types = make_receiver(), make_receiver(), make_receiver()
    await create_endpoint(tenant.client, first.url)
    await create_endpoint(tenant.client, second.url, eventTypes=["test.ping"])
    await create_endpoint(tenant.client, other_types.url, eventTypes=["transfer.completed"])
    sent = await emit_events(app, tenant.organization_id, 5)

    await deliver(app)

    assert sorted(first.ids()) == sorted(sent)
    assert sorted(second.ids()) == sorted(sent)
    assert other_types.received == []


async def test_messages_of_another_organization_never_reach_the_endpoint(
    tenant, make_tenant, app, receiver
):
    await create_endpoint(tenant.client, receiver.url)
    other = await make_tenant()
    await emit_events(app, other.organization_id, 3)
    mine = await emit_events(app, tenant.organization_id, 1)
    await deliver(app)
    assert receiver.ids() == mine


async def test_an_endpoint_gets_only_messages_created_after_it(tenant, app, receiver, clock):
    earlier = clock.now() - timedelta(minutes=1)
    await emit_events(app, tenant.organization_id, at=earlier)
    await create_endpoint(tenant.client, receiver.url)
    later = await emit_events(app, tenant.organization_id)
    await deliver(app)
    assert receiver.ids() == later


async def test_failures_are_retried_with_the_same_message_id_until_a_2xx(tenant, app, receiver):
    created = await create_endpoint(tenant.client, receiver.url)
    secret = await secret_of(tenant.client, created["id"])
    receiver.answer_with(500, 500, 500, 200)
    [message_id] = await emit_events(app, tenant.organization_id)

    await deliver(app, worker_settings(app, webhook_retry_scale=0.0))

    assert receiver.ids() == [message_id] * 4
    for delivery in receiver.received:
        verify(delivery, secret)
    assert (await message(tenant.client, message_id))["status"] == "SUCCESS"
    made = await attempts(tenant.client, message_id)
    assert [attempt["status"] for attempt in made] == ["SUCCESS", "FAIL", "FAIL", "FAIL"]
    assert [attempt["responseStatusCode"] for attempt in made] == [200, 500, 500, 500]
    assert [attempt["attemptNumber"] for attempt in made] == [4, 3, 2, 1]


async def test_attempts_follow_the_schedule_and_fail_when_exhausted(tenant, app, receiver, clock):
    """At once, then after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: eight attempts."""
    created = await create_endpoint(tenant.client, receiver.url)
    receiver.answer_with(*[503] * 8)
    start = clock.now()
    clock.set(start)
    [message_id] = await emit_events(app, tenant.organization_id)
    waits_s = [5, 300, 1800, 7200, 18000, 36000, 36000]
    at = start
    await deliver(app)
    for made, wait_s in enumerate(waits_s, start=1):
        shown = await message(tenant.client, message_id)
        assert shown["status"] == "PENDING"
        assert shown["nextAttempt"] == _iso(at + timedelta(seconds=wait_s))
        clock.set(at + timedelta(seconds=wait_s) - timedelta(milliseconds=1))
        await deliver(app)
        assert len(receiver.received) == made, "attempted before it was due"
        at += timedelta(seconds=wait_s)
        clock.set(at)
        await deliver(app)
    assert len(receiver.received) == 8
    shown = await message(tenant.client, message_id)
    assert shown["status"] == "FAIL"
    assert shown["nextAttempt"] is None
    assert len(await attempts(tenant.client, message_id)) == 8
    assert (await endpoint(tenant.client, created["id"]))["disabled"] is False


async def test_410_gone_disables_the_endpoint_and_cancels_its_waiting_messages(
    tenant, app, receiver
):
    created = await create_endpoint(tenant.client, receiver.url)
    receiver.answer_with(410)
    [first] = await emit_events(app, tenant.organization_id)
    await deliver(app)
    shown = await endpoint(tenant.client, created["id"])
    assert shown["disabled"] is True
    assert shown["disabledReason"] == "GONE"
    assert (await message(tenant.client, first))["status"] == "FAIL"

    [later] = await emit_events(app, tenant.organization_id)
    await deliver(app)
    assert receiver.ids() == [first]
    assert (await message(tenant.client, later))["status"] == "CANCELED"


async def test_a_redirect_is_not_followed_and_counts_as_a_failure(tenant, app, make_receiver):
    target, redirecting = make_receiver(), make_receiver()
    await create_endpoint(tenant.client, redirecting.url)
    redirecting.answer_with(Answer(status=307, headers={"location": target.url}))
    [message_id] = await emit_events(app, tenant.organization_id)
    await deliver(app)
    assert target.received == []
    made = await attempts(tenant.client, message_id)
    assert made[0]["status"] == "FAIL"
    assert made[0]["responseStatusCode"] == 307
    assert (await message(tenant.client, message_id))["status"] == "PENDING"


async def test_retry_after_postpones_the_next_attempt(tenant, app, receiver, clock):
    await create_endpoint(tenant.client, receiver.url)
    clock.set(clock.now())
    receiver.answer_with(Answer(status=429, headers={"retry-after": "120"}))
    [message_id] = await emit_events(app, tenant.organization_id)
    await deliver(app)
    shown = await message(tenant.client, message_id)
    assert shown["nextAttempt"] == _iso(clock.now() + timedelta(seconds=120))


async def test_a_slow_endpoint_times_out_and_the_attempt_is_retried(tenant, app, receiver):
    await create_endpoint(tenant.client, receiver.url)
    hang = Answer(hold=threading.Event())
    receiver.answer_with(hang)
    [message_id] = await emit_events(app, tenant.organization_id)
    try:
        await deliver(app, worker_settings(app, webhook_timeout_s=0.5, webhook_retry_scale=0.0))
    finally:
        hang.hold.set()
    made = await attempts(tenant.client, message_id)
    assert [attempt["status"] for attempt in made] == ["SUCCESS", "FAIL"]
    assert made[1]["error"].startswith("timeout")
    assert made[1]["responseStatusCode"] is None


async def test_the_answer_is_kept_as_an_excerpt(tenant, app, receiver):
    await create_endpoint(tenant.client, receiver.url)
    receiver.answer_with(Answer(status=500, body=b"x" * 100_000))
    [message_id] = await emit_events(app, tenant.organization_id)
    await deliver(app)
    [attempt] = await attempts(tenant.client, message_id)
    assert attempt["responseBody"] == "x" * 2048
    assert attempt["durationMs"] >= 0


async def test_an_endpoint_failing_for_five_days_is_disabled(tenant, app, receiver, clock):
    created = await create_endpoint(tenant.client, receiver.url)
    receiver.answer_with(*[500] * 20)
    start = clock.now()
    clock.set(start)
    await emit_events(app, tenant.organization_id)
    await deliver(app)
    assert (await endpoint(tenant.client, created["id"]))["disabled"] is False

    clock.set(start + timedelta(days=5) - timedelta(seconds=1))
    await emit_events(app, tenant.organization_id)
    await deliver(app)
    assert (await endpoint(tenant.client, created["id"]))["disabled"] is False

    clock.set(start + timedelta(days=5))
    await emit_events(app, tenant.organization_id)
    await deliver(app)
    shown = await endpoint(tenant.client, created["id"])
    assert shown["disabled"] is True
    assert shown["disabledReason"] == "FAILING"


async def test_a_success_ends_the_run_of_failures(tenant, app, receiver, clock):
    created = await create_endpoint(tenant.client, receiver.url)
    start = clock.now()
    clock.set(start)
    hourly = worker_settings(app, webhook_retry_schedule_s=[3600])
    receiver.answer_with(500, 200)
    await emit_events(app, tenant.organization_id)
    await deliver(app, hourly)
    await emit_events(app, tenant.organization_id)
    await deliver(app, hourly)
    assert (await endpoint(tenant.client, created["id"]))["disabled"] is False
    clock.set(start + timedelta(days=6))
    receiver.answer_with(500)
    await emit_events(app, tenant.organization_id)
    await deliver(app)
    assert (await endpoint(tenant.client, created["id"]))["disabled"] is False


async def test_a_disabled_endpoint_gets_nothing_and_its_messages_are_canceled(
    tenant, app, receiver
):
    created = await create_endpoint(tenant.client, receiver.url, disabled=True)
    [message_id] = await emit_events(app, tenant.organization_id)
    await deliver(app)
    assert receiver.received == []
    shown = await tenant.client.get("/v1/webhooks/messages", params={"endpointId": created["id"]})
    assert [item["status"] for item in shown.json()["data"]] == ["CANCELED"]
    assert (await message(tenant.client, message_id))["status"] == "CANCELED"


async def test_disabling_cancels_waiting_retries(tenant, app, receiver, clock):
    created = await create_endpoint(tenant.client, receiver.url)
    receiver.answer_with(500)
    [message_id] = await emit_events(app, tenant.organization_id)
    await deliver(app)
    assert (await message(tenant.client, message_id))["status"] == "PENDING"
    disabled = await tenant.client.patch(
        f"/v1/webhooks/endpoints/{created['id']}", json={"disabled": True}
    )
    assert disabled.json()["disabledReason"] == "MANUAL"
    clock.set(clock.now() + timedelta(hours=1))
    await deliver(app)
    assert len(receiver.received) == 1
    assert (await message(tenant.client, message_id))["status"] == "CANCELED"


async def test_deleting_an_endpoint_cancels_its_waiting_messages(tenant, app, receiver, clock):
    created = await create_endpoint(tenant.client, receiver.url)
    receiver.answer_with(500)
    [message_id] = await emit_events(app, tenant.organization_id)
    await deliver(app)
    deleted = await tenant.client.delete(f"/v1/webhooks/endpoints/{created['id']}")
    assert deleted.status_code == 204
    clock.set(clock.now() + timedelta(hours=1))
    await deliver(app)
    assert len(receiver.received) == 1
    assert (await message(tenant.client, message_id))["status"] == "CANCELED"


async def test_a_changed_url_is_used_from_the_next_attempt(tenant, app, make_receiver):
    old, new = make_receiver(), make_receiver()
    created = await create_endpoint(tenant.client, old.url)
    old.answer_with(500)
    [message_id] = await emit_events(app, tenant.organization_id)
    await deliver(app, worker_settings(app, webhook_retry_schedule_s=[3600]))
    await tenant.client.patch(f"/v1/webhooks/endpoints/{created['id']}", json={"url": new.url})
    await deliver(app, worker_settings(app, webhook_retry_scale=0.0))
    assert new.ids() == []
    resend = await tenant.client.post(f"/v1/webhooks/messages/{message_id}/resend")
    assert resend.status_code == 202
    await deliver(app)
    assert old.ids() == [message_id]
    assert new.ids() == [message_id]


def _iso(moment) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
