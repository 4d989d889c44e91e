"""Failure, cancellation, review and authorization: where the transfer goes and where
its money goes."""

from __future__ import annotations

import pytest

from corridor.auth import service as auth_service
from corridor.rails.base import RailName, RailStatus
from tests.auth.credentials import bearer, console_token, key_secret
from tests.conftest import assert_error, client_for
from tests.parties.helpers import EVM_ADDRESS
from tests.transfers.conftest import (
    Customer,
    ScriptedAdapter,
    act,
    amount,
    assert_books_balance,
    create,
    event_types,
    fetch,
    make_customer,
    settle,
)


async def _payout(tenant, customer: Customer, *, value: int = 10_000, **extra) -> dict:
    external = await customer.bank_account()
    return await create(
        tenant.client,
        {
            "customerId": customer.id,
            "source": {"accountId": customer.accounts["USD"]},
            "destination": {"externalAccountId": external, "paymentRail": "ACH", "currency": "USD"},
            "amount": amount("USD", value),
            **extra,
        },
    )


async def _crypto_deposit_flow(client, customer: Customer, **source) -> dict:
    wallet = await customer.wallet()
    return await create(
        client,
        {
            "customerId": customer.id,
            "source": {"currency": "USDC", "paymentRail": "ETHEREUM", **source},
            "destination": {"externalAccountId": wallet, "currency": "USDC"},
            "amount": amount("USDC", 5_000_000),
        },
    )


async def _deposit(client, transfer: dict, value: int) -> dict:
    instructions = transfer["depositInstructions"]
    response = await client.post(
        "/v1/sandbox/deposits",
        json={
            "paymentRail": instructions["paymentRail"],
            "amount": amount(instructions["amount"]["currency"], value),
            "toAddress": instructions["toAddress"],
        },
    )
    assert response.status_code == 201, response.text
    return response.json()


# --- Failures ----------------------------------------------------------------------------


async def test_a_failed_payout_unwinds_fee_and_conversion_back_to_the_source(app, tenant, customer):
    await customer.fund("USDC", 100_000_000)
    external = await customer.bank_account()
    transfer = await create(
        tenant.client,
        {
            "customerId": customer.id,
            "source": {"accountId": customer.accounts["USDC"]},
            "destination": {
                "externalAccountId": external,
                "paymentRail": "WIRE",
                "currency": "USD",
            },
            "amount": amount("USDC", 20_000_000),
            "developerFee": {"fixed": "1000000", "percent": 0},
            "confirm": True,
        },
    )
    for _ in range(3):  # debit, fee, conversion
        current = (await fetch(tenant.client, transfer["id"]))["currentLegIndex"]
        leg = transfer["legs"][current]
        forced = await tenant.client.post(
            f"/v1/sandbox/transfers/{transfer['id']}/legs/{leg['id']}/status",
            json={"status": "COMPLETED"},
        )
        assert forced.status_code == 200, forced.text
    payout = transfer["legs"][3]
    failed = await tenant.client.post(
        f"/v1/sandbox/transfers/{transfer['id']}/legs/{payout['id']}/status",
        json={"status": "FAILED", "reason": "Account closed"},
    )
    assert failed.status_code == 200, failed.text
    body = failed.json()
    assert body["status"] == "FAILED" and body["currentLegIndex"] is None
    assert [leg["status"] for leg in body["legs"]] == ["COMPLETED"] * 3 + ["FAILED"]
    assert body["legs"][3]["failureReason"] == "Account closed"
    assert "Account closed" in body["systemRemark"]
    assert await customer.balance("USDC") == {
        "available": 100_000_000,
        "pending": 0,
        "total": 100_000_000,
    }
    systems = await assert_books_balance(app, tenant.organization_id)
    assert systems["FEES:USDC"] == 0 and systems["FX:USDC"] == 0 and systems["FX:USD"] == 0
    assert systems["CLEARING:USDC"] == 0 and systems["CLEARING:USD"] == 0
    assert (await event_types(app, tenant.organization_id, transfer["id"]))[-1] == (
        "transfer.failed"
    )
    await settle(app, tenant.organization_id)
    assert (await fetch(tenant.client, transfer["id"]))["status"] == "FAILED"


