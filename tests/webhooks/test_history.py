"""GET /v1/webhooks/messages (spec 4.4): newest first, filters, stable iteration, `available`;
one message, and its attempts."""

from __future__ import annotations

from datetime import timedelta

import pytest

from tests.conftest import assert_error, built_app, client_for
from tests.webhooks.support import (
    attempts,
    create_endpoint,
    deliver,
    emit_events,
    message,
    worker_settings,
)

PATH = "/v1/webhooks/messages"
PING = "test.ping"


async def _list(client, **params) -> dict:
    response = await client.get(PATH, params=params)
    assert response.status_code == 200, response.text
    return response.json()


async def _all_ids(client, **params) -> list[str]:
    ids: list[str] = []
    page = await _list(client, **params)
    for _ in range(100):
        ids.extend(item["id"] for item in page["data"])
        if page["done"]:
            assert page["iterator"] is None
            return ids
        page = await _list(client, **params, iterator=page["iterator"])
    raise AssertionError("the list never finished")


async def test_messages_are_listed_newest_first_in_the_spec_shape(tenant, app):
    sent = await emit_events(app, tenant.organization_id, 3, tags=("cus_1",))
    page = await _list(tenant.client, eventTypes="test.ping")
    assert page["available"] is True
    assert page["done"] is True
    assert page["iterator"] is None
    assert [item["id"] for item in page["data"]] == sent[::-1]
    item = page["data"][0]
    assert set(item) == {"id", "eventType", "timestamp", "tags", "status", "nextAttempt"}
    assert item["eventType"] == "test.ping"
    assert item["tags"] == ["cus_1"]
    assert item["status"] == "PENDING"
    assert item["timestamp"].endswith("Z")


async def test_pages_stay_stable_while_new_messages_arrive(tenant, app):
    sent = await emit_events(app, tenant.organization_id, 7)
    first = await _list(tenant.client, limit=3, eventTypes=PING)
    assert first["done"] is False
    newer = await emit_events(app, tenant.organization_id, 2)
    seen = [item["id"] for item in first["data"]]
    page = first
    while not page["done"]:
        page = await _list(tenant.client, limit=3, eventTypes=PING, iterator=page["iterator"])
        seen.extend(item["id"] for item in page["data"])
    assert seen == sent[::-1]
    assert (await _all_ids(tenant.client, limit=4, eventTypes=PING)) == (sent + newer)[::-1]


async def test_event_type_filter_takes_a_comma_separated_list(tenant, app):
    pings = await emit_events(app, tenant.organization_id, 2, event_type="test.ping")
    pongs = await emit_events(app, tenant.organization_id, 1, event_type="test.pong")
    await emit_events(app, tenant.organization_id, 1, event_type="test.other")
    assert await _all_ids(tenant.client, eventTypes="test.ping") == pings[::-1]
    both = await _all_ids(tenant.client, eventTypes="test.pong, test.ping")
    assert both == (pings + pongs)[::-1]


async def test_after_and_before_bound_the_creation_time(tenant, app, clock):
    base = clock.now().replace(microsecond=0)
    early = await emit_events(app, tenant.organization_id, at=base - timedelta(hours=2))
    middle = await emit_events(app, tenant.organization_id, at=base - timedelta(hours=1))
    late = await emit_events(app, tenant.organization_id, at=base)
    after = (base - timedelta(hours=2)).isoformat().replace("+00:00", "Z")
    before = base.isoformat().replace("+00:00", "Z")
    assert await _all_ids(tenant.client, after=after, before=before, eventTypes=PING) == middle
    assert await _all_ids(tenant.client, after=after, eventTypes=PING) == late + middle
    assert await _all_ids(tenant.client, before=before, eventTypes=PING) == middle + early


async def test_tag_filter_finds_the_messages_about_a_resource(tenant, app):
    about = await emit_events(app, tenant.organization_id, 2, tags=("cus_a", "acc_b"))
    await emit_events(app, tenant.organization_id, 2, tags=("cus_z",))
    assert await _all_ids(tenant.client, tag="acc_b") == about[::-1]
    assert await _all_ids(tenant.client, tag="cus_") == []


