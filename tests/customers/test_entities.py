"""Associated entities of business customers over HTTP, and their verification links."""

from __future__ import annotations

import pytest

from tests.conftest import assert_error
from tests.customers.helpers import OWNER, add_entity, create_business
from tests.support import create_individual


async def test_add_get_update_and_delete_an_entity(tenant):
    business = await create_business(tenant.client)
    base = f"/v1/customers/{business['id']}/associated-entities"
    entity = await add_entity(tenant.client, business["id"], taxIdentificationNumber="AB-123456")
    assert entity["id"].startswith("ae_")
    assert entity["customerId"] == business["id"]
    assert entity["roles"] == ["BENEFICIAL_OWNER"]
    assert entity["ownershipPercentage"] == "60.00"
    assert entity["taxIdentificationNumberLast4"] == "3456"
    assert entity["verificationStatus"] == "NOT_STARTED"
    fetched = await tenant.client.get(f"{base}/{entity['id']}")
    assert fetched.json() == entity
    updated = await tenant.client.patch(
        f"{base}/{entity['id']}",
        json={"roles": ["CONTROL_PERSON", "DIRECTOR"], "title": "CEO", "ownershipPercentage": None},
    )
    assert updated.status_code == 200, updated.text
    assert updated.json()["roles"] == ["CONTROL_PERSON", "DIRECTOR"]
    assert updated.json()["title"] == "CEO"
    assert updated.json()["ownershipPercentage"] is None
    assert updated.json()["firstName"] == "Charles"
    deleted = await tenant.client.delete(f"{base}/{entity['id']}")
    assert deleted.status_code == 204
    assert_error(await tenant.client.get(f"{base}/{entity['id']}"), 404, "not_found")


async def test_business_entities_need_a_legal_name_and_no_person_fields(tenant):
    business = await create_business(tenant.client)
    body = assert_error(
        await tenant.client.post(
            f"/v1/customers/{business['id']}/associated-entities",
            json={"type": "BUSINESS", "roles": ["DIRECTOR"], "firstName": "X"},
        ),
        422,
        "validation_error",
    )
    assert {error["field"] for error in body["errors"]} == {"legalName", "firstName"}
    holding = await add_entity(
        tenant.client,
        business["id"],
        type="BUSINESS",
        firstName=None,
        lastName=None,
        legalName="Holding plc",
        incorporationCountry="GB",
        ownershipPercentage="40",
    )
    assert holding["legalName"] == "Holding plc"


async def test_individual_entities_need_names(tenant):
    business = await create_business(tenant.client)
    body = assert_error(
        await tenant.client.post(
            f"/v1/customers/{business['id']}/associated-entities",
            json={"type": "INDIVIDUAL", "roles": ["DIRECTOR"]},
        ),
        422,
        "validation_error",
    )
    assert {error["field"] for error in body["errors"]} == {"firstName", "lastName"}


async def test_beneficial_owners_need_an_ownership_and_ownership_adds_to_at_most_100(tenant):
    business = await create_business(tenant.client)
    base = f"/v1/customers/{business['id']}/associated-entities"
    body = assert_error(
        await tenant.client.post(base, json={**OWNER, "ownershipPercentage": None}),
        422,
        "validation_error",
    )
    assert body["errors"][0]["field"] == "ownershipPercentage"
    await add_entity(tenant.client, business["id"], ownershipPercentage="60")
    assert_error(
        await tenant.client.post(base, json={**OWNER, "ownershipPercentage": "40.01"}),
        422,
        "validation_error",
    )
    await add_entity(tenant.client, business["id"], ownershipPercentage="40")


@pytest.mark.parametrize(
    "changes",
    [
        {"roles": []},
        {"roles": ["KING"]},
        {"ownershipPercentage": "0"},
        {"ownershipPercentage": "100.001"},
        {"ownershipPercentage": "101"},
        {"ownershipPercentage": 25},
        {"type": "PERSON"},
        {"email": "not-an-email"},
        {"firstName": "x" * 101},
        {"verificationStatus": "VERIFIED"},
    ],
)
async def test_entity_fields_are_validated(tenant, changes):
    business = await create_business(tenant.client)
    response = await tenant.client.post(
        f"/v1/customers/{business['id']}/associated-entities", json={**OWNER, **changes}
    )
    assert_error(response, 422, "validation_error")