async def test_a_rail_reporting_failure_fails_the_transfer_and_releases_nothing_twice(
    app, tenant, customer, install_rail
):
    install_rail(ScriptedAdapter(RailName.ACH, [RailStatus.PENDING, RailStatus.FAILED]))
    await customer.fund("USD", 10_000)
    transfer = await _payout(tenant, customer, value=10_000, confirm=True)
    assert (await customer.balance("USD"))["available"] == 0
    await settle(app, tenant.organization_id)
    waiting = await fetch(tenant.client, transfer["id"])
    # The rail said PENDING: the payout waits for the next poll, not the engine's next pass.
    assert waiting["status"] == "PROCESSING" and waiting["legs"][1]["status"] == "PROCESSING"
    assert waiting["currentLegIndex"] == 1
    app.state.clock.set(app.state.clock.now().replace(year=app.state.clock.now().year + 1))
    try:
        await settle(app, tenant.organization_id)
    finally:
        app.state.clock.reset()
    done = await fetch(tenant.client, transfer["id"])
    assert done["status"] == "FAILED"
    assert await customer.balance("USD") == {"available": 10_000, "pending": 0, "total": 10_000}
    await assert_books_balance(app, tenant.organization_id)


async def test_an_unreachable_rail_is_retried_then_the_leg_fails(
    app, tenant, customer, install_rail, clock
):
    install_rail(ScriptedAdapter(RailName.ACH, [], raises=True))
    await customer.fund("USD", 10_000)
    transfer = await _payout(tenant, customer, value=4_000, confirm=True)
    start = clock.now()
    for attempt in range(5):
        clock.set(start.replace(year=start.year + 1 + attempt))
        await settle(app, tenant.organization_id)
    done = await fetch(tenant.client, transfer["id"])
    assert done["status"] == "FAILED"
    assert "unreachable" in done["legs"][1]["failureReason"]
    assert (await customer.balance("USD"))["available"] == 10_000
    await assert_books_balance(app, tenant.organization_id)


async def test_a_failed_crypto_deposit_flow_sends_funds_back_to_the_sender(app, tenant, customer):
    transfer = await _crypto_deposit_flow(tenant.client, customer, fromAddress=EVM_ADDRESS)
    submitted = await act(tenant.client, transfer["id"], "submit")
    await _deposit(tenant.client, submitted, 5_000_000)
    payout = submitted["legs"][1]
    failed = await tenant.client.post(
        f"/v1/sandbox/transfers/{transfer['id']}/legs/{payout['id']}/status",
        json={"status": "FAILED"},
    )
    assert failed.json()["status"] == "FAILED"
    assert EVM_ADDRESS in failed.json()["systemRemark"]
    assert failed.json()["refund"]["status"] == "PENDING"  # a REFUND_CRYPTO transfer sends it
    systems = await assert_books_balance(app, tenant.organization_id)
    assert systems["CLEARING:USDC"] == 5_000_000  # waiting for the refund's rail
    await settle(app, tenant.organization_id)
    assert (await fetch(tenant.client, transfer["id"]))["refund"]["status"] == "COMPLETED"
    systems = await assert_books_balance(app, tenant.organization_id)
    assert systems["RAIL_SETTLEMENT:USDC"] == 0 and systems["CLEARING:USDC"] == 0


# --- Cancellation --------------------------------------------------------------------------


