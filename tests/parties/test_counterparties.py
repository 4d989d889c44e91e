"""Counterparties over HTTP: create with transliteration, read, list, update, soft delete."""

from __future__ import annotations

import pytest

from corridor.auth.callers import Caller, CallerKind
from corridor.kit.errors import NotFound
from corridor.parties import service
from tests.conftest import assert_error, client_for
from tests.customers.helpers import events_of, restricted_client
from tests.parties.helpers import (
    ADDRESS,
    create_account,
    create_counterparty,
    create_wallet,
)
from tests.support import create_individual

# --- Creating -----------------------------------------------------------------------------


async def test_create_answers_the_expanded_form_with_customer_and_email(tenant):
    customer = await create_individual(tenant.client)
    counterparty = await create_counterparty(tenant.client, customer["id"])
    assert counterparty["id"].startswith("cp_")
    assert counterparty["customerId"] == customer["id"]
    assert counterparty["name"] == "Müller Maschinenbau GmbH"
    assert counterparty["beneficiaryType"] == "BUSINESS"
    assert counterparty["email"] == "ap@mueller.example"
    assert counterparty["createdAt"].endswith("Z") and counterparty["updatedAt"].endswith("Z")
    address = counterparty["address"]
    assert {key: address[key] for key in ADDRESS} == ADDRESS
    assert address["transliterated"] == {
        "addressLine1": "Strasse 5",
        "addressLine2": "Hinterhaus",
        "city": "Zurich",
        "state": "ZH",
    }


async def test_cyrillic_address_is_transliterated_to_ascii(tenant):
    customer = await create_individual(tenant.client)
    address = {"addressLine1": "Тверская улица 7", "city": "Москва", "country": "RU"}
    counterparty = await create_counterparty(
        tenant.client, customer["id"], address=address, beneficiaryType="INDIVIDUAL"
    )
    transliterated = counterparty["address"]["transliterated"]
    assert transliterated["city"] == "Moskva"
    assert transliterated["addressLine1"].isascii()
    assert transliterated["addressLine1"].startswith("Tverskaya")
    assert transliterated["addressLine2"] is None and transliterated["state"] is None


async def test_ascii_address_is_its_own_transliteration(tenant):
    customer = await create_individual(tenant.client)
    address = {
        "addressLine1": "1 Market Street",
        "city": "San Francisco",
        "state": "CA",
        "country": "US",
    }
    counterparty = await create_counterparty(tenant.client, customer["id"], address=address)
    transliterated = counterparty["address"]["transliterated"]
    assert transliterated == {
        "addressLine1": "1 Market Street",
        "addressLine2": None,
        "city": "San Francisco",
        "state": "CA",
    }


async def test_create_emits_counterparty_created_with_the_resource(app, tenant):
    customer = await create_individual(tenant.client)
    counterparty = await create_counterparty(tenant.client, customer["id"])
    (event,) = await events_of(app, tenant.organization_id, "counterparty.created")
    assert event.data == counterparty
    assert set(event.tags) == {counterparty["id"], customer["id"]}


async def test_create_for_an_unknown_or_foreign_customer_is_404(tenant, make_tenant):
    other = await make_tenant()
    foreign = await create_individual(other.client)
    for customer_id in (foreign["id"], "cus_" + "0" * 26, "not-an-id"):
        response = await tenant.client.post(
            "/v1/counterparties",
            json={
                "customerId": customer_id,
                "name": "X",
                "beneficiaryType": "INDIVIDUAL",
                "address": ADDRESS,
            },
        )
        assert_error(response, 404, "not_found")


async def test_create_for_an_archived_customer_is_409(tenant):
    customer = await create_individual(tenant.client)
    archived = await tenant.client.post(f"/v1/customers/{customer['id']}/archive")
    assert archived.status_code == 200, archived.text
    response = await tenant.client.post(
        "/v1/counterparties",
        json={
            "customerId": customer["id"],
            "name": "X",
            "beneficiaryType": "BUSINESS",
            "address": ADDRESS,
        },
    )
    body = assert_error(response, 409, "invalid_state")
    assert body["currentStatus"] == "ARCHIVED"


