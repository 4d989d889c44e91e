"""Onboarding over HTTP: terms of service, verification answers and sessions, and RFIs."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from corridor.auth.secrets import hash_secret
from corridor.models.customer import VerificationSession
from tests.conftest import assert_error
from tests.customers.helpers import ADDRESS, create_business, events_of, restricted_client
from tests.support import create_individual, set_verification_status

# --- Terms of service ---------------------------------------------------------------------


async def test_terms_of_service_are_accepted_in_two_steps(app, tenant):
    started = await tenant.client.post(
        "/v1/terms-of-service/acceptances", json={"email": "ada@example.com"}
    )
    assert started.status_code == 201, started.text
    acceptance = started.json()
    assert acceptance["id"].startswith("tos_")
    assert acceptance["status"] == "PENDING"
    assert acceptance["acceptedAt"] is None
    accepted = await tenant.client.post(
        f"/v1/terms-of-service/acceptances/{acceptance['id']}/accept"
    )
    assert accepted.status_code == 200, accepted.text
    assert accepted.json()["status"] == "ACCEPTED"
    assert accepted.json()["acceptedAt"] is not None
    fetched = await tenant.client.get(f"/v1/terms-of-service/acceptances/{acceptance['id']}")
    assert fetched.json() == accepted.json()
    (event,) = await events_of(app, tenant.organization_id, "tos.accepted")
    assert event.data == accepted.json()
    assert acceptance["id"] in event.tags


async def test_terms_of_service_cannot_be_accepted_twice(tenant):
    acceptance = (await tenant.client.post("/v1/terms-of-service/acceptances", json={})).json()
    path = f"/v1/terms-of-service/acceptances/{acceptance['id']}/accept"
    await tenant.client.post(path)
    body = assert_error(await tenant.client.post(path), 409, "invalid_state")
    assert body["currentStatus"] == "ACCEPTED"


async def test_terms_of_service_of_another_organization_are_404(tenant, make_tenant):
    other = await make_tenant()
    theirs = (await other.client.post("/v1/terms-of-service/acceptances", json={})).json()
    path = f"/v1/terms-of-service/acceptances/{theirs['id']}"
    assert_error(await tenant.client.get(path), 404, "not_found")
    assert_error(await tenant.client.post(f"{path}/accept"), 404, "not_found")


async def test_terms_of_service_acceptance_starts_without_a_body(tenant):
    started = await tenant.client.post("/v1/terms-of-service/acceptances")
    assert started.status_code == 201, started.text
    assert started.json()["status"] == "PENDING"
    not_an_object = await tenant.client.post(
        "/v1/terms-of-service/acceptances",
        content=b"[1]",
        headers={"Content-Type": "application/json"},
    )
    assert_error(not_an_object, 400, "invalid_json")


async def test_terms_of_service_request_is_validated(tenant):
    for body in ({"email": "nope"}, {"redirectUrl": "ftp://x"}, {"version": "1"}):
        response = await tenant.client.post("/v1/terms-of-service/acceptances", json=body)
        assert_error(response, 422, "validation_error")


# --- Verification answers -----------------------------------------------------------------


async def _bare_individual(client) -> dict:
    response = await client.post(
        "/v1/customers/individual",
        json={"firstName": "Grace", "lastName": "Hopper", "email": "grace@example.com"},
    )
    assert response.status_code == 201, response.text
    return response.json()


async def test_individual_verification_saves_answers_without_changing_status(app, tenant):
    customer = await _bare_individual(tenant.client)
    response = await tenant.client.put(
        f"/v1/customers/{customer['id']}/individual-verification",
        json={
            "dateOfBirth": "1906-12-09",
            "address": ADDRESS,
            "taxIdentificationNumber": "987-65-4321",
            "nationality": "US",
            "idDocument": {"type": "PASSPORT", "number": "X1234567", "issuingCountry": "US"},
        },
    )
    assert response.status_code == 200, response.text
    status = response.json()
    assert status["status"] == "INCOMPLETE"
    assert status["missingRequirements"] == ["terms_of_service_accepted"]
    assert status["answers"]["idDocument"] == {
        "type": "PASSPORT",
        "numberLast4": "4567",
        "issuingCountry": "US",
        "expiresOn": None,
    }
    assert "X1234567" not in response.text and "987-65-4321" not in response.text
    fetched = (await tenant.client.get(f"/v1/customers/{customer['id']}")).json()
    assert fetched["dateOfBirth"] == "1906-12-09"
    assert fetched["taxIdentificationNumberLast4"] == "4321"
    assert fetched["status"] == "INCOMPLETE"
    assert len(await events_of(app, tenant.organization_id, "customer.updated")) == 1


async def test_saved_answers_are_kept_when_a_later_save_leaves_them_out(tenant):
    customer = await _bare_individual(tenant.client)
    path = f"/v1/customers/{customer['id']}/individual-verification"
    await tenant.client.put(path, json={"dateOfBirth": "1906-12-09"})
    await tenant.client.put(path, json={"nationality": "US"})
    fetched = (await tenant.client.get(f"/v1/customers/{customer['id']}")).json()
    assert (fetched["dateOfBirth"], fetched["nationality"]) == ("1906-12-09", "US")


@pytest.mark.parametrize(
    "answers",
    [
        {"dateOfBirth": "1990-13-01"},
        {"dateOfBirth": "2030-01-01"},
        {"nationality": "United States"},
        {"taxIdentificationNumber": "x" * 65},
        {"idDocument": {"type": "LIBRARY_CARD", "number": "1234", "issuingCountry": "US"}},
        {"idDocument": {"type": "PASSPORT", "number": "1234"}},
        {"address": {**ADDRESS, "postalCode": "9" * 21}},
        {"registrationNumber": "C1"},
    ],
)
async def test_individual_verification_answers_are_validated(tenant, answers):
    customer = await _bare_individual(tenant.client)
    response = await tenant.client.put(
        f"/v1/customers/{customer['id']}/individual-verification", json=answers
    )
    assert_error(response, 422, "validation_error")


async def test_business_verification_saves_business_answers(tenant):
    response = await tenant.client.post(
        "/v1/customers/business", json={"legalName": "Engines Ltd", "email": "e@example.com"}
    )
    business = response.json()
    saved = await tenant.client.put(
        f"/v1/customers/{business['id']}/business-verification",
        json={
            "registrationNumber": "C7",
            "incorporationCountry": "GB",
            "businessType": "LLC",
            "industry": "Software",
            "sourceOfFunds": "BUSINESS_REVENUE",
            "expectedMonthlyVolume": {"currency": "USD", "value": "5000000"},
            "address": ADDRESS,
        },
    )
    assert saved.status_code == 200, saved.text
    answers = saved.json()["answers"]
    assert answers["businessType"] == "LLC"
    assert answers["expectedMonthlyVolume"]["displayValue"] == "50000.00"
    assert saved.json()["missingRequirements"] == ["beneficial_owner_or_control_person"]
    fetched = (await tenant.client.get(f"/v1/customers/{business['id']}")).json()
    assert fetched["registrationNumber"] == "C7"
    assert fetched["incorporationCountry"] == "GB"
    assert fetched["status"] == "INCOMPLETE"


async def test_business_verification_answers_are_validated(tenant):
    business = await create_business(tenant.client)
    path = f"/v1/customers/{business['id']}/business-verification"
    for answers in (
        {"businessType": "EMPIRE"},
        {"expectedMonthlyVolume": {"currency": "USD", "value": "12.5"}},
        {"expectedMonthlyVolume": {"currency": "ZZZ", "value": "1"}},
        {"industry": "x" * 101},
        {"dateOfBirth": "1990-01-01"},
    ):
        assert_error(await tenant.client.put(path, json=answers), 422, "validation_error")


async def test_verification_of_the_wrong_customer_type_is_invalid_state(tenant):
    individual = await create_individual(tenant.client)
    business = await create_business(tenant.client)
    body = assert_error(
        await tenant.client.put(
            f"/v1/customers/{individual['id']}/business-verification", json={"industry": "x"}
        ),
        409,
        "invalid_state",
    )
    assert body["currentStatus"] == "INCOMPLETE"
    assert_error(
        await tenant.client.put(
            f"/v1/customers/{business['id']}/individual-verification", json={"nationality": "US"}
        ),
        409,
        "invalid_state",
    )


async def test_verification_status_reports_requirements_and_pending_rfi(tenant):
    customer = await create_individual(tenant.client)
    path = f"/v1/customers/{customer['id']}/verification-status"
    status = (await tenant.client.get(path)).json()
    assert status["requirementsSatisfied"] is True
    assert status["pendingRfiId"] is None
    await set_verification_status(tenant.client, customer["id"], "RFI_PENDING")
    status = (await tenant.client.get(path)).json()
    assert status["status"] == "RFI_PENDING"
    assert status["pendingRfiId"].startswith("rfi_")


# --- Verification sessions ----------------------------------------------------------------


async def test_verification_session_gives_a_url_and_keeps_only_the_token_hash(app, tenant):
    customer = await create_individual(tenant.client)
    response = await tenant.client.post(f"/v1/customers/{customer['id']}/verification-sessions")
    assert response.status_code == 201, response.text
    session_ = response.json()
    assert session_["id"].startswith("vs_")
    assert session_["status"] == "CREATED"
    token = session_["url"].split("token=")[1]
    async with app.state.database.session(write=False) as session:
        stored = await session.scalar(
            select(VerificationSession).where(VerificationSession.id == session_["id"])
        )
    assert stored.token_hash == hash_secret(token)
    assert token not in stored.token_hash


async def test_a_replayed_verification_session_start_does_not_show_the_token_again(tenant):
    """The URL's token is shown once and never stored, not even in the idempotent answer."""
    customer = await create_individual(tenant.client)
    path = f"/v1/customers/{customer['id']}/verification-sessions"
    first = await tenant.client.post(path, headers={"Idempotency-Key": "vs"})
    again = await tenant.client.post(path, headers={"Idempotency-Key": "vs"})
    assert first.status_code == again.status_code == 201, again.text
    assert again.headers["idempotent-replayed"] == "true"
    token = first.json()["url"].split("token=")[1]
    assert token not in again.text
    assert again.json()["url"] is None and "start another session" in again.json()["secretNote"]
    assert {**again.json(), "url": first.json()["url"], "secretNote": None} == {
        **first.json(),
        "secretNote": None,
    }


