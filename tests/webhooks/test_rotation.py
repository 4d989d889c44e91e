"""Secret rotation: for 24 hours deliveries carry a signature with the old secret and one with
the new, so receivers holding either verify; afterwards only the new secret verifies."""

from __future__ import annotations

from datetime import timedelta

import pytest
from standardwebhooks.webhooks import WebhookVerificationError

from corridor.webhooks.signing import new_secret
from tests.conftest import assert_error
from tests.webhooks.support import create_endpoint, deliver, emit_events, secret_of, verify


def _rotate_path(endpoint_id: str) -> str:
    return f"/v1/webhooks/endpoints/{endpoint_id}/secret/rotate"


async def test_rotation_answers_the_new_secret_which_is_then_current(tenant):
    created = await create_endpoint(tenant.client, "https://example.com/hooks")
    old = await secret_of(tenant.client, created["id"])
    rotated = await tenant.client.post(_rotate_path(created["id"]))
    assert rotated.status_code == 200, rotated.text
    new = rotated.json()["key"]
    assert new.startswith("whsec_") and new != old
    assert await secret_of(tenant.client, created["id"]) == new


async def test_rotation_to_a_chosen_secret(tenant):
    created = await create_endpoint(tenant.client, "https://example.com/hooks")
    chosen = new_secret()
    rotated = await tenant.client.post(_rotate_path(created["id"]), json={"key": chosen})
    assert rotated.json() == {"key": chosen}
    again = await tenant.client.post(_rotate_path(created["id"]), json={"key": chosen})
    assert_error(again, 422, "validation_error")
    bad = await tenant.client.post(_rotate_path(created["id"]), json={"key": "whsec_!!"})
    assert_error(bad, 422, "validation_error")


async def test_during_the_grace_period_old_and_new_secrets_both_verify(tenant, app, receiver):
    created = await create_endpoint(tenant.client, receiver.url)
    old = await secret_of(tenant.client, created["id"])
    new = (await tenant.client.post(_rotate_path(created["id"]))).json()["key"]
    await emit_events(app, tenant.organization_id)
    await deliver(app)

    [delivery] = receiver.received
    assert len(delivery.headers["webhook-signature"].split(" ")) == 2
    assert verify(delivery, old) == verify(delivery, new)
    with pytest.raises(WebhookVerificationError):
        verify(delivery, new_secret())


async def test_after_24_hours_only_the_new_secret_verifies(tenant, app, receiver, clock):
    created = await create_endpoint(tenant.client, receiver.url)
    old = await secret_of(tenant.client, created["id"])
    clock.set(clock.now() - timedelta(hours=24, seconds=1))
    new = (await tenant.client.post(_rotate_path(created["id"]))).json()["key"]
    clock.reset()
    await emit_events(app, tenant.organization_id)
    await deliver(app)

    [delivery] = receiver.received
    assert len(delivery.headers["webhook-signature"].split(" ")) == 1
    verify(delivery, new)
    with pytest.raises(WebhookVerificationError):
        verify(delivery, old)


async def test_at_most_five_previous_secrets_sign_alongside_the_current(tenant, app, receiver):
    created = await create_endpoint(tenant.client, receiver.url)
    secrets = [await secret_of(tenant.client, created["id"])]
    for _ in range(6):
        secrets.append((await tenant.client.post(_rotate_path(created["id"]))).json()["key"])
    await emit_events(app, tenant.organization_id)
    await deliver(app)

    [delivery] = receiver.received
    assert len(delivery.headers["webhook-signature"].split(" ")) == 6
    for secret in secrets[1:]:
        verify(delivery, secret)
    with pytest.raises(WebhookVerificationError):
        verify(delivery, secrets[0])


async def test_a_rotation_replays_with_its_idempotency_key(tenant):
    created = await create_endpoint(tenant.client, "https://example.com/hooks")
    headers = {"Idempotency-Key": "rotate-1"}
    first = await tenant.client.post(_rotate_path(created["id"]), headers=headers)
    again = await tenant.client.post(_rotate_path(created["id"]), headers=headers)
    assert again.headers["idempotent-replayed"] == "true"
    # The new secret is never kept in the stored answer: the replay points at GET …/secret.
    assert again.json()["key"] is None and first.json()["key"] not in again.text
    assert "GET /v1/webhooks/endpoints/{id}/secret" in again.json()["secretNote"]
    assert await secret_of(tenant.client, created["id"]) == first.json()["key"]
