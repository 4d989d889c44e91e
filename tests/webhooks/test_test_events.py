"""`POST /v1/webhooks/endpoints/{id}/test`: a sandbox test event of a catalog type, sent to
that endpoint alone, signed like every delivery (as Svix's "Send example", Stripe's
`trigger`)."""

from __future__ import annotations

from corridor.webhooks.catalog import EVENT_TYPES
from tests.auth.credentials import bearer, key_secret
from tests.conftest import assert_error, client_for
from tests.webhooks.support import create_endpoint, deliver, message, secret_of, verify


def _path(endpoint_id: str) -> str:
    return f"/v1/webhooks/endpoints/{endpoint_id}/test"


async def test_a_test_event_reaches_the_endpoint_signed(tenant, app, make_receiver):
    receiver, bystander = make_receiver(), make_receiver()
    created = await create_endpoint(tenant.client, receiver.url)
    await create_endpoint(tenant.client, bystander.url)  # subscribes to every type too
    secret = await secret_of(tenant.client, created["id"])

    sent = await tenant.client.post(_path(created["id"]), json={"type": "transfer.completed"})
    assert sent.status_code == 202, sent.text
    accepted = sent.json()
    assert accepted["type"] == "transfer.completed"
    assert accepted["endpointId"] == created["id"]
    assert accepted["messageId"].startswith("msg_")
    await deliver(app)

    [delivery] = receiver.received
    assert delivery.message_id == accepted["messageId"]
    payload = verify(delivery, secret)  # the standardwebhooks library's own check
    assert payload["type"] == "transfer.completed"
    assert payload["data"]["test"] is True
    assert bystander.received == []  # only the endpoint asked for
    shown = await message(tenant.client, accepted["messageId"])
    assert shown["eventType"] == "transfer.completed" and "test" in shown["tags"]


async def test_an_unknown_type_is_a_422_naming_the_catalog(tenant):
    created = await create_endpoint(tenant.client, "https://example.com/hooks")
    refused = await tenant.client.post(_path(created["id"]), json={"type": "transfer.teleported"})
    body = assert_error(refused, 422, "validation_error")
    [error] = body["errors"]
    assert error["field"] == "type"
    assert all(event_type in error["message"] for event_type in EVENT_TYPES)
    for bad in ({}, {"type": "Not a type"}, {"type": 7}):
        assert_error(
            await tenant.client.post(_path(created["id"]), json=bad), 422, "validation_error"
        )


async def test_an_endpoint_not_subscribed_to_the_type_is_a_409(tenant):
    created = await create_endpoint(
        tenant.client, "https://example.com/hooks", eventTypes=["transfer.completed"]
    )
    refused = await tenant.client.post(_path(created["id"]), json={"type": "deposit.received"})
    assert_error(refused, 409, "conflict")
    assert_error(
        await tenant.client.post(
            _path("ep_01jd3x0p6x9e3k2v1m8q4r7s5t"), json={"type": "agent.created"}
        ),
        404,
        "not_found",
    )


async def test_it_needs_the_webhooks_manage_scope(tenant, app):
    created = await create_endpoint(tenant.client, "https://example.com/hooks")
    other_scopes = await key_secret(tenant, ["customers:write", "transfers:write"])
    async with client_for(app, bearer(other_scopes)) as client:
        refused = await client.post(_path(created["id"]), json={"type": "agent.created"})
        assert_error(refused, 403, "forbidden")
    manager = await key_secret(tenant, ["webhooks:manage"])
    async with client_for(app, bearer(manager)) as client:
        sent = await client.post(_path(created["id"]), json={"type": "agent.created"})
        assert sent.status_code == 202, sent.text


async def test_production_refuses_it_as_every_sandbox_operation(production_app, make_tenant):
    tenant = await make_tenant(production_app)
    refused = await tenant.client.post(
        _path("ep_01jd3x0p6x9e3k2v1m8q4r7s5t"), json={"type": "transfer.completed"}
    )
    assert_error(refused, 403, "sandbox_only")
    listed = await tenant.client.get("/v1/webhooks/messages")
    assert listed.status_code == 200
    assert [item for item in listed.json()["data"] if "test" in item["tags"]] == []