async def test_cancel_a_draft_and_it_stays_cancelled(app, tenant, customer):
    transfer = await _payout(tenant, customer)
    cancelled = await act(tenant.client, transfer["id"], "cancel", {"reason": "typo"})
    assert cancelled["status"] == "CANCELLED"
    assert cancelled["cancellation"]["reason"] == "typo"
    assert cancelled["cancellation"]["actor"].startswith("key_")
    assert cancelled["cancellation"]["cancelledAt"].endswith("Z")
    assert all(leg["status"] == "CANCELLED" for leg in cancelled["legs"])
    again = await tenant.client.post(f"/v1/transfers/{transfer['id']}/cancel")
    assert assert_error(again, 409, "invalid_state")["currentStatus"] == "CANCELLED"
    submit = await tenant.client.post(f"/v1/transfers/{transfer['id']}/submit")
    assert_error(submit, 409, "invalid_state")


async def test_cancel_a_pending_payout_releases_its_hold(app, tenant, customer):
    await customer.fund("USD", 10_000)
    transfer = await _payout(tenant, customer, value=6_000, confirm=True)
    assert (await customer.balance("USD"))["available"] == 4_000
    cancelled = await act(tenant.client, transfer["id"], "cancel")
    assert cancelled["status"] == "CANCELLED" and "cancellation" in cancelled
    assert (await customer.balance("USD"))["available"] == 10_000
    assert await settle(app, tenant.organization_id) == 0
    await assert_books_balance(app, tenant.organization_id)


async def test_cancel_once_processing_is_refused(app, tenant, customer):
    await customer.fund("USD", 10_000)
    transfer = await _payout(tenant, customer, confirm=True)
    forced = await tenant.client.post(
        f"/v1/sandbox/transfers/{transfer['id']}/legs/{transfer['legs'][0]['id']}/status",
        json={"status": "COMPLETED"},
    )
    assert forced.json()["status"] == "PROCESSING"
    refused = await tenant.client.post(f"/v1/transfers/{transfer['id']}/cancel")
    assert assert_error(refused, 409, "invalid_state")["currentStatus"] == "PROCESSING"


async def test_insufficient_funds_at_submit_leaves_the_draft(app, tenant, customer):
    await customer.fund("USD", 999)
    transfer = await _payout(tenant, customer, value=1_000)
    refused = await tenant.client.post(f"/v1/transfers/{transfer['id']}/submit")
    body = assert_error(refused, 409, "insufficient_funds")
    assert body["available"]["value"] == "999"
    assert (await fetch(tenant.client, transfer["id"]))["status"] == "DRAFT"
    with_confirm = await tenant.client.post(
        "/v1/transfers",
        json={
            "customerId": customer.id,
            "source": {"accountId": customer.accounts["USD"]},
            "destination": {"accountId": customer.accounts["USD"]},
            "amount": amount("USD", 5_000),
            "confirm": True,
        },
    )
    assert_error(with_confirm, 409, "insufficient_funds")
    listed = await tenant.client.get("/v1/transfers")
    assert [item["id"] for item in listed.json()["data"]] == [transfer["id"]]


# --- Review (platform sessions) -----------------------------------------------------------


@pytest.fixture
async def platform(make_tenant, app):
    """A PLATFORM organization: its key is a platform session; its console reviews."""
    tenant = await make_tenant(kind="PLATFORM")
    console = client_for(app, bearer(await console_token(tenant)))
    customer = await make_customer(console)
    session = client_for(app, {**tenant.headers(), "X-Corridor-On-Behalf-Of": customer.id})
    yield tenant, console, session, customer
    await console.aclose()
    await session.aclose()


async def test_platform_session_transfers_wait_in_review_until_approved(app, platform):
    tenant, console, session, customer = platform
    await customer.fund("USD", 10_000)
    transfer = await create(
        session,
        {
            "source": {"accountId": customer.accounts["USD"]},
            "destination": {"accountId": customer.accounts["USD"]},
            "amount": amount("USD", 2_500),
            "confirm": True,
        },
    )
    assert transfer["status"] == "IN_REVIEW" and transfer["sourceCustomerId"] == customer.id
    assert (await customer.balance("USD"))["available"] == 7_500  # held while in review
    assert await settle(app, tenant.organization_id) == 0
    by_key = await session.post(
        f"/v1/transfers/{transfer['id']}/review", json={"decision": "APPROVE"}
    )
    assert_error(by_key, 403, "forbidden")
    approved = await act(console, transfer["id"], "review", {"decision": "APPROVE"})
    assert approved["status"] == "PENDING"
    assert approved["review"]["decision"] == "APPROVE"
    await settle(app, tenant.organization_id)
    assert (await fetch(console, transfer["id"]))["status"] == "COMPLETED"
    await assert_books_balance(app, tenant.organization_id)


