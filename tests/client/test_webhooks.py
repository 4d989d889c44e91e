"""A real signed delivery, verified with the SDK's helper; webhook message history walked
with its `iterator`/`done` pages. The server here runs its workers, so it delivers."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from corridor_client import Corridor
from corridor_client.models import CustomerRead
from corridor_client.webhooks import WebhookVerificationError, verify
from tests.conftest import BACKENDS
from tests.live_server import LiveServer, live_corridor
from tests.webhooks.support import Receiver

delivery_wait_s_max = 30


@pytest.fixture(scope="module", params=BACKENDS)
def delivering(request, tmp_path_factory) -> Iterator[LiveServer]:
    with live_corridor(
        request.param, tmp_path_factory.mktemp("sdk-webhooks"), workers=True
    ) as server:
        yield server


@pytest.fixture
def owner(delivering: LiveServer) -> Iterator[Corridor]:
    with Corridor(api_key=delivering.api_key, base_url=delivering.base_url) as client:
        yield client


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    made = Receiver()
    yield made
    made.close()


def _customer(corridor: Corridor, email: str) -> CustomerRead:
    return corridor.customers.create_business(legal_name="Acme Inc", email=email)


def test_a_real_delivery_verifies_and_reads_as_an_event(owner: Corridor, receiver: Receiver):
    endpoint = owner.webhooks.endpoints.create(url=receiver.url, event_types=["customer.created"])
    secret = owner.webhooks.endpoints.secret(endpoint.id).key
    customer = _customer(owner, "billing@acme.example")

    assert receiver.wait_for(1, timeout_s=delivery_wait_s_max)
    delivery = receiver.received[0]
    event = verify(delivery.body, delivery.headers, secret)

    assert event.type == "customer.created"
    assert event.id == delivery.headers["webhook-id"]
    assert event.data_as(CustomerRead).id == customer.id

    with pytest.raises(WebhookVerificationError):
        verify(delivery.body + b" ", delivery.headers, secret)
    with pytest.raises(WebhookVerificationError):
        verify(delivery.body, delivery.headers, "whsec_" + "A" * 43 + "=")
    with pytest.raises(WebhookVerificationError):
        verify(delivery.body, {**delivery.headers, "webhook-signature": "garbage"}, secret)


def test_message_history_is_walked_across_pages(owner: Corridor, receiver: Receiver):
    endpoint = owner.webhooks.endpoints.create(url=receiver.url, event_types=["customer.created"])
    made = [_customer(owner, f"billing{index}@acme.example").id for index in range(3)]
    assert receiver.wait_for(3, timeout_s=delivery_wait_s_max)

    history = owner.webhooks.messages.list(endpoint_id=endpoint.id, limit=1)
    pages = list(history.pages())
    assert [len(page.data) for page in pages] == [1, 1, 1]
    assert [page.done for page in pages] == [False, False, True]
    messages = list(history)
    assert [message.event_type for message in messages] == ["customer.created"] * 3
    assert [message.tags for message in messages] == [[customer_id] for customer_id in made[::-1]]


def test_a_test_event_sent_with_the_sdk_arrives_signed(owner: Corridor, receiver: Receiver):
    endpoint = owner.webhooks.endpoints.create(url=receiver.url, event_types=["deposit.received"])
    secret = owner.webhooks.endpoints.secret(endpoint.id).key
    sent = owner.webhooks.endpoints.send_test_event(endpoint.id, type="deposit.received")
    assert sent.endpoint_id == endpoint.id and sent.type == "deposit.received"

    assert receiver.wait_for(1, timeout_s=delivery_wait_s_max)
    event = verify(receiver.received[0].body, receiver.received[0].headers, secret)
    assert event.type == "deposit.received" and event.id == sent.message_id
