"""External wallets over HTTP: address checks per chain, third parties, labels."""

from __future__ import annotations

import pytest

from tests.conftest import assert_error, client_for
from tests.customers.helpers import events_of, restricted_client
from tests.parties.helpers import (
    EVM_ADDRESS,
    SOLANA_ADDRESS,
    TRON_ADDRESS,
    create_counterparty,
    create_wallet,
)
from tests.support import create_individual


@pytest.fixture
async def customer(tenant) -> dict:
    return await create_individual(tenant.client)


def _flip_case_of_one_letter(address: str) -> str:
    index = next(i for i, character in enumerate(address) if i > 1 and character.isalpha())
    flipped = address[index].swapcase()
    return address[:index] + flipped + address[index + 1 :]


# --- Address checks -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("chain", "address"),
    [
        ("ETHEREUM", EVM_ADDRESS),
        ("ETHEREUM", "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359"),
        ("BASE", "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB"),
        ("POLYGON", "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb"),
        ("ETHEREUM", EVM_ADDRESS.lower()),
        ("ETHEREUM", "0x52908400098527886E0F7030069857D2E4169EE7"),
        ("SOLANA", SOLANA_ADDRESS),
        ("SOLANA", "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"),
        ("TRON", TRON_ADDRESS),
        ("TRON", "TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7"),
    ],
)
async def test_valid_addresses_are_accepted_as_sent(tenant, customer, chain, address):
    wallet = await create_wallet(
        tenant.client, {"customerId": customer["id"]}, chain=chain, address=address
    )
    assert wallet["id"].startswith("ewa_")
    assert wallet["chain"] == chain
    assert wallet["address"] == address
    assert wallet["status"] == "ACTIVE"
    assert wallet["isThirdParty"] is False
    assert wallet["customerId"] == customer["id"]


