"""External bank accounts over HTTP: real check digits, rails, third parties, close."""

from __future__ import annotations

import pytest

from tests.conftest import assert_error, client_for
from tests.customers.helpers import events_of, restricted_client
from tests.parties.helpers import (
    SEPA_ACCOUNT,
    US_ACCOUNT,
    create_account,
    create_counterparty,
)
from tests.support import create_individual

US_RAILS = ["ACH", "ACH_SAME_DAY", "WIRE", "RTP"]


@pytest.fixture
async def customer(tenant) -> dict:
    return await create_individual(tenant.client)


async def _refused(tenant, body: dict) -> dict:
    response = await tenant.client.post("/v1/external-accounts", json=body)
    return assert_error(response, 422, "validation_error")


def _fields(error_body: dict) -> set[str]:
    return {error["field"] for error in error_body["errors"]}


# --- Creating -----------------------------------------------------------------------------


@pytest.mark.parametrize("routing_number", ["021000021", "011000015"])
async def test_us_account_with_a_valid_routing_number_gets_the_us_rails(
    tenant, customer, routing_number
):
    account = await create_account(
        tenant.client, {"customerId": customer["id"]}, routingNumber=routing_number
    )
    assert account["id"].startswith("ext_")
    assert account["customerId"] == customer["id"]
    assert account["counterpartyId"] is None
    assert account["isThirdParty"] is False
    assert account["status"] == "ACTIVE"
    assert account["routingNumber"] == routing_number
    assert account["accountNumberLast4"] == "6789"
    assert account["accountType"] == "CHECKING"
    assert account["supportedRails"] == US_RAILS
    assert account["ibanLast4"] is None
    assert account["createdAt"].endswith("Z")


async def test_full_account_number_and_iban_are_never_returned(app, tenant, customer):
    us = await create_account(tenant.client, {"customerId": customer["id"]})
    sepa = await create_account(tenant.client, {"customerId": customer["id"]}, **SEPA_ACCOUNT)
    assert "accountNumber" not in us and "iban" not in sepa
    for response in (
        await tenant.client.get(f"/v1/external-accounts/{us['id']}"),
        await tenant.client.get(f"/v1/external-accounts/{sepa['id']}"),
        await tenant.client.get("/v1/external-accounts"),
    ):
        assert "000123456789" not in response.text
        assert "DE89370400440532013000" not in response.text
        assert "0532013000" not in response.text
    for event in await events_of(app, tenant.organization_id):
        assert "000123456789" not in str(event.data)
        assert "DE89370400440532013000" not in str(event.data)


async def test_routing_number_with_a_wrong_check_digit_is_422(tenant, customer):
    body = await _refused(
        tenant, {**US_ACCOUNT, "customerId": customer["id"], "routingNumber": "021000022"}
    )
    assert body["errors"] == [{"field": "routingNumber", "message": "invalid check digit"}]


async def test_sepa_iban_in_eur_gets_sepa_rails_and_the_bank_name(tenant, customer):
    account = await create_account(tenant.client, {"customerId": customer["id"]}, **SEPA_ACCOUNT)
    assert account["supportedRails"] == ["SEPA", "SEPA_INSTANT"]
    assert account["ibanLast4"] == "3000"
    assert account["bankName"] == "Commerzbank"
    assert account["accountNumberLast4"] is None
    assert account["accountType"] is None
    with_bic = await create_account(
        tenant.client, {"customerId": customer["id"]}, **SEPA_ACCOUNT, bic="COBADEFFXXX"
    )
    assert with_bic["supportedRails"] == ["SEPA", "SEPA_INSTANT", "SWIFT"]
    assert with_bic["bic"] == "COBADEFFXXX"


async def test_iban_with_spaces_and_lower_case_is_stored_compact(tenant, customer):
    account = await create_account(
        tenant.client,
        {"customerId": customer["id"]},
        **{**SEPA_ACCOUNT, "iban": "de89 3704 0044 0532 0130 00"},
        bic="deutdeff",
    )
    assert account["ibanLast4"] == "3000"
    assert account["bic"] == "DEUTDEFF"