async def test_review_reject_fails_the_transfer_and_releases_the_hold(app, platform):
    _tenant, console, session, customer = platform
    await customer.fund("USD", 10_000)
    transfer = await create(
        session,
        {
            "source": {"accountId": customer.accounts["USD"]},
            "destination": {"accountId": customer.accounts["USD"]},
            "amount": amount("USD", 2_500),
            "confirm": True,
        },
    )
    rejected = await act(
        console, transfer["id"], "review", {"decision": "REJECT", "reason": "sanctions hit"}
    )
    assert rejected["status"] == "FAILED" and "sanctions hit" in rejected["systemRemark"]
    assert (await customer.balance("USD"))["available"] == 10_000
    again = await console.post(
        f"/v1/transfers/{transfer['id']}/review", json={"decision": "APPROVE"}
    )
    assert_error(again, 409, "invalid_state")


async def test_cancel_in_review_after_crypto_arrived_without_refund_address_credits_balance(
    app, platform
):
    tenant, _console, session, customer = platform
    transfer = await _crypto_deposit_flow(session, customer)
    submitted = await act(session, transfer["id"], "submit")
    assert submitted["status"] == "IN_REVIEW" and submitted["fundingNeeded"] is True
    await _deposit(session, submitted, 5_000_000)
    in_review = await fetch(session, transfer["id"])
    assert in_review["status"] == "IN_REVIEW" and in_review["fundingNeeded"] is False
    cancelled = await act(session, transfer["id"], "cancel")
    assert cancelled["status"] == "CANCELLED"
    assert (await customer.balance("USDC"))["available"] == 5_000_000
    await assert_books_balance(app, tenant.organization_id)


async def test_cancel_in_review_after_crypto_arrived_with_refund_address_reverses(app, platform):
    tenant, _console, session, customer = platform
    transfer = await _crypto_deposit_flow(session, customer, fromAddress=EVM_ADDRESS)
    submitted = await act(session, transfer["id"], "submit")
    await _deposit(session, submitted, 5_000_000)
    cancelled = await act(session, transfer["id"], "cancel", {"reason": "changed mind"})
    assert cancelled["status"] == "REVERSED"
    assert EVM_ADDRESS in cancelled["systemRemark"]
    assert (await customer.balance("USDC"))["available"] == 0
    assert cancelled["refund"]["reason"] == "cancelled: changed mind"
    await settle(app, tenant.organization_id)
    systems = await assert_books_balance(app, tenant.organization_id)
    assert systems["RAIL_SETTLEMENT:USDC"] == 0  # in and back out by the REFUND_CRYPTO
    types = await event_types(app, tenant.organization_id, transfer["id"])
    assert "transfer.reversed" in types


async def test_review_approve_after_funds_arrived_goes_straight_to_processing(app, platform):
    tenant, console, session, customer = platform
    transfer = await _crypto_deposit_flow(session, customer)
    submitted = await act(session, transfer["id"], "submit")
    await _deposit(session, submitted, 5_000_000)
    approved = await act(console, transfer["id"], "review", {"decision": "APPROVE"})
    assert approved["status"] == "PROCESSING"
    await settle(app, tenant.organization_id)
    assert (await fetch(console, transfer["id"]))["status"] == "COMPLETED"
    await assert_books_balance(app, tenant.organization_id)


# --- Authorization above the threshold ----------------------------------------------------