@pytest.mark.parametrize(
    ("chain", "address", "reason"),
    [
        ("ETHEREUM", _flip_case_of_one_letter(EVM_ADDRESS), "EIP-55 checksum"),
        ("BASE", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD", "EIP-55 checksum"),
        ("POLYGON", EVM_ADDRESS[:-1], "40 hexadecimal digits"),
        ("ETHEREUM", "0x" + "g" * 40, "40 hexadecimal digits"),
        ("ETHEREUM", SOLANA_ADDRESS, "40 hexadecimal digits"),
        ("SOLANA", "So1111111111111111111111111111111111111111O", "base58"),
        ("SOLANA", "z" * 44, "32 bytes"),
        ("SOLANA", "1" * 31, "32 to 44"),
        ("SOLANA", EVM_ADDRESS, "base58"),
        ("TRON", TRON_ADDRESS[:-1] + "u", "checksum"),
        ("TRON", "A" + TRON_ADDRESS[1:], "starting with T"),
        ("TRON", TRON_ADDRESS[:10] + "0" + TRON_ADDRESS[11:], "base58"),
    ],
)
async def test_wrong_addresses_are_422_naming_address_with_the_reason(
    tenant, customer, chain, address, reason
):
    response = await tenant.client.post(
        "/v1/external-wallets",
        json={"customerId": customer["id"], "chain": chain, "address": address},
    )
    body = assert_error(response, 422, "validation_error")
    (error,) = body["errors"]
    assert error["field"] == "address"
    assert reason in error["message"]
    assert chain in error["message"]


async def test_only_chain_rails_are_chains(tenant, customer):
    for chain in ("ACH", "SWIFT", "ethereum", "BITCOIN"):
        response = await tenant.client.post(
            "/v1/external-wallets",
            json={"customerId": customer["id"], "chain": chain, "address": EVM_ADDRESS},
        )
        body = assert_error(response, 422, "validation_error")
        assert body["errors"][0]["field"] == "chain"


async def test_exactly_one_owner_and_no_over_long_fields(tenant, customer):
    counterparty = await create_counterparty(tenant.client, customer["id"])
    response = await tenant.client.post(
        "/v1/external-wallets",
        json={
            "customerId": customer["id"],
            "counterpartyId": counterparty["id"],
            "chain": "ETHEREUM",
            "address": EVM_ADDRESS,
        },
    )
    assert assert_error(response, 422, "validation_error")["errors"][0]["field"] == "customerId"
    response = await tenant.client.post(
        "/v1/external-wallets",
        json={
            "customerId": customer["id"],
            "chain": "ETHEREUM",
            "address": "0x" + "a" * 100,
            "label": "l" * 101,
        },
    )
    body = assert_error(response, 422, "validation_error")
    assert {error["field"] for error in body["errors"]} == {"address", "label"}


# --- Owners, events, updates --------------------------------------------------------------


async def test_a_counterpartys_wallet_is_third_party_and_emits_created(app, tenant, customer):
    counterparty = await create_counterparty(tenant.client, customer["id"])
    wallet = await create_wallet(
        tenant.client, {"counterpartyId": counterparty["id"]}, label="Supplier"
    )
    assert wallet["isThirdParty"] is True
    assert wallet["counterpartyId"] == counterparty["id"]
    assert wallet["customerId"] is None
    assert wallet["label"] == "Supplier"
    (event,) = await events_of(app, tenant.organization_id, "external_wallet.created")
    assert event.data == wallet
    assert set(event.tags) == {wallet["id"], customer["id"], counterparty["id"]}


async def test_update_changes_only_the_label(app, tenant, customer):
    wallet = await create_wallet(tenant.client, {"customerId": customer["id"]}, label="Old")
    path = f"/v1/external-wallets/{wallet['id']}"
    response = await tenant.client.patch(path, json={"label": "Treasury"})
    assert response.status_code == 200, response.text
    updated = response.json()
    assert updated["label"] == "Treasury"
    assert (await tenant.client.get(path)).json() == updated
    (event,) = await events_of(app, tenant.organization_id, "external_wallet.updated")
    assert event.data == updated
    assert set(event.tags) == {wallet["id"], customer["id"]}
    cleared = await tenant.client.patch(path, json={"label": None})
    assert cleared.json()["label"] is None
    for body in ({"address": SOLANA_ADDRESS}, {"chain": "SOLANA"}, {"status": "CLOSED"}):
        error = assert_error(await tenant.client.patch(path, json=body), 422, "validation_error")
        assert error["errors"][0]["message"] == "unknown field"
    same = await tenant.client.patch(path, json={})
    assert same.json()["label"] is None
    assert len(await events_of(app, tenant.organization_id, "external_wallet.updated")) == 2


async def test_a_closed_wallet_cannot_change(tenant, customer):
    counterparty = await create_counterparty(tenant.client, customer["id"])
    wallet = await create_wallet(tenant.client, {"counterpartyId": counterparty["id"]})
    await tenant.client.delete(f"/v1/counterparties/{counterparty['id']}")
    path = f"/v1/external-wallets/{wallet['id']}"
    body = assert_error(await tenant.client.patch(path, json={"label": "x"}), 409, "invalid_state")
    assert body["currentStatus"] == "CLOSED"


# --- Reading ------------------------------------------------------------------------------


async def test_list_filters_by_customer_counterparty_chain_and_status(tenant, customer):
    someone_else = await create_individual(tenant.client)
    counterparty = await create_counterparty(tenant.client, customer["id"])
    own = await create_wallet(tenant.client, {"customerId": customer["id"]})
    theirs = await create_wallet(
        tenant.client, {"counterpartyId": counterparty["id"]}, chain="TRON", address=TRON_ADDRESS
    )
    other = await create_wallet(
        tenant.client, {"customerId": someone_else["id"]}, chain="SOLANA", address=SOLANA_ADDRESS
    )

    async def ids(query: str) -> list[str]:
        response = await tenant.client.get(f"/v1/external-wallets{query}")
        assert response.status_code == 200, response.text
        return [item["id"] for item in response.json()["data"]]

    assert await ids("") == [other["id"], theirs["id"], own["id"]]
    assert await ids(f"?customerId={customer['id']}") == [theirs["id"], own["id"]]
    assert await ids(f"?counterpartyId={counterparty['id']}") == [theirs["id"]]
    assert await ids("?chain=SOLANA") == [other["id"]]
    assert await ids("?status=CLOSED") == []
    assert_error(await tenant.client.get("/v1/external-wallets?chain=ACH"), 422, "validation_error")


async def test_another_organizations_wallet_is_404_and_bound_callers_see_their_own(
    app, tenant, make_tenant, customer
):
    other = await make_tenant()
    foreign_customer = await create_individual(other.client)
    foreign = await create_wallet(other.client, {"customerId": foreign_customer["id"]})
    path = f"/v1/external-wallets/{foreign['id']}"
    assert_error(await tenant.client.get(path), 404, "not_found")
    assert_error(await tenant.client.patch(path, json={"label": "x"}), 404, "not_found")
    response = await tenant.client.post(
        "/v1/external-wallets",
        json={"customerId": foreign_customer["id"], "chain": "ETHEREUM", "address": EVM_ADDRESS},
    )
    assert_error(response, 404, "not_found")

    someone_else = await create_individual(tenant.client)
    mine = await create_wallet(tenant.client, {"customerId": customer["id"]})
    theirs = await create_wallet(tenant.client, {"customerId": someone_else["id"]})
    headers = {**tenant.headers(), "X-Corridor-On-Behalf-Of": customer["id"]}
    async with client_for(app, headers) as bound:
        listed = (await bound.get("/v1/external-wallets")).json()["data"]
        assert [item["id"] for item in listed] == [mine["id"]]
        assert_error(await bound.get(f"/v1/external-wallets/{theirs['id']}"), 404, "not_found")


async def test_external_wallets_use_the_customers_scopes(app, tenant, customer):
    wallet = await create_wallet(tenant.client, {"customerId": customer["id"]})
    body = {"customerId": customer["id"], "chain": "ETHEREUM", "address": EVM_ADDRESS}
    path = f"/v1/external-wallets/{wallet['id']}"
    async with await restricted_client(app, tenant, ["counterparties:write"]) as other_scope:
        assert_error(await other_scope.get("/v1/external-wallets"), 403, "forbidden")
        assert_error(await other_scope.post("/v1/external-wallets", json=body), 403, "forbidden")
    async with await restricted_client(app, tenant, ["customers:read"]) as reader:
        assert (await reader.get(path)).status_code == 200
        assert_error(await reader.post("/v1/external-wallets", json=body), 403, "forbidden")
        assert_error(await reader.patch(path, json={"label": "x"}), 403, "forbidden")
