"""Customers over HTTP: create, list, get with expand, update, archive, and bad input."""

from __future__ import annotations

import pytest

from tests.conftest import assert_error, client_for
from tests.customers.helpers import (
    ADDRESS,
    add_entity,
    create_business,
    events_of,
    restricted_client,
)
from tests.support import accepted_terms_of_service, activate, create_individual

# --- Creating -----------------------------------------------------------------------------


async def test_create_individual_starts_incomplete_with_the_fields_sent(tenant):
    customer = await create_individual(tenant.client, metadata={"crmId": "42"})
    assert customer["id"].startswith("cus_")
    assert customer["organizationId"] == tenant.organization_id
    assert customer["type"] == "INDIVIDUAL"
    assert customer["status"] == "INCOMPLETE"
    assert customer["name"] == "Ada Lovelace"
    assert customer["address"]["country"] == "US"
    assert customer["tosAcceptanceId"].startswith("tos_")
    assert customer["metadata"] == {"crmId": "42"}
    assert customer["createdAt"].endswith("Z")


async def test_full_tax_id_is_never_returned(tenant):
    customer = await create_individual(tenant.client, taxIdentificationNumber="123-45-6789")
    assert customer["taxIdentificationNumberLast4"] == "6789"
    fetched = await tenant.client.get(f"/v1/customers/{customer['id']}?expand=verification")
    assert "123-45-6789" not in fetched.text
    assert "taxIdentificationNumber" not in fetched.json()


async def test_create_individual_needs_only_names_and_email(tenant):
    response = await tenant.client.post(
        "/v1/customers/individual",
        json={"firstName": "Grace", "lastName": "Hopper", "email": "grace@example.com"},
    )
    assert response.status_code == 201, response.text
    assert response.json()["tosAcceptanceId"] is None


async def test_create_business_uses_the_legal_name(tenant):
    customer = await create_business(tenant.client, dbaName="Engines")
    assert customer["type"] == "BUSINESS"
    assert customer["status"] == "INCOMPLETE"
    assert customer["name"] == "Analytical Engines Ltd"
    assert customer["dbaName"] == "Engines"
    assert customer["firstName"] is None


async def test_create_emits_customer_created_with_the_resource(app, tenant):
    customer = await create_individual(tenant.client)
    (event,) = await events_of(app, tenant.organization_id, "customer.created")
    assert event.data == customer
    assert customer["id"] in event.tags