async def test_status_filter_applies_at_one_endpoint(tenant, app, make_receiver):
    good, bad = make_receiver(), make_receiver()
    good_endpoint = await create_endpoint(tenant.client, good.url)
    bad_endpoint = await create_endpoint(tenant.client, bad.url)
    bad.answer_with(500, 500)
    sent = await emit_events(app, tenant.organization_id, 2)
    await deliver(app, worker_settings(app, webhook_retry_schedule_s=[3600]))

    at_bad = await _list(tenant.client, endpointId=bad_endpoint["id"], status="PENDING")
    assert [item["id"] for item in at_bad["data"]] == sent[::-1]
    assert all(item["nextAttempt"] is not None for item in at_bad["data"])
    at_good = await _list(tenant.client, endpointId=good_endpoint["id"])
    assert [item["status"] for item in at_good["data"]] == ["SUCCESS", "SUCCESS"]
    none = await _list(tenant.client, endpointId=good_endpoint["id"], status="FAIL")
    assert none["data"] == []
    overall = await _list(tenant.client)
    assert [item["status"] for item in overall["data"][:2]] == ["PENDING", "PENDING"]


async def test_status_without_an_endpoint_is_refused(tenant):
    assert_error(await tenant.client.get(PATH, params={"status": "FAIL"}), 422, "validation_error")


@pytest.mark.parametrize(
    "params",
    [
        {"limit": 0},
        {"limit": 251},
        {"status": "DONE", "endpointId": "ep_x"},
        {"iterator": "not-an-iterator"},
        {"after": "yesterday"},
        {"eventTypes": "Not A Type"},
    ],
)
async def test_bad_query_parameters_are_validation_errors(tenant, params):
    assert_error(await tenant.client.get(PATH, params=params), 422, "validation_error")


async def test_an_unknown_endpoint_filter_is_not_found(tenant):
    response = await tenant.client.get(PATH, params={"endpointId": "ep_" + "0" * 26})
    assert_error(response, 404, "not_found")


async def test_history_switched_off_by_the_organization_is_not_available(tenant, app):
    await emit_events(app, tenant.organization_id)
    configured = await tenant.client.patch(
        "/v1/organizations/current/configuration", json={"webhookHistoryEnabled": False}
    )
    assert configured.status_code == 200
    page = await _list(tenant.client)
    assert page == {"available": False, "data": [], "iterator": None, "done": True}


async def test_history_switched_off_by_the_environment_is_not_available(tenant, app, database_url):
    environment = app.state.settings.env
    async with built_app(database_url, environment, webhook_history_enabled=False) as other:
        async with client_for(other, tenant.headers()) as client:
            assert (await _list(client))["available"] is False


async def test_messages_of_other_organizations_are_not_listed_or_found(tenant, make_tenant, app):
    other = await make_tenant()
    [theirs] = await emit_events(app, other.organization_id)
    assert theirs not in await _all_ids(tenant.client)
    assert_error(await tenant.client.get(f"{PATH}/{theirs}"), 404, "not_found")
    assert_error(await tenant.client.get(f"{PATH}/{theirs}/attempts"), 404, "not_found")
    assert_error(await tenant.client.post(f"{PATH}/{theirs}/resend"), 404, "not_found")


async def test_one_message_shows_its_payload_and_each_endpoint(tenant, app, make_receiver):
    good, bad = make_receiver(), make_receiver()
    good_endpoint = await create_endpoint(tenant.client, good.url)
    bad_endpoint = await create_endpoint(tenant.client, bad.url)
    bad.answer_with(500)
    [message_id] = await emit_events(app, tenant.organization_id, tags=("cus_1",))
    await deliver(app, worker_settings(app, webhook_retry_schedule_s=[3600]))

    shown = await message(tenant.client, message_id)
    assert shown["id"] == message_id
    assert shown["payload"]["type"] == "test.ping"
    assert shown["payload"]["data"] == {"sequence": 0, "text": "héllo"}
    assert shown["status"] == "PENDING"
    by_endpoint = {item["endpointId"]: item for item in shown["deliveries"]}
    assert by_endpoint[good_endpoint["id"]]["status"] == "SUCCESS"
    assert by_endpoint[good_endpoint["id"]]["nextAttempt"] is None
    assert by_endpoint[bad_endpoint["id"]]["status"] == "PENDING"
    assert by_endpoint[bad_endpoint["id"]]["attemptCount"] == 1
    assert shown["nextAttempt"] == by_endpoint[bad_endpoint["id"]]["nextAttempt"]