async def test_a_non_sepa_payment_needs_a_bic_and_goes_over_swift(tenant, customer):
    gbp = {
        "currency": "GBP",
        "country": "GB",
        "accountHolderName": "Charles Babbage",
        "iban": "GB82WEST12345698765432",
    }
    body = await _refused(tenant, {**gbp, "customerId": customer["id"]})
    assert _fields(body) == {"bic"}
    account = await create_account(
        tenant.client, {"customerId": customer["id"]}, **gbp, bic="NWBKGB2L"
    )
    assert account["supportedRails"] == ["SWIFT"]
    assert account["ibanLast4"] == "5432"


async def test_an_account_number_with_a_bic_goes_over_swift(tenant, customer):
    account = await create_account(
        tenant.client,
        {"customerId": customer["id"]},
        currency="MXN",
        country="MX",
        accountHolderName="Frida Kahlo",
        accountNumber="002180700123456789",
        routingNumber=None,
        bic="BNMXMXMM",
    )
    assert account["supportedRails"] == ["SWIFT"]
    assert account["accountNumberLast4"] == "6789"
    assert account["routingNumber"] is None


@pytest.mark.parametrize(
    ("iban", "reason"),
    [
        ("DE89370400440532013001", "invalid check digits"),
        ("DE88370400440532013000", "invalid check digits"),
        ("GB82WEST12345698765433", "invalid check digits"),
        ("DE8937040044053201300", "wrong length for its country"),
        ("XX89370400440532013000", "unknown country code"),
        ("DE89-3704", "must be letters and digits, up to 34 of them"),
    ],
)
async def test_iban_with_wrong_check_digits_or_shape_is_422_naming_iban(
    tenant, customer, iban, reason
):
    body = await _refused(tenant, {**SEPA_ACCOUNT, "customerId": customer["id"], "iban": iban})
    assert body["errors"] == [{"field": "iban", "message": reason}]


async def test_account_shapes_that_do_not_fit_are_refused_naming_fields(tenant, customer):
    owner = {"customerId": customer["id"]}
    # An IBAN of another country than the one stated.
    body = await _refused(tenant, {**SEPA_ACCOUNT, **owner, "country": "FR"})
    assert _fields(body) == {"country"}
    # A routing number outside the US, in another currency, without an account number.
    body = await _refused(
        tenant,
        {
            **owner,
            "currency": "EUR",
            "country": "FR",
            "accountHolderName": "X",
            "routingNumber": "021000021",
        },
    )
    assert _fields(body) == {"country", "currency", "accountNumber"}
    # Both a routing number and an IBAN; a US account number with letters.
    body = await _refused(
        tenant, {**US_ACCOUNT, **owner, "iban": "DE89370400440532013000", "accountNumber": "12AB"}
    )
    assert _fields(body) == {"iban", "accountNumber"}
    # No numbers at all; an account number alone.
    body = await _refused(
        tenant, {**owner, "currency": "USD", "country": "US", "accountHolderName": "X"}
    )
    assert _fields(body) == {"accountNumber"}
    body = await _refused(
        tenant,
        {
            **owner,
            "currency": "MXN",
            "country": "MX",
            "accountHolderName": "X",
            "accountNumber": "123",
        },
    )
    assert _fields(body) == {"bic"}
    # A BIC with an unknown country; a stablecoin; a sort code outside the UK.
    body = await _refused(tenant, {**SEPA_ACCOUNT, **owner, "bic": "DEUTXXFF"})
    assert _fields(body) == {"bic"}
    body = await _refused(tenant, {**US_ACCOUNT, **owner, "currency": "USDC"})
    assert _fields(body) == {"currency"}
    body = await _refused(tenant, {**US_ACCOUNT, **owner, "sortCode": "40-47-84"})
    assert _fields(body) == {"sortCode"}


async def test_exactly_one_owner_is_required(tenant, customer):
    counterparty = await create_counterparty(tenant.client, customer["id"])
    body = await _refused(
        tenant, {**US_ACCOUNT, "customerId": customer["id"], "counterpartyId": counterparty["id"]}
    )
    assert _fields(body) == {"customerId"}
    body = await _refused(tenant, US_ACCOUNT)
    assert _fields(body) == {"customerId"}


