"""Retries against a real local HTTP server that answers from a script: which requests
are sent again, with which Idempotency-Key, after how long, and when the SDK gives up."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from corridor_client import (
    APIConnectionError,
    AsyncCorridor,
    Corridor,
    RateLimitError,
    RetryPolicy,
)
from corridor_client.errors import ServiceUnavailableError
from tests.client.scripted_server import DROP, Answer, ScriptedServer, error
from tests.live_server import free_port

ACCEPTANCE = {
    "id": "tos_01jd3x0p6x9e3k2v1m8q4r7s5t",
    "status": "PENDING",
    "version": "2024-01",
    "createdAt": "2026-01-01T00:00:00.000Z",
}
HEALTH = {"status": "ok", "database": "ok", "environment": "sandbox", "version": "0.1.0"}
# Waits short enough for a test, still real.
QUICK = RetryPolicy(attempts_max=4, wait_total_max_s=10, backoff_initial_s=0.01)


@pytest.fixture
def scripted() -> Iterator[list[ScriptedServer]]:
    made: list[ScriptedServer] = []
    yield made
    for server in made:
        server.close()


def _serve(scripted: list[ScriptedServer], *answers: Answer) -> ScriptedServer:
    scripted.append(ScriptedServer(*answers))
    return scripted[-1]


def _client(server: ScriptedServer, policy: RetryPolicy = QUICK) -> Corridor:
    return Corridor(api_key="sk_sandbox_test", base_url=server.base_url, retry_policy=policy)


def test_a_create_is_sent_again_after_503_retry_after_with_the_same_key(scripted):
    server = _serve(
        scripted, error(503, "unavailable", **{"Retry-After": "1"}), Answer(201, ACCEPTANCE)
    )
    with _client(server) as corridor:
        acceptance = corridor.terms_of_service.create()

    assert acceptance.id == ACCEPTANCE["id"]
    first, second = server.requests
    assert first.headers["idempotency-key"] == second.headers["idempotency-key"]
    assert acceptance.last_response.idempotency_key == first.headers["idempotency-key"]
    assert second.arrived_s - first.arrived_s >= 1.0  # Retry-After honoured


async def test_a_read_is_sent_again_after_429_retry_after(scripted):
    server = _serve(
        scripted, error(429, "rate_limited", **{"Retry-After": "1"}), Answer(200, HEALTH)
    )
    async with AsyncCorridor(api_key="k", base_url=server.base_url, retry_policy=QUICK) as corridor:
        health = await corridor.health()

    assert health.status == "ok"
    first, second = server.requests
    assert "idempotency-key" not in first.headers
    assert second.arrived_s - first.arrived_s >= 1.0


def test_idempotency_key_in_progress_is_waited_out(scripted):
    server = _serve(
        scripted,
        error(409, "idempotency_key_in_progress", **{"Retry-After": "0"}),
        Answer(201, ACCEPTANCE),
    )
    with _client(server) as corridor:
        corridor.terms_of_service.create(idempotency_key="tos-1")

    assert [request.headers["idempotency-key"] for request in server.requests] == ["tos-1"] * 2


def test_a_retry_after_beyond_the_wait_budget_raises_at_once(scripted):
    server = _serve(scripted, error(429, "rate_limited", **{"Retry-After": "3600"}))
    with _client(server) as corridor, pytest.raises(RateLimitError) as raised:
        corridor.health()

    assert len(server.requests) == 1
    assert raised.value.retry_after_s == 3600
    assert (raised.value.status, raised.value.code) == (429, "rate_limited")


def test_attempts_are_bounded_and_the_last_error_is_raised(scripted):
    server = _serve(scripted, *[error(503, "unavailable", **{"Retry-After": "0"})] * 5)
    with _client(server) as corridor, pytest.raises(ServiceUnavailableError):
        corridor.transfers.submit("tfr_1", idempotency_key="submit-1")

    assert len(server.requests) == QUICK.attempts_max


def test_an_action_without_a_key_is_never_sent_twice(scripted):
    server = _serve(scripted, error(503, "unavailable", **{"Retry-After": "0"}), DROP)
    with _client(server) as corridor:
        with pytest.raises(ServiceUnavailableError):
            corridor.transfers.submit("tfr_1")
        with pytest.raises(APIConnectionError):
            corridor.transfers.submit("tfr_1")

    assert len(server.requests) == 2  # one each
    assert all("idempotency-key" not in request.headers for request in server.requests)


def test_a_connection_dropped_mid_create_is_retried_with_the_same_key(scripted):
    server = _serve(scripted, DROP, Answer(201, ACCEPTANCE))
    with _client(server) as corridor:
        corridor.terms_of_service.create()

    first, second = server.requests
    assert first.headers["idempotency-key"] == second.headers["idempotency-key"]


async def test_a_refused_connection_is_retried_up_to_attempts_max():
    nobody = f"http://127.0.0.1:{free_port()}"
    policy = RetryPolicy(attempts_max=3, backoff_initial_s=0.01)
    async with AsyncCorridor(api_key="k", base_url=nobody, retry_policy=policy) as corridor:
        with pytest.raises(APIConnectionError, match=r"after 3 attempt"):
            await corridor.transfers.submit("tfr_1")  # nothing was sent: safe even unkeyed