async def test_attempts_show_status_code_answer_duration_and_error(tenant, app, receiver):
    created = await create_endpoint(tenant.client, receiver.url)
    receiver.answer_with(500)
    [message_id] = await emit_events(app, tenant.organization_id)
    await deliver(app, worker_settings(app, webhook_retry_scale=0.0))
    made = await attempts(tenant.client, message_id)
    assert len(made) == 2
    failed, succeeded = made[1], made[0]
    assert failed["status"] == "FAIL"
    assert failed["responseStatusCode"] == 500
    assert failed["responseBody"] == "ok"
    assert failed["error"] is None
    assert failed["durationMs"] >= 0
    assert failed["messageId"] == message_id
    assert failed["endpointId"] == created["id"]
    assert failed["url"] == receiver.url
    assert failed["trigger"] == "SCHEDULED"
    assert failed["id"].startswith("atmpt_")
    assert succeeded["status"] == "SUCCESS"
    only = await attempts(tenant.client, message_id, endpointId="ep_" + "0" * 26)
    assert only == []


async def test_a_message_sent_to_no_endpoint_is_canceled(tenant, app):
    [message_id] = await emit_events(app, tenant.organization_id)
    assert (await message(tenant.client, message_id))["status"] == "PENDING"
    await deliver(app)
    shown = await message(tenant.client, message_id)
    assert shown["status"] == "CANCELED"
    assert shown["deliveries"] == []


async def test_a_message_no_endpoint_wanted_is_canceled_everywhere_until_resent(
    tenant, app, make_receiver
):
    """CANCELED without endpointId means "fanned out, and no endpoint took it": none existed,
    or none subscribed to its type (an endpoint made later does not get it). The list and
    the message agree, nextAttempt is null, no endpoint's filter lists it, and it stays so
    until a resend to a named endpoint gives it a delivery (README, Webhooks)."""
    receiver = make_receiver()
    other_type = await create_endpoint(tenant.client, receiver.url, eventTypes=["x.other"])
    [message_id] = await emit_events(app, tenant.organization_id, event_type=PING)
    await deliver(app)
    later = await create_endpoint(tenant.client, receiver.url)
    await deliver(app)
    shown = await message(tenant.client, message_id)
    assert (shown["status"], shown["nextAttempt"], shown["deliveries"]) == ("CANCELED", None, [])
    [listed] = (await _list(tenant.client, eventTypes=PING))["data"]
    assert (listed["id"], listed["status"], listed["nextAttempt"]) == (message_id, "CANCELED", None)
    for endpoint_id in (other_type["id"], later["id"]):
        assert (await _list(tenant.client, endpointId=endpoint_id))["data"] == []
    assert receiver.ids() == []
    resent = await tenant.client.post(
        f"/v1/webhooks/messages/{message_id}/resend", json={"endpointId": later["id"]}
    )
    assert resent.status_code == 202, resent.text
    assert (await message(tenant.client, message_id))["status"] == "PENDING"
    await deliver(app)
    assert (await message(tenant.client, message_id))["status"] == "SUCCESS"
    assert receiver.ids() == [message_id]


@pytest.mark.parametrize("moment", ["0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-05:00"])
async def test_times_outside_the_utc_range_are_validation_errors(tenant, moment):
    response = await tenant.client.get(PATH, params={"after": moment})
    assert_error(response, 422, "validation_error")
    endpoint = await create_endpoint(tenant.client, "https://example.com/hooks")
    replay = await tenant.client.post(
        f"/v1/webhooks/endpoints/{endpoint['id']}/replay", json={"since": moment}
    )
    assert_error(replay, 422, "validation_error")
