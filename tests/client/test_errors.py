"""Refusals arrive as typed exceptions carrying status, code, request id and field errors."""

from __future__ import annotations

import pydantic
import pytest

from corridor_client import (
    AsyncCorridor,
    AuthenticationError,
    Corridor,
    CorridorError,
    InvalidStateError,
    NotFoundError,
    RequestValidationError,
    ResponseValidationError,
    ValidationError,
)
from corridor_client.errors import ConflictError, InsufficientFundsError
from tests.client.scripted_server import Answer, ScriptedServer
from tests.client.support import BANK_ACCOUNT, ach_payout, funded_payer
from tests.live_server import LiveServer, free_port

UNKNOWN_TRANSFER = "tfr_01jd3x0p6x9e3k2v1m8q4r7s5t"


def test_an_unknown_id_raises_not_found(corridor: Corridor):
    with pytest.raises(NotFoundError) as raised:
        corridor.transfers.retrieve(UNKNOWN_TRANSFER)

    error = raised.value
    assert (error.status, error.code) == (404, "not_found")
    assert error.request_id.startswith("req_")
    assert error.request_id == error.headers["x-request-id"]
    assert UNKNOWN_TRANSFER in error.message and error.request_id in str(error)


async def test_the_async_client_raises_the_same_errors(async_corridor: AsyncCorridor):
    with pytest.raises(NotFoundError):
        await async_corridor.agents.retrieve("agt_01jd3x0p6x9e3k2v1m8q4r7s5t")


def test_a_field_the_server_refuses_raises_validation_error_with_the_field(corridor: Corridor):
    payer = funded_payer(corridor)
    with pytest.raises(ValidationError) as raised:
        corridor.external_accounts.create(
            customer_id=payer.customer.id, **{**BANK_ACCOUNT, "routing_number": "021000022"}
        )

    error = raised.value
    assert (error.status, error.code) == (422, "validation_error")
    assert [field_error.field for field_error in error.errors] == ["routingNumber"]
    assert error.errors[0].message


def test_a_wrong_key_raises_authentication_error(live: LiveServer):
    with Corridor(api_key="sk_sandbox_not_a_key", base_url=live.base_url) as stranger:
        with pytest.raises(AuthenticationError) as raised:
            stranger.organizations.current()

    assert (raised.value.status, raised.value.code) == (401, "unauthorized")
    assert isinstance(raised.value, CorridorError)


def test_a_call_the_state_forbids_raises_invalid_state_with_the_status(corridor: Corridor):
    payer = funded_payer(corridor)
    transfer = corridor.transfers.create(ach_payout(payer, "1000", confirm=True))
    corridor.sandbox.complete_transfer(transfer.id)

    with pytest.raises(InvalidStateError) as raised:
        corridor.transfers.cancel(transfer.id, reason="too late")

    assert raised.value.current_status == "COMPLETED"
    assert isinstance(raised.value, ConflictError) and raised.value.status == 409


def test_a_payout_over_the_balance_raises_insufficient_funds(corridor: Corridor):
    payer = funded_payer(corridor, funds_minor="1000")
    with pytest.raises(InsufficientFundsError) as raised:
        corridor.transfers.create(ach_payout(payer, "1001", confirm=True))

    assert raised.value.code == "insufficient_funds"
    assert not list(corridor.customers.list_transfers(payer.customer.id))  # nothing created


def test_a_body_that_does_not_match_the_schema_is_refused_before_sending():
    # Nothing listens on that port: a request sent would fail with a connection error.
    nowhere = f"http://127.0.0.1:{free_port()}"
    with Corridor(api_key="k", base_url=nowhere) as corridor:
        with pytest.raises(RequestValidationError, match="cusomer_id"):
            corridor.transfers.create(
                cusomer_id="cus_1",
                source={"account_id": "acc_1"},
                destination={"account_id": "acc_2"},
                amount={"currency": "USD", "value": "100"},
            )
        with pytest.raises(TypeError, match="not both"):
            corridor.transfers.update("tfr_1", {"remarks": "a"}, remarks="b")


async def test_a_request_refused_before_sending_is_a_corridor_validation_error():
    """It used to be pydantic's own ValidationError: not a CorridorError, and a namesake
    of corridor_client.ValidationError that `except ValidationError` did not catch."""
    nowhere = f"http://127.0.0.1:{free_port()}"
    with Corridor(api_key="k", base_url=nowhere) as corridor:
        with pytest.raises(ValidationError) as raised:
            corridor.counterparties.create(customer_id="cus_1", address={"city": "Austin"})
    async with AsyncCorridor(api_key="k", base_url=nowhere) as async_corridor:
        with pytest.raises(RequestValidationError):
            await async_corridor.counterparties.create(customer_id="cus_1")

    error = raised.value
    assert isinstance(error, CorridorError) and not isinstance(error, pydantic.ValidationError)
    assert (error.status, error.code, error.request_id) == (None, "validation_error", None)
    fields = {field_error.field: field_error.message for field_error in error.errors}
    assert fields["beneficiaryType"] == "Field required"
    assert "address.countryCode" in fields or "address.country" in fields
    assert "CounterpartyCreate not sent" in str(error) and "beneficiaryType" in str(error)


def test_an_answer_the_models_cannot_read_is_a_corridor_error():
    """A server answering what the SDK's models do not expect (another version, a proxy)
    used to raise pydantic's ValidationError from deep inside the client."""
    answer = Answer(status=200, body={"status": "ok"}, headers={"x-request-id": "req_odd"})
    server = ScriptedServer(answer)
    try:
        with Corridor(api_key="sk_sandbox_test", base_url=server.base_url) as corridor:
            with pytest.raises(ResponseValidationError) as raised:
                corridor.health()
    finally:
        server.close()

    error = raised.value
    assert isinstance(error, CorridorError)
    assert (error.status, error.code, error.request_id) == (200, "invalid_response", "req_odd")
    assert "database" in [field_error.field for field_error in error.errors]
    assert error.body == {"status": "ok"}


async def test_a_client_without_a_key_fails_at_once_and_sends_nothing(
    monkeypatch: pytest.MonkeyPatch, live: LiveServer
):
    monkeypatch.delenv("CORRIDOR_API_KEY", raising=False)
    server = ScriptedServer()
    try:
        with Corridor(base_url=server.base_url) as keyless:
            with pytest.raises(AuthenticationError) as raised:
                keyless.customers.list().first_page()
        async with AsyncCorridor(base_url=server.base_url) as keyless_async:
            with pytest.raises(AuthenticationError):
                await keyless_async.transfers.retrieve(UNKNOWN_TRANSFER)
    finally:
        server.close()
    assert server.requests == []
    assert raised.value.code == "no_api_key" and "CORRIDOR_API_KEY" in raised.value.message
    # What needs no credentials still works without a key.
    with Corridor(base_url=live.base_url) as keyless:
        assert keyless.health().status == "ok"


def test_connected_apps_are_read_and_an_unknown_one_is_not_found(corridor: Corridor):
    assert list(corridor.oauth_grants.list()) == []
    unknown = "oag_01jd3x0p6x9e3k2v1m8q4r7s5t"
    with pytest.raises(NotFoundError):
        corridor.oauth_grants.retrieve(unknown)
    with pytest.raises(NotFoundError):
        corridor.oauth_grants.revoke(unknown)
    with pytest.raises(NotFoundError):
        corridor.oauth_grants.update(unknown, tool_confirmation="always")