async def test_entity_type_cannot_change_and_roles_cannot_be_null(tenant):
    business = await create_business(tenant.client)
    entity = await add_entity(tenant.client, business["id"])
    path = f"/v1/customers/{business['id']}/associated-entities/{entity['id']}"
    assert_error(
        await tenant.client.patch(path, json={"type": "BUSINESS"}), 422, "validation_error"
    )
    assert_error(await tenant.client.patch(path, json={"roles": None}), 422, "validation_error")


async def test_individual_customers_have_no_associated_entities(tenant):
    customer = await create_individual(tenant.client)
    body = assert_error(
        await tenant.client.post(f"/v1/customers/{customer['id']}/associated-entities", json=OWNER),
        409,
        "invalid_state",
    )
    assert body["currentStatus"] == "INCOMPLETE"


async def test_entities_of_an_archived_customer_cannot_change(tenant):
    business = await create_business(tenant.client)
    entity = await add_entity(tenant.client, business["id"])
    await tenant.client.post(f"/v1/customers/{business['id']}/archive")
    base = f"/v1/customers/{business['id']}/associated-entities"
    assert_error(await tenant.client.post(base, json=OWNER), 409, "invalid_state")
    assert_error(
        await tenant.client.patch(f"{base}/{entity['id']}", json={"title": "x"}),
        409,
        "invalid_state",
    )
    assert_error(await tenant.client.delete(f"{base}/{entity['id']}"), 409, "invalid_state")
    assert (await tenant.client.get(f"{base}/{entity['id']}")).status_code == 200


async def test_entities_of_another_organization_are_404(tenant, make_tenant):
    other = await make_tenant()
    business = await create_business(other.client)
    entity = await add_entity(other.client, business["id"])
    base = f"/v1/customers/{business['id']}/associated-entities"
    assert_error(await tenant.client.get(f"{base}/{entity['id']}"), 404, "not_found")
    assert_error(await tenant.client.post(base, json=OWNER), 404, "not_found")
    assert_error(await tenant.client.delete(f"{base}/{entity['id']}"), 404, "not_found")
    assert_error(
        await tenant.client.post(f"{base}/{entity['id']}/verification-link"), 404, "not_found"
    )


async def test_an_entity_of_another_customer_is_404(tenant):
    first = await create_business(tenant.client)
    second = await create_business(tenant.client)
    entity = await add_entity(tenant.client, first["id"])
    path = f"/v1/customers/{second['id']}/associated-entities/{entity['id']}"
    assert_error(await tenant.client.get(path), 404, "not_found")


async def test_verification_link_has_a_url_and_an_expiry(tenant):
    business = await create_business(tenant.client)
    entity = await add_entity(tenant.client, business["id"])
    base = f"/v1/customers/{business['id']}/associated-entities/{entity['id']}"
    response = await tenant.client.post(f"{base}/verification-link")
    assert response.status_code == 201, response.text
    link = response.json()
    assert link["id"].startswith("vs_")
    assert link["associatedEntityId"] == entity["id"]
    assert "token=" in link["url"]
    assert link["expiresAt"].endswith("Z")
    configuration = (
        await tenant.client.get(f"/v1/verification-sessions/{link['id']}/configuration")
    ).json()
    assert configuration["associatedEntityId"] == entity["id"]
    assert configuration["subjectType"] == "INDIVIDUAL"
    # Deleting the entity takes its links with it.
    assert (await tenant.client.delete(base)).status_code == 204
    assert_error(
        await tenant.client.get(f"/v1/verification-sessions/{link['id']}/configuration"),
        404,
        "not_found",
    )


async def test_a_replayed_verification_link_does_not_show_the_token_again(tenant):
    business = await create_business(tenant.client)
    entity = await add_entity(tenant.client, business["id"])
    path = f"/v1/customers/{business['id']}/associated-entities/{entity['id']}/verification-link"
    first = await tenant.client.post(path, headers={"Idempotency-Key": "link"})
    again = await tenant.client.post(path, headers={"Idempotency-Key": "link"})
    assert first.status_code == again.status_code == 201, again.text
    assert again.headers["idempotent-replayed"] == "true"
    assert first.json()["url"].split("token=")[1] not in again.text
    assert again.json()["url"] is None and again.json()["secretNote"]
    assert again.json()["id"] == first.json()["id"]