async def test_a_counterpartys_account_is_third_party(app, tenant, customer):
    counterparty = await create_counterparty(tenant.client, customer["id"])
    account = await create_account(tenant.client, {"counterpartyId": counterparty["id"]})
    assert account["isThirdParty"] is True
    assert account["counterpartyId"] == counterparty["id"]
    assert account["customerId"] is None
    (event,) = await events_of(app, tenant.organization_id, "external_account.created")
    assert event.data == account
    assert set(event.tags) == {account["id"], customer["id"], counterparty["id"]}


async def test_create_for_a_foreign_or_archived_owner(tenant, make_tenant, customer):
    other = await make_tenant()
    foreign_customer = await create_individual(other.client)
    foreign_counterparty = await create_counterparty(other.client, foreign_customer["id"])
    response = await tenant.client.post(
        "/v1/external-accounts", json={**US_ACCOUNT, "customerId": foreign_customer["id"]}
    )
    assert_error(response, 404, "not_found")
    response = await tenant.client.post(
        "/v1/external-accounts", json={**US_ACCOUNT, "counterpartyId": foreign_counterparty["id"]}
    )
    assert_error(response, 404, "not_found")
    counterparty = await create_counterparty(tenant.client, customer["id"])
    await tenant.client.post(f"/v1/customers/{customer['id']}/archive")
    for owner in ({"customerId": customer["id"]}, {"counterpartyId": counterparty["id"]}):
        response = await tenant.client.post("/v1/external-accounts", json={**US_ACCOUNT, **owner})
        assert assert_error(response, 409, "invalid_state")["currentStatus"] == "ARCHIVED"