async def test_create_with_the_same_idempotency_key_replays_the_first_answer(tenant):
    body = {"firstName": "Grace", "lastName": "Hopper", "email": "grace@example.com"}
    headers = {"Idempotency-Key": "create-grace"}
    first = await tenant.client.post("/v1/customers/individual", json=body, headers=headers)
    again = await tenant.client.post("/v1/customers/individual", json=body, headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.content == first.content
    assert again.headers["idempotent-replayed"] == "true"


async def test_terms_acceptance_must_be_accepted(tenant):
    pending = (await tenant.client.post("/v1/terms-of-service/acceptances", json={})).json()
    body = assert_error(
        await tenant.client.post(
            "/v1/customers/individual",
            json={
                "firstName": "A",
                "lastName": "B",
                "email": "a@example.com",
                "tosAcceptanceId": pending["id"],
            },
        ),
        422,
        "validation_error",
    )
    assert body["errors"][0]["field"] == "tosAcceptanceId"


async def test_terms_acceptance_serves_one_customer_only(tenant):
    acceptance_id = await accepted_terms_of_service(tenant.client)
    await create_individual(tenant.client, tosAcceptanceId=acceptance_id)
    response = await tenant.client.post(
        "/v1/customers/business",
        json={"legalName": "X", "email": "x@example.com", "tosAcceptanceId": acceptance_id},
    )
    assert_error(response, 422, "validation_error")


async def test_terms_acceptance_of_another_organization_is_unknown(tenant, make_tenant):
    other = await make_tenant()
    acceptance_id = await accepted_terms_of_service(other.client)
    response = await tenant.client.post(
        "/v1/customers/individual",
        json={
            "firstName": "A",
            "lastName": "B",
            "email": "a@x.com",
            "tosAcceptanceId": acceptance_id,
        },
    )
    assert_error(response, 422, "validation_error")


async def test_individual_must_be_an_adult(tenant):
    response = await tenant.client.post(
        "/v1/customers/individual",
        json={"firstName": "A", "lastName": "B", "email": "a@x.com", "dateOfBirth": "2020-01-01"},
    )
    body = assert_error(response, 422, "validation_error")
    assert body["errors"][0]["field"] == "dateOfBirth"


# --- Bad input ----------------------------------------------------------------------------


@pytest.mark.parametrize("content", [b"{", b"not json", b"[1]", b'"text"', b""])
async def test_malformed_json_is_400(tenant, content):
    response = await tenant.client.post(
        "/v1/customers/individual", content=content, headers={"Content-Type": "application/json"}
    )
    assert_error(response, 400, "invalid_json")


async def test_unknown_and_server_owned_fields_are_rejected(tenant):
    body = assert_error(
        await tenant.client.post(
            "/v1/customers/individual",
            json={
                "firstName": "A",
                "lastName": "B",
                "email": "a@example.com",
                "status": "ACTIVE",
                "frstName": "typo",
            },
        ),
        422,
        "validation_error",
    )
    assert {error["field"] for error in body["errors"]} == {"status", "frstName"}


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("firstName", 12),
        ("firstName", "x" * 101),
        ("firstName", ""),
        ("email", "not-an-email"),
        ("email", "a@" + "b" * 320 + ".com"),
        ("phone", "555-0100"),
        ("dateOfBirth", "10/12/1990"),
        ("dateOfBirth", "1990-02-30"),
        ("nationality", "usa"),
        ("taxIdentificationNumber", "12"),
        ("taxIdentificationNumber", "123<script>"),
        ("metadata", {"k": 1}),
        ("metadata", {f"k{index}": "v" for index in range(51)}),
        ("metadata", {"k" * 41: "v"}),
        ("address", {"city": "Paris", "country": "FR"}),
        ("address", {**ADDRESS, "country": "XYZ"}),
        ("address", {**ADDRESS, "addressLine1": "x" * 201}),
        ("tosAcceptanceId", "t" * 65),
    ],
)
async def test_invalid_fields_are_validation_errors(tenant, field, value):
    body = {"firstName": "A", "lastName": "B", "email": "a@example.com", field: value}
    problem = assert_error(
        await tenant.client.post("/v1/customers/individual", json=body), 422, "validation_error"
    )
    assert problem["errors"][0]["field"].startswith(field)


async def test_business_website_must_be_a_web_address(tenant):
    response = await tenant.client.post(
        "/v1/customers/business",
        json={"legalName": "X", "email": "x@example.com", "website": "javascript:alert(1)"},
    )
    assert_error(response, 422, "validation_error")


async def test_missing_required_fields_are_listed(tenant):
    body = assert_error(
        await tenant.client.post("/v1/customers/business", json={"dbaName": "X"}),
        422,
        "validation_error",
    )
    assert {error["field"] for error in body["errors"]} == {"legalName", "email"}


# --- Reading ------------------------------------------------------------------------------


async def test_list_is_newest_first_and_paginates(tenant):
    created = [
        await create_individual(tenant.client, email=f"c{index}@example.com") for index in range(3)
    ]
    first = (await tenant.client.get("/v1/customers?limit=2")).json()
    assert [item["id"] for item in first["data"]] == [created[2]["id"], created[1]["id"]]
    assert first["hasMore"] is True
    second = (await tenant.client.get(f"/v1/customers?limit=2&cursor={first['nextCursor']}")).json()
    assert [item["id"] for item in second["data"]] == [created[0]["id"]]
    assert second["hasMore"] is False
    assert second["nextCursor"] is None


async def test_list_filters_by_status_type_and_email(tenant):
    individual = await create_individual(tenant.client, email="Ada@Example.com")
    business = await create_business(tenant.client)
    active = await create_individual(tenant.client, email="other@example.com")
    await activate(tenant.client, active["id"])

    async def ids(query: str) -> list[str]:
        response = await tenant.client.get(f"/v1/customers?{query}")
        assert response.status_code == 200, response.text
        return [item["id"] for item in response.json()["data"]]

    assert await ids("type=BUSINESS") == [business["id"]]
    assert await ids("status=ACTIVE") == [active["id"]]
    assert await ids("status=INCOMPLETE&type=INDIVIDUAL") == [individual["id"]]
    assert await ids("email=ada@example.com") == [individual["id"]]


