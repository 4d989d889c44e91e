"""The customer status machine over HTTP: submission, sandbox decisions, events, accounts."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from corridor.models.ledger import LedgerAccount
from tests.conftest import assert_error, client_for
from tests.customers.helpers import add_entity, create_business, events_of
from tests.support import activate, active_customer, create_individual, set_verification_status


async def _set_status(client, customer_id: str, status: str, reason: str | None = None):
    body = {"status": status} | ({"reason": reason} if reason else {})
    return await client.post(f"/v1/sandbox/customers/{customer_id}/verification-status", json=body)


async def _statuses_changed(app, tenant, customer_id: str) -> list[str]:
    events = await events_of(app, tenant.organization_id, "customer.status_changed")
    return [event.data["status"] for event in events if customer_id in event.tags]


# --- Submission ---------------------------------------------------------------------------


async def test_submit_with_every_requirement_met_goes_under_review(app, tenant):
    customer = await create_individual(tenant.client)
    response = await tenant.client.post(f"/v1/customers/{customer['id']}/submit-verification")
    assert response.status_code == 200, response.text
    submitted = response.json()
    assert submitted["status"] == "UNDER_REVIEW"
    assert submitted["submittedAt"] is not None
    (event,) = await events_of(app, tenant.organization_id, "customer.status_changed")
    assert event.data == submitted
    assert event.tags == [customer["id"]]


async def test_submit_lists_each_missing_requirement_as_a_field_error(tenant):
    response = await tenant.client.post(
        "/v1/customers/individual",
        json={"firstName": "Grace", "lastName": "Hopper", "email": "grace@example.com"},
    )
    customer = response.json()
    body = assert_error(
        await tenant.client.post(f"/v1/customers/{customer['id']}/submit-verification"),
        422,
        "validation_error",
    )
    assert {error["field"] for error in body["errors"]} == {
        "tosAcceptanceId",
        "dateOfBirth",
        "address",
        "taxIdentificationNumber",
    }
    fetched = (await tenant.client.get(f"/v1/customers/{customer['id']}")).json()
    assert fetched["status"] == "INCOMPLETE"


async def test_business_submission_needs_an_owner_or_control_person(tenant):
    business = await create_business(tenant.client)
    path = f"/v1/customers/{business['id']}/submit-verification"
    body = assert_error(await tenant.client.post(path), 422, "validation_error")
    assert [error["field"] for error in body["errors"]] == ["associatedEntities"]
    await add_entity(tenant.client, business["id"], roles=["DIRECTOR"], ownershipPercentage=None)
    assert_error(await tenant.client.post(path), 422, "validation_error")
    await add_entity(
        tenant.client, business["id"], roles=["CONTROL_PERSON"], ownershipPercentage=None
    )
    response = await tenant.client.post(path)
    assert response.status_code == 200, response.text
    assert response.json()["status"] == "UNDER_REVIEW"


@pytest.mark.parametrize("status", ["UNDER_REVIEW", "ACTIVE", "REJECTED", "SUSPENDED"])
async def test_submit_from_a_decided_status_is_invalid_state(tenant, status):
    customer = await create_individual(tenant.client)
    await set_verification_status(tenant.client, customer["id"], status)
    body = assert_error(
        await tenant.client.post(f"/v1/customers/{customer['id']}/submit-verification"),
        409,
        "invalid_state",
    )
    assert body["currentStatus"] == status


async def test_compliance_requirements_report_each_requirement(tenant):
    response = await tenant.client.post(
        "/v1/customers/individual",
        json={"firstName": "Grace", "lastName": "Hopper", "email": "grace@example.com"},
    )
    customer = response.json()
    body = (
        await tenant.client.get(f"/v1/customers/{customer['id']}/compliance-requirements")
    ).json()
    assert body["customerId"] == customer["id"]
    assert body["satisfied"] is False
    satisfied = {item["code"]: item["satisfied"] for item in body["requirements"]}
    assert satisfied == {
        "terms_of_service_accepted": False,
        "name": True,
        "date_of_birth": False,
        "address": False,
        "tax_identification_number": False,
    }
    complete = await create_individual(tenant.client)
    body = (
        await tenant.client.get(f"/v1/customers/{complete['id']}/compliance-requirements")
    ).json()
    assert body["satisfied"] is True


# --- Sandbox decisions --------------------------------------------------------------------


async def test_activation_walks_through_review_and_opens_balance_accounts(app, tenant):
    customer = await create_individual(tenant.client)
    activated = await activate(tenant.client, customer["id"])
    assert activated["status"] == "ACTIVE"
    assert await _statuses_changed(app, tenant, customer["id"]) == ["UNDER_REVIEW", "ACTIVE"]
    accounts = (await tenant.client.get(f"/v1/customers/{customer['id']}?expand=accounts")).json()
    assert len(accounts["accounts"]) == 2


async def test_suspension_and_reactivation_open_no_second_account(app, tenant):
    customer = await active_customer(tenant.client)
    suspended = await set_verification_status(tenant.client, customer["id"], "SUSPENDED", "fraud")
    assert suspended["status"] == "SUSPENDED"
    assert suspended["statusReason"] == "fraud"
    reactivated = await activate(tenant.client, customer["id"])
    assert reactivated["status"] == "ACTIVE"
    assert reactivated["statusReason"] is None
    async with app.state.database.session(write=False) as session:
        count = await session.scalar(
            select(func.count()).where(LedgerAccount.customer_id == customer["id"])
        )
    assert count == 2


async def test_rejection_keeps_its_reason_and_is_final_but_for_archiving(tenant):
    customer = await create_individual(tenant.client)
    rejected = await set_verification_status(tenant.client, customer["id"], "REJECTED", "sanctions")
    assert rejected["status"] == "REJECTED"
    assert rejected["statusReason"] == "sanctions"
    for target in ("ACTIVE", "UNDER_REVIEW", "RFI_PENDING", "SUSPENDED"):
        body = assert_error(
            await _set_status(tenant.client, customer["id"], target), 409, "invalid_state"
        )
        assert body["currentStatus"] == "REJECTED"
    archived = await tenant.client.post(f"/v1/customers/{customer['id']}/archive")
    assert archived.json()["status"] == "ARCHIVED"


@pytest.mark.parametrize(
    ("start", "target"),
    [
        ("ACTIVE", "UNDER_REVIEW"),
        ("ACTIVE", "RFI_PENDING"),
        ("SUSPENDED", "REJECTED"),
        ("SUSPENDED", "UNDER_REVIEW"),
    ],
)
async def test_illegal_moves_are_invalid_state(tenant, start, target):
    customer = await create_individual(tenant.client)
    await set_verification_status(tenant.client, customer["id"], start)
    body = assert_error(
        await _set_status(tenant.client, customer["id"], target), 409, "invalid_state"
    )
    assert body["currentStatus"] == start


async def test_archived_customers_cannot_move(tenant):
    customer = await create_individual(tenant.client)
    await tenant.client.post(f"/v1/customers/{customer['id']}/archive")
    body = assert_error(
        await _set_status(tenant.client, customer["id"], "ACTIVE"), 409, "invalid_state"
    )
    assert body["currentStatus"] == "ARCHIVED"


@pytest.mark.parametrize("status", ["INCOMPLETE", "ARCHIVED", "HAPPY", 3])
async def test_sandbox_refuses_statuses_it_cannot_set(tenant, status):
    customer = await create_individual(tenant.client)
    assert_error(await _set_status(tenant.client, customer["id"], status), 422, "validation_error")


async def test_sandbox_reason_has_a_length_limit(tenant):
    customer = await create_individual(tenant.client)
    response = await _set_status(tenant.client, customer["id"], "REJECTED", "x" * 501)
    assert_error(response, 422, "validation_error")


async def test_setting_the_current_status_again_changes_nothing(app, tenant):
    customer = await active_customer(tenant.client)
    again = await activate(tenant.client, customer["id"])
    assert again["status"] == "ACTIVE"
    assert await _statuses_changed(app, tenant, customer["id"]) == ["UNDER_REVIEW", "ACTIVE"]


async def test_every_status_change_event_carries_the_resource_of_that_moment(app, tenant):
    customer = await create_individual(tenant.client)
    await set_verification_status(tenant.client, customer["id"], "SUSPENDED")
    assert await _statuses_changed(app, tenant, customer["id"]) == [
        "UNDER_REVIEW",
        "ACTIVE",
        "SUSPENDED",
    ]
    events = await events_of(app, tenant.organization_id, "customer.status_changed")
    assert all(event.data["id"] == customer["id"] for event in events)


async def test_sandbox_operation_is_refused_in_production(production_app, make_tenant):
    production = await make_tenant(production_app)
    response = await production.client.post(
        "/v1/sandbox/customers/cus_01jd3x0p6x9e3k2v1m8q4r7s5t/verification-status",
        json={"status": "ACTIVE"},
    )
    assert_error(response, 403, "sandbox_only")


async def test_production_customers_are_created_but_not_decided_by_sandbox(
    production_app, make_tenant
):
    production = await make_tenant(production_app)
    # Production refuses addresses at domains reserved for testing (example.com).
    customer = await create_individual(production.client, email="ada@lovelace.dev")
    response = await production.client.post(
        f"/v1/sandbox/customers/{customer['id']}/verification-status", json={"status": "ACTIVE"}
    )
    assert_error(response, 403, "sandbox_only")
    async with client_for(production_app, production.headers()) as client:
        fetched = (await client.get(f"/v1/customers/{customer['id']}")).json()
    assert fetched["status"] == "INCOMPLETE"


async def test_events_of_one_organization_are_not_seen_by_another(app, tenant, make_tenant):
    other = await make_tenant()
    await create_individual(other.client)
    events = await events_of(app, tenant.organization_id)
    assert [event.type for event in events if event.type.startswith("customer.")] == []