async def test_verification_session_configuration_lists_steps_and_requirements(tenant, clock):
    customer = await create_individual(tenant.client)
    created = (
        await tenant.client.post(f"/v1/customers/{customer['id']}/verification-sessions")
    ).json()
    path = f"/v1/verification-sessions/{created['id']}/configuration"
    configuration = (await tenant.client.get(path)).json()
    assert configuration["customerId"] == customer["id"]
    assert configuration["subjectType"] == "INDIVIDUAL"
    assert configuration["status"] == "CREATED"
    assert "id_document" in configuration["steps"]
    assert all(item["satisfied"] for item in configuration["requirements"])
    clock.set(datetime.now(UTC) + timedelta(days=8))
    assert (await tenant.client.get(path)).json()["status"] == "EXPIRED"


async def test_verification_sessions_of_another_organization_are_404(tenant, make_tenant):
    other = await make_tenant()
    customer = await create_individual(other.client)
    theirs = (
        await other.client.post(f"/v1/customers/{customer['id']}/verification-sessions")
    ).json()
    path = f"/v1/verification-sessions/{theirs['id']}/configuration"
    assert_error(await tenant.client.get(path), 404, "not_found")


async def test_archived_customers_get_no_verification_session(tenant):
    customer = await create_individual(tenant.client)
    await tenant.client.post(f"/v1/customers/{customer['id']}/archive")
    response = await tenant.client.post(f"/v1/customers/{customer['id']}/verification-sessions")
    assert_error(response, 409, "invalid_state")