@pytest.fixture
async def console(app, tenant):
    async with client_for(app, bearer(await console_token(tenant))) as client:
        threshold = await client.patch(
            "/v1/organizations/current/configuration",
            json={"transferAuthorizationThreshold": amount("USD", 5_000)},
        )
        assert threshold.status_code == 200, threshold.text
        yield client


async def test_a_transfer_over_the_threshold_waits_for_a_second_person(
    app, tenant, customer, console
):
    await customer.fund("USD", 20_000)
    under = await _payout(tenant, customer, value=5_000, confirm=True)
    assert under["status"] == "PENDING"
    over = await _payout(tenant, customer, value=5_001, confirm=True)
    assert over["status"] == "PENDING_AUTHORIZATION"
    assert (await customer.balance("USD"))["available"] == 20_000 - 10_001
    await settle(app, tenant.organization_id)
    assert (await fetch(tenant.client, over["id"]))["status"] == "PENDING_AUTHORIZATION"
    by_key = await tenant.client.post(
        f"/v1/transfers/{over['id']}/authorize", json={"decision": "APPROVE"}
    )
    assert_error(by_key, 403, "forbidden")
    approved = await act(console, over["id"], "authorize", {"decision": "APPROVE"})
    assert approved["status"] == "PENDING"
    assert approved["authorization"]["actor"].startswith("usr_")
    await settle(app, tenant.organization_id)
    assert (await fetch(tenant.client, over["id"]))["status"] == "COMPLETED"
    await assert_books_balance(app, tenant.organization_id)


async def test_the_submitter_cannot_authorize_and_a_rejection_cancels(
    app, tenant, customer, console
):
    await customer.fund("USD", 20_000)
    external = await customer.bank_account()
    transfer = await create(
        console,
        {
            "customerId": customer.id,
            "source": {"accountId": customer.accounts["USD"]},
            "destination": {"externalAccountId": external, "paymentRail": "ACH", "currency": "USD"},
            "amount": amount("USD", 9_000),
            "confirm": True,
        },
    )
    assert transfer["status"] == "PENDING_AUTHORIZATION"
    own = await console.post(
        f"/v1/transfers/{transfer['id']}/authorize", json={"decision": "APPROVE"}
    )
    assert_error(own, 403, "forbidden")
    other_session = await console_token(tenant)  # the same user, in a new session
    async with client_for(app, bearer(other_session)) as again:
        still_own = await again.post(
            f"/v1/transfers/{transfer['id']}/authorize", json={"decision": "REJECT"}
        )
        assert_error(still_own, 403, "forbidden")
    restricted = bearer(await key_secret(tenant, ["transfers:write"]))
    async with client_for(app, restricted) as key_client:
        assert_error(
            await key_client.post(
                f"/v1/transfers/{transfer['id']}/authorize", json={"decision": "REJECT"}
            ),
            403,
            "forbidden",
        )
    async with client_for(app, bearer(await second_console_user(app, tenant))) as second:
        rejected = await act(
            second, transfer["id"], "authorize", {"decision": "REJECT", "reason": "too large"}
        )
    assert rejected["status"] == "CANCELLED"
    assert rejected["cancellation"]["reason"] == "too large"
    assert rejected["authorization"]["decision"] == "REJECT"
    assert (await customer.balance("USD"))["available"] == 20_000
    await assert_books_balance(app, tenant.organization_id)


async def second_console_user(app, tenant) -> str:
    """Another console user of the tenant's organization, signed in; its session token."""
    email, password = f"second-{tenant.organization_id}@example.com", "correct horse battery"
    async with app.state.database.session() as session, session.begin():
        await auth_service.create_console_user(
            session,
            organization_id=tenant.organization_id,
            email=email,
            password=password,
            now=app.state.clock.now(),
        )
    response = await tenant.client.post(
        "/v1/console/sessions", json={"email": email, "password": password}
    )
    assert response.status_code == 201, response.text
    return response.json()["token"]