async def test_create_with_the_same_idempotency_key_replays_the_first_answer(tenant, customer):
    body = {**US_ACCOUNT, "customerId": customer["id"]}
    headers = {"Idempotency-Key": "ext-once"}
    first = await tenant.client.post("/v1/external-accounts", json=body, headers=headers)
    again = await tenant.client.post("/v1/external-accounts", json=body, headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.content == first.content
    listed = (await tenant.client.get("/v1/external-accounts")).json()["data"]
    assert len(listed) == 1


# --- Reading ------------------------------------------------------------------------------


async def test_list_filters_by_customer_counterparty_and_status(tenant, customer):
    someone_else = await create_individual(tenant.client)
    counterparty = await create_counterparty(tenant.client, customer["id"])
    own = await create_account(tenant.client, {"customerId": customer["id"]})
    theirs = await create_account(tenant.client, {"counterpartyId": counterparty["id"]})
    other = await create_account(tenant.client, {"customerId": someone_else["id"]})
    await tenant.client.post(f"/v1/external-accounts/{own['id']}/close")

    async def ids(query: str) -> list[str]:
        response = await tenant.client.get(f"/v1/external-accounts{query}")
        assert response.status_code == 200, response.text
        return [item["id"] for item in response.json()["data"]]

    assert await ids("") == [other["id"], theirs["id"], own["id"]]
    assert await ids(f"?customerId={customer['id']}") == [theirs["id"], own["id"]]
    assert await ids(f"?counterpartyId={counterparty['id']}") == [theirs["id"]]
    assert await ids("?status=CLOSED") == [own["id"]]
    assert await ids(f"?status=ACTIVE&customerId={customer['id']}") == [theirs["id"]]
    assert await ids("?limit=1") == [other["id"]]
    assert_error(
        await tenant.client.get("/v1/external-accounts?status=OPEN"), 422, "validation_error"
    )
    assert_error(
        await tenant.client.get("/v1/external-accounts?counterpartyId=cus_1"),
        422,
        "validation_error",
    )


async def test_another_organizations_account_is_404(tenant, make_tenant):
    other = await make_tenant()
    foreign_customer = await create_individual(other.client)
    foreign = await create_account(other.client, {"customerId": foreign_customer["id"]})
    path = f"/v1/external-accounts/{foreign['id']}"
    assert_error(await tenant.client.get(path), 404, "not_found")
    assert_error(await tenant.client.patch(path, json={"label": "x"}), 404, "not_found")
    assert_error(await tenant.client.post(f"{path}/close"), 404, "not_found")
    assert (await tenant.client.get("/v1/external-accounts")).json()["data"] == []


async def test_a_bound_caller_sees_its_own_and_its_counterparties_accounts_only(app, tenant):
    mine = await create_individual(tenant.client)
    theirs = await create_individual(tenant.client)
    counterparty = await create_counterparty(tenant.client, mine["id"])
    own = await create_account(tenant.client, {"customerId": mine["id"]})
    third_party = await create_account(tenant.client, {"counterpartyId": counterparty["id"]})
    other = await create_account(tenant.client, {"customerId": theirs["id"]})
    headers = {**tenant.headers(), "X-Corridor-On-Behalf-Of": mine["id"]}
    async with client_for(app, headers) as bound:
        listed = (await bound.get("/v1/external-accounts")).json()["data"]
        assert [item["id"] for item in listed] == [third_party["id"], own["id"]]
        assert_error(await bound.get(f"/v1/external-accounts/{other['id']}"), 404, "not_found")
        response = await bound.post(
            "/v1/external-accounts", json={**US_ACCOUNT, "customerId": theirs["id"]}
        )
        assert_error(response, 404, "not_found")


# --- Updating and closing -----------------------------------------------------------------


async def test_update_changes_names_and_label_but_never_the_numbers(app, tenant, customer):
    account = await create_account(tenant.client, {"customerId": customer["id"]}, bankName="Chase")
    path = f"/v1/external-accounts/{account['id']}"
    response = await tenant.client.patch(
        path,
        json={
            "accountHolderName": "Ada King",
            "label": "Payroll",
            "bankName": None,
            "accountType": "SAVINGS",
        },
    )
    assert response.status_code == 200, response.text
    updated = response.json()
    assert updated["accountHolderName"] == "Ada King"
    assert updated["label"] == "Payroll"
    assert updated["bankName"] is None
    assert updated["accountType"] == "SAVINGS"
    assert updated["routingNumber"] == account["routingNumber"]
    (event,) = await events_of(app, tenant.organization_id, "external_account.updated")
    assert event.data == updated
    assert set(event.tags) == {account["id"], customer["id"]}

    for numbers in (
        {"accountNumber": "999999"},
        {"iban": "DE89370400440532013000"},
        {"routingNumber": "011000015"},
    ):
        body = assert_error(await tenant.client.patch(path, json=numbers), 422, "validation_error")
        assert body["errors"][0]["message"] == "unknown field"
    body = assert_error(
        await tenant.client.patch(path, json={"accountHolderName": None}), 422, "validation_error"
    )
    assert _fields(body) == {"accountHolderName"}
    unchanged = await tenant.client.patch(path, json={"label": "Payroll"})
    assert unchanged.json() == updated
    assert len(await events_of(app, tenant.organization_id, "external_account.updated")) == 1


async def test_close_is_final(app, tenant, customer):
    account = await create_account(tenant.client, {"customerId": customer["id"]})
    path = f"/v1/external-accounts/{account['id']}"
    response = await tenant.client.post(f"{path}/close")
    assert response.status_code == 200, response.text
    closed = response.json()
    assert closed["status"] == "CLOSED"
    assert closed["closedAt"].endswith("Z")
    (event,) = await events_of(app, tenant.organization_id, "external_account.closed")
    assert event.data == closed
    assert set(event.tags) == {account["id"], customer["id"]}

    again = assert_error(await tenant.client.post(f"{path}/close"), 409, "invalid_state")
    assert again["currentStatus"] == "CLOSED"
    assert_error(await tenant.client.patch(path, json={"label": "x"}), 409, "invalid_state")
    assert (await tenant.client.get(path)).json() == closed


# --- Who may ------------------------------------------------------------------------------


async def test_external_accounts_use_the_customers_scopes(app, tenant, customer):
    account = await create_account(tenant.client, {"customerId": customer["id"]})
    body = {**US_ACCOUNT, "customerId": customer["id"]}
    path = f"/v1/external-accounts/{account['id']}"
    async with await restricted_client(app, tenant, ["counterparties:write"]) as other_scope:
        assert_error(await other_scope.get("/v1/external-accounts"), 403, "forbidden")
        assert_error(await other_scope.get(path), 403, "forbidden")
        assert_error(await other_scope.post("/v1/external-accounts", json=body), 403, "forbidden")
        response = await other_scope.post(
            "/v1/external-accounts/validate-bank-code",
            json={"country": "US", "routingNumber": "021000021"},
        )
        assert_error(response, 403, "forbidden")
    async with await restricted_client(app, tenant, ["customers:read"]) as reader:
        assert (await reader.get(path)).status_code == 200
        assert_error(await reader.post("/v1/external-accounts", json=body), 403, "forbidden")
        assert_error(await reader.patch(path, json={"label": "x"}), 403, "forbidden")
        assert_error(await reader.post(f"{path}/close"), 403, "forbidden")
    async with await restricted_client(app, tenant, ["customers:write"]) as writer:
        assert (await writer.post("/v1/external-accounts", json=body)).status_code == 201


# --- Validating bank codes ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "valid", "bank_name"),
    [
        ({"country": "US", "routingNumber": "021000021"}, True, None),
        ({"country": "US", "routingNumber": "011000015"}, True, None),
        ({"country": "DE", "iban": "DE89370400440532013000"}, True, "Commerzbank"),
        ({"country": "GB", "iban": "GB82WEST12345698765432"}, True, None),
        ({"country": "DE", "bic": "DEUTDEFF"}, True, "Deutsche Bank"),
        ({"country": "GB", "sortCode": "40-47-84"}, True, None),
    ],
)
async def test_validate_bank_code_accepts_real_codes(tenant, body, valid, bank_name):
    response = await tenant.client.post("/v1/external-accounts/validate-bank-code", json=body)
    assert response.status_code == 200, response.text
    assert response.json() == {"valid": valid, "bankName": bank_name, "reason": None}


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ({"country": "US", "routingNumber": "021000022"}, "invalid check digit"),
        ({"country": "US", "routingNumber": "02100002"}, "must be 9 digits"),
        ({"country": "US", "routingNumber": "000000000"}, "not a routing number prefix in use"),
        ({"country": "DE", "iban": "DE89370400440532013001"}, "invalid check digits"),
        ({"country": "GB", "iban": "GB82WEST12345698765433"}, "invalid check digits"),
        ({"country": "FR", "iban": "DE89370400440532013000"}, "this IBAN is of DE, not FR"),
        ({"country": "CA", "routingNumber": "021000021"}, "a routing number is of US, not CA"),
        ({"country": "DE", "bic": "DEUTXXFF"}, "unknown country code"),
        ({"country": "DE", "bic": "DEUT"}, "must be 8 or 11 letters and digits"),
        ({"country": "GB", "sortCode": "4047"}, "must be 6 digits, e.g. 40-47-84"),
    ],
)
async def test_validate_bank_code_answers_200_with_the_reason_when_invalid(tenant, body, reason):
    response = await tenant.client.post("/v1/external-accounts/validate-bank-code", json=body)
    assert response.status_code == 200, response.text
    assert response.json() == {"valid": False, "bankName": None, "reason": reason}


async def test_validate_bank_code_needs_exactly_one_code(tenant):
    path = "/v1/external-accounts/validate-bank-code"
    for body in (
        {"country": "US"},
        {"country": "US", "routingNumber": "021000021", "iban": "DE89370400440532013000"},
    ):
        assert_error(await tenant.client.post(path, json=body), 422, "validation_error")
    body = assert_error(
        await tenant.client.post(path, json={"country": "US", "routingNumber": "1" * 65, "x": 1}),
        422,
        "validation_error",
    )
    assert _fields(body) == {"routingNumber", "x"}