# --- Enhanced diligence -------------------------------------------------------------------


async def _customer_with_rfi(client, business: bool = True) -> dict:
    customer = await create_business(client) if business else await create_individual(client)
    await set_verification_status(client, customer["id"], "RFI_PENDING")
    return customer


async def test_moving_to_rfi_pending_raises_a_request_and_its_event(app, tenant):
    customer = await _customer_with_rfi(tenant.client)
    rfi = await tenant.client.get(f"/v1/customers/{customer['id']}/pending-enhanced-diligence-rfi")
    assert rfi.status_code == 200, rfi.text
    body = rfi.json()
    assert body["id"].startswith("rfi_")
    assert body["status"] == "PENDING"
    assert body["currentStepId"] == "business"
    assert [step["id"] for step in body["steps"]] == ["business", "ownership", "attestation"]
    (event,) = await events_of(app, tenant.organization_id, "customer.rfi.requested")
    assert event.data == body
    assert set(event.tags) == {customer["id"], body["id"]}


async def test_no_pending_rfi_is_404(tenant):
    customer = await create_individual(tenant.client)
    path = f"/v1/customers/{customer['id']}/pending-enhanced-diligence-rfi"
    assert_error(await tenant.client.get(path), 404, "not_found")
    assert_error(await tenant.client.patch(f"{path}/progress", json={}), 404, "not_found")


async def test_rfi_progress_merges_nested_and_dotted_answers(tenant):
    customer = await _customer_with_rfi(tenant.client)
    path = f"/v1/customers/{customer['id']}/pending-enhanced-diligence-rfi"
    first = await tenant.client.patch(
        f"{path}/progress", json={"data": {"business": {"sourceOfFunds": "Revenue"}}}
    )
    assert first.status_code == 200, first.text
    assert first.json() == {"success": True, "stepId": "business"}
    await tenant.client.patch(
        f"{path}/progress", json={"data": {"business.purposeOfAccount": "Payroll"}}
    )
    answers = (await tenant.client.get(path)).json()["answers"]
    assert answers == {"business": {"sourceOfFunds": "Revenue", "purposeOfAccount": "Payroll"}}