async def test_list_rejects_unknown_filter_values(tenant):
    assert_error(await tenant.client.get("/v1/customers?status=HAPPY"), 422, "validation_error")
    assert_error(await tenant.client.get("/v1/customers?limit=0"), 422, "validation_error")
    assert_error(await tenant.client.get("/v1/customers?cursor=nope"), 422, "validation_error")


async def test_list_shows_only_the_organizations_customers(tenant, make_tenant):
    other = await make_tenant()
    await create_individual(other.client)
    mine = await create_individual(tenant.client)
    listed = (await tenant.client.get("/v1/customers")).json()["data"]
    assert [item["id"] for item in listed] == [mine["id"]]


async def test_q_searches_a_part_of_the_name_or_the_email_in_any_case(tenant):
    ada = await create_individual(tenant.client)
    grace = await create_individual(
        tenant.client, firstName="Grace", lastName="Hopper", email="grace_h@navy.example"
    )
    odd = await create_individual(
        tenant.client, firstName="Per%cent", lastName="Sign", email="pc@example.org"
    )

    async def found(query: str) -> list[str]:
        answer = await tenant.client.get("/v1/customers", params={"q": query})
        assert answer.status_code == 200, answer.text
        return [item["id"] for item in answer.json()["data"]]

    assert await found("LOVELACE") == [ada["id"]]
    assert await found("navy.EXAMPLE") == [grace["id"]]
    assert await found("example") == [odd["id"], grace["id"], ada["id"]]
    # LIKE's wildcards are plain characters: "_" and "%" match only themselves.
    assert await found("e_h") == [grace["id"]]
    assert await found("r%c") == [odd["id"]]
    assert await found("zzz") == []
    by_status = await tenant.client.get("/v1/customers", params={"q": "a", "status": "ACTIVE"})
    assert by_status.json()["data"] == []
    assert_error(
        await tenant.client.get("/v1/customers", params={"q": "x" * 101}), 422, "validation_error"
    )
    assert_error(await tenant.client.get("/v1/customers?q=a%00b"), 422, "validation_error")


async def test_get_returns_the_customer_without_expansions(tenant):
    customer = await create_individual(tenant.client)
    fetched = (await tenant.client.get(f"/v1/customers/{customer['id']}")).json()
    assert fetched == customer
    assert "accounts" not in fetched


async def test_expand_accounts_shows_balance_accounts_once_active(tenant):
    customer = await create_individual(tenant.client)
    before = (await tenant.client.get(f"/v1/customers/{customer['id']}?expand=accounts")).json()
    assert before["accounts"] == []
    await activate(tenant.client, customer["id"])
    after = (await tenant.client.get(f"/v1/customers/{customer['id']}?expand=accounts")).json()
    assert {account["currency"] for account in after["accounts"]} == {"USD", "USDC"}
    for account in after["accounts"]:
        assert set(account) == {"id", "customerId", "currency", "status", "createdAt"}
        assert account["id"].startswith("acc_")
        assert account["customerId"] == customer["id"]


async def test_expand_associated_entities_and_verification(tenant):
    business = await create_business(tenant.client)
    entity = await add_entity(tenant.client, business["id"])
    response = await tenant.client.get(
        f"/v1/customers/{business['id']}?expand=associatedEntities,verification"
    )
    body = response.json()
    assert [item["id"] for item in body["associatedEntities"]] == [entity["id"]]
    assert body["verification"]["requirementsSatisfied"] is True
    assert body["verification"]["status"] == "INCOMPLETE"


async def test_unknown_expansion_is_a_validation_error(tenant):
    customer = await create_individual(tenant.client)
    body = assert_error(
        await tenant.client.get(f"/v1/customers/{customer['id']}?expand=accounts,secrets"),
        422,
        "validation_error",
    )
    assert body["errors"][0]["field"] == "expand"


async def test_unknown_customer_is_404(tenant):
    assert_error(await tenant.client.get("/v1/customers/cus_nope"), 404, "not_found")