async def test_create_refuses_bad_fields_naming_each(tenant):
    customer = await create_individual(tenant.client)
    body = assert_error(
        await tenant.client.post(
            "/v1/counterparties",
            json={
                "customerId": customer["id"],
                "name": "x" * 201,
                "beneficiaryType": "ROBOT",
                "address": {**ADDRESS, "country": "Switzerland"},
                "email": "not-an-email",
                "id": "cp_mine",
            },
        ),
        422,
        "validation_error",
    )
    fields = {error["field"] for error in body["errors"]}
    assert fields == {"name", "beneficiaryType", "address.country", "email", "id"}


async def test_create_with_the_same_idempotency_key_replays_the_first_answer(app, tenant):
    customer = await create_individual(tenant.client)
    body = {
        "customerId": customer["id"],
        "name": "Y",
        "beneficiaryType": "INDIVIDUAL",
        "address": ADDRESS,
    }
    headers = {"Idempotency-Key": "cp-once"}
    first = await tenant.client.post("/v1/counterparties", json=body, headers=headers)
    again = await tenant.client.post("/v1/counterparties", json=body, headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.content == first.content
    assert again.headers["idempotent-replayed"] == "true"
    assert len(await events_of(app, tenant.organization_id, "counterparty.created")) == 1


# --- Reading ------------------------------------------------------------------------------


async def test_get_and_list_newest_first_with_filters(tenant):
    first_customer = await create_individual(tenant.client)
    second_customer = await create_individual(tenant.client)
    older = await create_counterparty(
        tenant.client, first_customer["id"], beneficiaryType="INDIVIDUAL"
    )
    newer = await create_counterparty(tenant.client, first_customer["id"])
    other = await create_counterparty(tenant.client, second_customer["id"])

    fetched = await tenant.client.get(f"/v1/counterparties/{older['id']}")
    assert fetched.status_code == 200 and fetched.json() == older

    listed = (await tenant.client.get("/v1/counterparties")).json()
    assert [item["id"] for item in listed["data"]] == [other["id"], newer["id"], older["id"]]
    assert listed["hasMore"] is False and listed["nextCursor"] is None

    by_customer = await tenant.client.get(f"/v1/counterparties?customerId={first_customer['id']}")
    assert [item["id"] for item in by_customer.json()["data"]] == [newer["id"], older["id"]]
    individuals = await tenant.client.get("/v1/counterparties?beneficiaryType=INDIVIDUAL")
    assert [item["id"] for item in individuals.json()["data"]] == [older["id"]]

    page = (await tenant.client.get("/v1/counterparties?limit=2")).json()
    assert page["hasMore"] is True
    rest = (
        await tenant.client.get(f"/v1/counterparties?limit=2&cursor={page['nextCursor']}")
    ).json()
    assert [item["id"] for item in rest["data"]] == [older["id"]]


async def test_list_refuses_a_customer_filter_that_is_not_an_id(tenant):
    assert_error(
        await tenant.client.get("/v1/counterparties?customerId=x%00"), 422, "validation_error"
    )
    assert_error(
        await tenant.client.get("/v1/counterparties?beneficiaryType=ROBOT"), 422, "validation_error"
    )


async def test_another_organizations_counterparty_is_404(tenant, make_tenant):
    other = await make_tenant()
    foreign_customer = await create_individual(other.client)
    foreign = await create_counterparty(other.client, foreign_customer["id"])
    assert_error(await tenant.client.get(f"/v1/counterparties/{foreign['id']}"), 404, "not_found")
    assert_error(
        await tenant.client.patch(f"/v1/counterparties/{foreign['id']}", json={"name": "Z"}),
        404,
        "not_found",
    )
    assert_error(
        await tenant.client.delete(f"/v1/counterparties/{foreign['id']}"), 404, "not_found"
    )
    assert (await tenant.client.get("/v1/counterparties")).json()["data"] == []


# --- Updating -----------------------------------------------------------------------------


async def test_update_changes_only_the_fields_sent_and_emits_updated(app, tenant):
    customer = await create_individual(tenant.client)
    counterparty = await create_counterparty(tenant.client, customer["id"])
    new_address = {"addressLine1": "Rue de Genève 3", "city": "Genève", "country": "CH"}
    response = await tenant.client.patch(
        f"/v1/counterparties/{counterparty['id']}",
        json={"name": "Müller AG", "address": new_address, "email": None},
    )
    assert response.status_code == 200, response.text
    updated = response.json()
    assert updated["name"] == "Müller AG"
    assert updated["email"] is None
    assert updated["beneficiaryType"] == "BUSINESS"
    assert updated["address"]["city"] == "Genève"
    assert updated["address"]["transliterated"]["city"] == "Geneve"
    assert updated["address"]["transliterated"]["addressLine1"] == "Rue de Geneve 3"
    assert updated["address"]["addressLine2"] is None
    (event,) = await events_of(app, tenant.organization_id, "counterparty.updated")
    assert event.data == updated
    assert (await tenant.client.get(f"/v1/counterparties/{counterparty['id']}")).json() == updated


async def test_update_that_changes_nothing_emits_no_event(app, tenant):
    customer = await create_individual(tenant.client)
    counterparty = await create_counterparty(tenant.client, customer["id"])
    for body in ({}, {"name": counterparty["name"], "beneficiaryType": "BUSINESS"}):
        response = await tenant.client.patch(f"/v1/counterparties/{counterparty['id']}", json=body)
        assert response.status_code == 200
        assert response.json() == counterparty
    assert await events_of(app, tenant.organization_id, "counterparty.updated") == []


async def test_update_refuses_null_for_required_fields_and_unknown_fields(tenant):
    customer = await create_individual(tenant.client)
    counterparty = await create_counterparty(tenant.client, customer["id"])
    path = f"/v1/counterparties/{counterparty['id']}"
    body = assert_error(
        await tenant.client.patch(path, json={"name": None, "address": None}),
        422,
        "validation_error",
    )
    assert {error["field"] for error in body["errors"]} == {"name", "address"}
    body = assert_error(
        await tenant.client.patch(path, json={"customerId": customer["id"]}),
        422,
        "validation_error",
    )
    assert body["errors"][0] == {"field": "customerId", "message": "unknown field"}


# --- Deleting -----------------------------------------------------------------------------


async def test_delete_is_soft_404_afterwards_and_closes_its_accounts_and_wallets(app, tenant):
    customer = await create_individual(tenant.client)
    counterparty = await create_counterparty(tenant.client, customer["id"])
    account = await create_account(tenant.client, {"counterpartyId": counterparty["id"]})
    wallet = await create_wallet(tenant.client, {"counterpartyId": counterparty["id"]})
    own_account = await create_account(tenant.client, {"customerId": customer["id"]})

    response = await tenant.client.delete(f"/v1/counterparties/{counterparty['id']}")
    assert response.status_code == 204
    assert response.content == b""

    path = f"/v1/counterparties/{counterparty['id']}"
    assert_error(await tenant.client.get(path), 404, "not_found")
    assert_error(await tenant.client.patch(path, json={"name": "Z"}), 404, "not_found")
    assert_error(await tenant.client.delete(path), 404, "not_found")
    assert (await tenant.client.get("/v1/counterparties")).json()["data"] == []

    closed = (await tenant.client.get(f"/v1/external-accounts/{account['id']}")).json()
    assert closed["status"] == "CLOSED" and closed["closedAt"] is not None
    closed_wallet = (await tenant.client.get(f"/v1/external-wallets/{wallet['id']}")).json()
    assert closed_wallet["status"] == "CLOSED"
    still_open = (await tenant.client.get(f"/v1/external-accounts/{own_account['id']}")).json()
    assert still_open["status"] == "ACTIVE"

    (deleted,) = await events_of(app, tenant.organization_id, "counterparty.deleted")
    assert deleted.data["id"] == counterparty["id"]
    assert set(deleted.tags) == {counterparty["id"], customer["id"]}
    (account_closed,) = await events_of(app, tenant.organization_id, "external_account.closed")
    assert account_closed.data == closed


async def test_no_new_account_or_wallet_for_a_deleted_counterparty(tenant):
    customer = await create_individual(tenant.client)
    counterparty = await create_counterparty(tenant.client, customer["id"])
    await tenant.client.delete(f"/v1/counterparties/{counterparty['id']}")
    owner = {"counterpartyId": counterparty["id"]}
    response = await tenant.client.post(
        "/v1/external-accounts",
        json={
            **owner,
            "currency": "USD",
            "country": "US",
            "accountHolderName": "X",
            "accountNumber": "1234567",
            "routingNumber": "021000021",
        },
    )
    assert_error(response, 404, "not_found")
    response = await tenant.client.post(
        "/v1/external-wallets",
        json={**owner, "chain": "SOLANA", "address": "So11111111111111111111111111111111111111112"},
    )
    assert_error(response, 404, "not_found")


async def test_transfers_still_read_a_deleted_counterparty_through_the_service(app, tenant):
    customer = await create_individual(tenant.client)
    counterparty = await create_counterparty(tenant.client, customer["id"])
    await tenant.client.delete(f"/v1/counterparties/{counterparty['id']}")
    caller = Caller(
        kind=CallerKind.ORGANIZATION_KEY,
        organization_id=tenant.organization_id,
        actor_id="key_test",
        scopes=frozenset({"transfers:write"}),
    )
    async with app.state.database.session(write=False) as session:
        found = await service.get_counterparty(
            session, caller=caller, counterparty_id=counterparty["id"], include_deleted=True
        )
        assert found.deleted_at is not None
        read = service.counterparty_read(found)
        assert read.pop("updatedAt") >= counterparty.pop("updatedAt")
        assert read == counterparty
        with pytest.raises(NotFound):
            await service.get_counterparty(
                session, caller=caller, counterparty_id=counterparty["id"]
            )


# --- Who may ------------------------------------------------------------------------------


async def test_counterparties_need_the_counterparties_scopes(app, tenant):
    customer = await create_individual(tenant.client)
    counterparty = await create_counterparty(tenant.client, customer["id"])
    body = {
        "customerId": customer["id"],
        "name": "X",
        "beneficiaryType": "BUSINESS",
        "address": ADDRESS,
    }
    async with await restricted_client(app, tenant, ["customers:write"]) as customers_only:
        assert_error(await customers_only.get("/v1/counterparties"), 403, "forbidden")
        assert_error(await customers_only.post("/v1/counterparties", json=body), 403, "forbidden")
    async with await restricted_client(app, tenant, ["counterparties:read"]) as reader:
        assert (await reader.get(f"/v1/counterparties/{counterparty['id']}")).status_code == 200
        assert_error(await reader.post("/v1/counterparties", json=body), 403, "forbidden")
        path = f"/v1/counterparties/{counterparty['id']}"
        assert_error(await reader.patch(path, json={"name": "Z"}), 403, "forbidden")
        assert_error(await reader.delete(path), 403, "forbidden")
    async with await restricted_client(app, tenant, ["counterparties:write"]) as writer:
        assert (await writer.post("/v1/counterparties", json=body)).status_code == 201


async def test_a_caller_bound_to_a_customer_sees_only_its_counterparties(app, tenant):
    mine = await create_individual(tenant.client)
    theirs = await create_individual(tenant.client)
    my_counterparty = await create_counterparty(tenant.client, mine["id"])
    their_counterparty = await create_counterparty(tenant.client, theirs["id"])
    async with client_for(
        app, {**tenant.headers(), "X-Corridor-On-Behalf-Of": mine["id"]}
    ) as bound:
        listed = (await bound.get("/v1/counterparties")).json()["data"]
        assert [item["id"] for item in listed] == [my_counterparty["id"]]
        assert_error(
            await bound.get(f"/v1/counterparties/{their_counterparty['id']}"), 404, "not_found"
        )
        response = await bound.post(
            "/v1/counterparties",
            json={
                "customerId": theirs["id"],
                "name": "X",
                "beneficiaryType": "BUSINESS",
                "address": ADDRESS,
            },
        )
        assert_error(response, 404, "not_found")