async def test_rfi_steps_complete_in_order_and_the_last_submits(app, tenant):
    customer = await _customer_with_rfi(tenant.client)
    progress = f"/v1/customers/{customer['id']}/pending-enhanced-diligence-rfi/progress"
    answers = [
        {
            "business.sourceOfFunds": "Revenue",
            "business.expectedMonthlyVolume": "50000",
            "business.purposeOfAccount": "Payroll",
        },
        {"ownership": {"ownershipStructure": "Founder owns 100%"}},
        {"attestation.confirmed": True},
    ]
    steps = []
    for data in answers:
        response = await tenant.client.patch(
            progress, json={"data": data, "markStepComplete": True}
        )
        assert response.status_code == 200, response.text
        steps.append(response.json()["stepId"])
    assert steps == ["business", "ownership", "attestation"]
    fetched = (await tenant.client.get(f"/v1/customers/{customer['id']}")).json()
    assert fetched["status"] == "UNDER_REVIEW"
    changes = await events_of(app, tenant.organization_id, "customer.status_changed")
    assert [event.data["status"] for event in changes][-2:] == ["RFI_PENDING", "UNDER_REVIEW"]
    assert_error(
        await tenant.client.get(f"/v1/customers/{customer['id']}/pending-enhanced-diligence-rfi"),
        404,
        "not_found",
    )


async def test_a_step_with_unanswered_fields_cannot_be_completed(tenant):
    customer = await _customer_with_rfi(tenant.client)
    path = f"/v1/customers/{customer['id']}/pending-enhanced-diligence-rfi"
    response = await tenant.client.patch(
        f"{path}/progress",
        json={"data": {"business.sourceOfFunds": "Revenue"}, "markStepComplete": True},
    )
    body = assert_error(response, 422, "validation_error")
    assert {error["field"] for error in body["errors"]} == {
        "data.business.expectedMonthlyVolume",
        "data.business.purposeOfAccount",
    }
    # The failed request saved nothing.
    assert (await tenant.client.get(path)).json()["answers"] == {}


async def test_rfi_progress_rejects_unknown_paths_and_bad_bodies(tenant):
    customer = await _customer_with_rfi(tenant.client)
    progress = f"/v1/customers/{customer['id']}/pending-enhanced-diligence-rfi/progress"
    for body in (
        {"data": {"business.sourceOfFund": "typo"}},
        {"data": {"personal": {"occupation": "x"}}},
        {"data": {"business": {"sourceOfFunds": {"nested": "object"}}}},
        {"data": {"business.sourceOfFunds": "x" * 1001}},
        {"data": "text"},
        {"markStepComplete": "yes"},
        {"stepId": "business"},
    ):
        assert_error(await tenant.client.patch(progress, json=body), 422, "validation_error")
    assert_error(
        await tenant.client.patch(
            progress, content=b"{", headers={"Content-Type": "application/json"}
        ),
        400,
        "invalid_json",
    )


async def test_individual_rfi_asks_about_the_person(tenant):
    customer = await _customer_with_rfi(tenant.client, business=False)
    rfi = (
        await tenant.client.get(f"/v1/customers/{customer['id']}/pending-enhanced-diligence-rfi")
    ).json()
    assert rfi["currentStepId"] == "personal"


async def test_submit_verification_of_an_unfinished_rfi_lists_its_steps(tenant):
    customer = await _customer_with_rfi(tenant.client)
    body = assert_error(
        await tenant.client.post(f"/v1/customers/{customer['id']}/submit-verification"),
        422,
        "validation_error",
    )
    assert [error["field"] for error in body["errors"]] == [
        "steps.business",
        "steps.ownership",
        "steps.attestation",
    ]


async def test_a_reviewer_decision_closes_the_pending_rfi(tenant):
    customer = await _customer_with_rfi(tenant.client)
    await set_verification_status(tenant.client, customer["id"], "ACTIVE")
    path = f"/v1/customers/{customer['id']}/pending-enhanced-diligence-rfi"
    assert_error(await tenant.client.get(path), 404, "not_found")


async def test_rfi_progress_needs_customers_write(app, tenant):
    customer = await _customer_with_rfi(tenant.client)
    async with await restricted_client(app, tenant, ["customers:read"]) as reader:
        path = f"/v1/customers/{customer['id']}/pending-enhanced-diligence-rfi"
        assert (await reader.get(path)).status_code == 200
        assert_error(await reader.patch(f"{path}/progress", json={}), 403, "forbidden")