async def test_another_organizations_customer_is_404_everywhere(tenant, make_tenant):
    other = await make_tenant()
    theirs = await create_individual(other.client)
    path = f"/v1/customers/{theirs['id']}"
    client = tenant.client
    assert_error(await client.get(path), 404, "not_found")
    assert_error(await client.patch(path, json={"phone": None}), 404, "not_found")
    assert_error(await client.post(f"{path}/archive"), 404, "not_found")
    assert_error(await client.get(f"{path}/capabilities"), 404, "not_found")
    assert_error(await client.get(f"{path}/compliance-requirements"), 404, "not_found")
    assert_error(await client.post(f"{path}/submit-verification"), 404, "not_found")
    assert_error(await client.get(f"{path}/verification-status"), 404, "not_found")
    assert_error(
        await client.put(f"{path}/individual-verification", json={"nationality": "US"}),
        404,
        "not_found",
    )
    assert_error(
        await client.post(
            f"/v1/sandbox/customers/{theirs['id']}/verification-status", json={"status": "ACTIVE"}
        ),
        404,
        "not_found",
    )
    assert (await other.client.get(path)).json()["status"] == "INCOMPLETE"


# --- Updating and archiving ---------------------------------------------------------------


async def test_patch_changes_only_the_fields_sent_and_emits_updated(app, tenant):
    customer = await create_individual(tenant.client, metadata={"a": "1", "b": "2"})
    response = await tenant.client.patch(
        f"/v1/customers/{customer['id']}",
        json={
            "email": "ada@new.example",
            "phone": None,
            "firstName": "Augusta",
            "metadata": {"a": None, "c": "3"},
        },
    )
    assert response.status_code == 200, response.text
    updated = response.json()
    assert updated["email"] == "ada@new.example"
    assert updated["phone"] is None
    assert updated["name"] == "Augusta Lovelace"
    assert updated["metadata"] == {"b": "2", "c": "3"}
    assert updated["address"] == customer["address"]
    (event,) = await events_of(app, tenant.organization_id, "customer.updated")
    assert event.data == updated


async def test_patch_of_a_business_changes_its_business_fields(tenant):
    business = await create_business(tenant.client)
    updated = (
        await tenant.client.patch(
            f"/v1/customers/{business['id']}",
            json={"legalName": "Difference Engines plc", "dbaName": "DE", "website": None},
        )
    ).json()
    assert updated["name"] == "Difference Engines plc"
    assert updated["dbaName"] == "DE"
    assert updated["website"] is None


async def test_patch_refuses_fields_of_the_other_customer_type_and_nulls(tenant):
    customer = await create_individual(tenant.client)
    body = assert_error(
        await tenant.client.patch(
            f"/v1/customers/{customer['id']}",
            json={"legalName": "X", "website": "https://x.example", "email": None},
        ),
        422,
        "validation_error",
    )
    assert {error["field"] for error in body["errors"]} == {"legalName", "website", "email"}


async def test_patch_can_link_terms_of_service_later(tenant):
    response = await tenant.client.post(
        "/v1/customers/individual",
        json={"firstName": "Grace", "lastName": "Hopper", "email": "grace@example.com"},
    )
    customer = response.json()
    acceptance_id = await accepted_terms_of_service(tenant.client)
    updated = (
        await tenant.client.patch(
            f"/v1/customers/{customer['id']}", json={"tosAcceptanceId": acceptance_id}
        )
    ).json()
    assert updated["tosAcceptanceId"] == acceptance_id


async def test_patch_rejects_unknown_fields_and_bad_values(tenant):
    customer = await create_individual(tenant.client)
    path = f"/v1/customers/{customer['id']}"
    assert_error(
        await tenant.client.patch(path, json={"status": "ACTIVE"}), 422, "validation_error"
    )
    assert_error(await tenant.client.patch(path, json={"email": 5}), 422, "validation_error")
    assert_error(
        await tenant.client.patch(path, content=b"{", headers={"Content-Type": "application/json"}),
        400,
        "invalid_json",
    )


async def test_archive_is_final_and_blocks_edits(app, tenant):
    customer = await create_individual(tenant.client)
    path = f"/v1/customers/{customer['id']}"
    archived = await tenant.client.post(f"{path}/archive")
    assert archived.status_code == 200, archived.text
    assert archived.json()["status"] == "ARCHIVED"
    assert archived.json()["archivedAt"] is not None
    body = assert_error(await tenant.client.patch(path, json={"phone": None}), 409, "invalid_state")
    assert body["currentStatus"] == "ARCHIVED"
    assert_error(await tenant.client.post(f"{path}/archive"), 409, "invalid_state")
    assert_error(
        await tenant.client.put(f"{path}/individual-verification", json={"nationality": "FR"}),
        409,
        "invalid_state",
    )
    changes = await events_of(app, tenant.organization_id, "customer.status_changed")
    assert [event.data["status"] for event in changes] == ["ARCHIVED"]


