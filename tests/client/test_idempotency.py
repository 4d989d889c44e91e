"""Creates carry an Idempotency-Key (the caller's or a new one); the server's replay of
the first answer is visible on the object returned."""

from __future__ import annotations

import uuid

import pytest

from corridor_client import AsyncCorridor, Corridor
from corridor_client.errors import IdempotencyKeyReusedError
from tests.client.support import ach_payout, funded_payer, individual_fields


def _fields(corridor: Corridor, email: str) -> dict:
    acceptance = corridor.terms_of_service.create()
    corridor.terms_of_service.accept(acceptance.id)
    return {**individual_fields(acceptance.id), "email": email}


def test_a_create_replayed_with_its_key_returns_the_same_resource(corridor: Corridor):
    fields = _fields(corridor, email=f"{uuid.uuid4().hex}@example.com")

    first = corridor.customers.create_individual(**fields)
    key = first.last_response.idempotency_key
    assert uuid.UUID(key).version == 4  # made by the SDK
    assert first.last_response.status == 201 and not first.last_response.idempotent_replayed

    again = corridor.customers.create_individual(**fields, idempotency_key=key)
    assert again.id == first.id
    assert again.last_response.idempotent_replayed
    assert again.last_response.headers["idempotent-replayed"] == "true"
    assert [customer.id for customer in corridor.customers.list(email=fields["email"])] == [
        first.id
    ]


def test_each_create_without_a_key_gets_a_new_one(corridor: Corridor):
    first = corridor.terms_of_service.create()
    second = corridor.terms_of_service.create()

    assert first.id != second.id
    assert first.last_response.idempotency_key != second.last_response.idempotency_key


def test_a_key_reused_for_another_body_is_refused(corridor: Corridor):
    corridor.terms_of_service.create(idempotency_key="tos-reused", email="a@example.com")
    with pytest.raises(IdempotencyKeyReusedError) as raised:
        corridor.terms_of_service.create(idempotency_key="tos-reused", email="b@example.com")

    assert (raised.value.status, raised.value.code) == (409, "idempotency_key_reused")


def test_an_action_carries_a_key_only_when_given_one(corridor: Corridor):
    payer = funded_payer(corridor)
    draft = corridor.transfers.create(ach_payout(payer, "1000"))

    submitted = corridor.transfers.submit(draft.id, idempotency_key=f"submit-{draft.id}")
    replayed = corridor.transfers.submit(draft.id, idempotency_key=f"submit-{draft.id}")
    assert replayed.last_response.idempotent_replayed and replayed.status == submitted.status

    cancelled = corridor.transfers.cancel(draft.id, reason="changed my mind")
    assert cancelled.last_response.idempotency_key is None


def test_secret_issuing_creates_send_no_key_of_their_own(corridor: Corridor):
    created = corridor.api_keys.create(name="reporting", scopes=["customers:read"])

    assert created.secret.startswith("sk_sandbox_")
    assert created.last_response.idempotency_key is None
    corridor.api_keys.revoke(created.id)


async def test_the_async_client_replays_too(async_corridor: AsyncCorridor):
    first = await async_corridor.terms_of_service.create()
    again = await async_corridor.terms_of_service.create(
        idempotency_key=first.last_response.idempotency_key
    )

    assert again.id == first.id and again.last_response.idempotent_replayed