async def test_capabilities_follow_the_status(tenant):
    customer = await create_individual(tenant.client)
    path = f"/v1/customers/{customer['id']}/capabilities"
    pending = (await tenant.client.get(path)).json()
    assert pending["customerId"] == customer["id"]
    assert {item["name"] for item in pending["capabilities"]} == {
        "fiat_payouts",
        "fiat_deposits",
        "crypto_payouts",
        "crypto_deposits",
    }
    assert {item["status"] for item in pending["capabilities"]} == {"PENDING"}
    await activate(tenant.client, customer["id"])
    active = (await tenant.client.get(path)).json()
    assert {item["status"] for item in active["capabilities"]} == {"ACTIVE"}


# --- Who may call -------------------------------------------------------------------------


async def test_reading_needs_customers_read_and_writing_customers_write(app, tenant):
    customer = await create_individual(tenant.client)
    async with await restricted_client(app, tenant, ["customers:read"]) as reader:
        assert (await reader.get(f"/v1/customers/{customer['id']}")).status_code == 200
        assert (await reader.get("/v1/customers")).status_code == 200
        assert_error(
            await reader.post(
                "/v1/customers/individual",
                json={"firstName": "A", "lastName": "B", "email": "a@example.com"},
            ),
            403,
            "forbidden",
        )
        assert_error(
            await reader.patch(f"/v1/customers/{customer['id']}", json={"phone": None}),
            403,
            "forbidden",
        )
        assert_error(
            await reader.post("/v1/terms-of-service/acceptances", json={}), 403, "forbidden"
        )
    async with await restricted_client(app, tenant, ["transfers:read"]) as outsider:
        assert_error(await outsider.get("/v1/customers"), 403, "forbidden")
        assert_error(await outsider.get(f"/v1/customers/{customer['id']}"), 403, "forbidden")


async def test_write_scope_includes_reading(app, tenant):
    async with await restricted_client(app, tenant, ["customers:write"]) as writer:
        created = await create_individual(writer)
        assert (await writer.get(f"/v1/customers/{created['id']}")).status_code == 200


async def test_sandbox_operation_needs_the_sandbox_scope(app, tenant):
    customer = await create_individual(tenant.client)
    async with await restricted_client(app, tenant, ["customers:write"]) as writer:
        assert_error(
            await writer.post(
                f"/v1/sandbox/customers/{customer['id']}/verification-status",
                json={"status": "ACTIVE"},
            ),
            403,
            "forbidden",
        )


async def test_without_credentials_every_customer_path_is_401(anonymous):
    assert_error(await anonymous.get("/v1/customers"), 401, "unauthorized")
    assert_error(await anonymous.post("/v1/customers/individual", json={}), 401, "unauthorized")


async def test_caller_bound_to_a_customer_sees_only_that_customer(app, tenant):
    mine = await create_individual(tenant.client)
    other = await create_individual(tenant.client, email="other@example.com")
    headers = {**tenant.headers(), "X-Corridor-On-Behalf-Of": mine["id"]}
    async with client_for(app, headers) as bound:
        listed = (await bound.get("/v1/customers")).json()["data"]
        assert [item["id"] for item in listed] == [mine["id"]]
        assert (await bound.get(f"/v1/customers/{mine['id']}")).status_code == 200
        assert_error(await bound.get(f"/v1/customers/{other['id']}"), 404, "not_found")
        assert_error(
            await bound.post(
                "/v1/customers/individual",
                json={"firstName": "A", "lastName": "B", "email": "a@example.com"},
            ),
            403,
            "forbidden",
        )


async def test_platform_session_must_be_bound_before_reading_customers(app, make_tenant):
    platform = await make_tenant(kind="PLATFORM")
    assert_error(await platform.client.get("/v1/customers"), 403, "customer_binding_required")
    # Creating a business customer is how an unbound platform session starts (spec 5.7).
    business = await create_business(platform.client)
    assert_error(
        await platform.client.get(f"/v1/customers/{business['id']}"),
        403,
        "customer_binding_required",
    )
    headers = {**platform.headers(), "X-Corridor-On-Behalf-Of": business["id"]}
    async with client_for(app, headers) as bound:
        fetched = await bound.get(f"/v1/customers/{business['id']}")
        assert fetched.status_code == 200, fetched.text
        assert [item["id"] for item in (await bound.get("/v1/customers")).json()["data"]] == [
            business["id"]
        ]
