"""Fixed routes over HTTP: create both kinds, validate, read, list, update and their
refusals."""

from __future__ import annotations

from tests.auth.credentials import bearer, key_secret
from tests.conftest import assert_error, client_for
from tests.fixedroutes.helpers import (
    BANK_PATH,
    WALLET_PATH,
    create_route,
    patch_route,
    to_usdc_on_base,
)
from tests.parties.helpers import create_account, create_counterparty
from tests.support import create_individual
from tests.transfers.conftest import event_types, make_customer


async def test_a_bank_account_route_gets_its_own_usd_account(app, tenant, customer):
    body = to_usdc_on_base(
        customer.id,
        developerFee={"fixed": "100", "percent": 0.005},
        clientReferenceId="route-7",
        remarks="to the treasury wallet",
        internalRemarks="desk 4",
        paymentReason="SELF",
    )
    route = await create_route(tenant.client, BANK_PATH, body)
    assert route["id"].startswith("frt_")
    assert route["organizationId"] == tenant.organization_id
    assert (route["customerId"], route["type"], route["status"]) == (
        customer.id,
        "VIRTUAL_BANK_ACCOUNT",
        "ACTIVE",
    )
    assert route["flow"] == "FIAT_TO_CRYPTO"
    assert route["source"] == {"currency": "USD", "paymentRail": "WIRE"}
    assert route["destination"]["toAddress"] == body["destination"]["toAddress"]
    assert route["destination"]["accountType"] == "EXTERNAL_WALLET"
    instructions = route["depositInstructions"]
    assert instructions["type"] == "fiat" and instructions["paymentRail"] == "WIRE"
    assert instructions["accountId"].startswith("vba_") and instructions["currency"] == "USD"
    assert instructions["bankName"] and instructions["routingNumber"] == "123456780"
    assert len(instructions["accountNumber"]) == 12 and "iban" not in instructions
    assert route["developerFee"] == {"fixed": "100", "percent": 0.005}
    assert route["clientReferenceId"] == "route-7" and route["paymentReason"] == "SELF"
    assert (route["remarks"], route["internalRemarks"]) == ("to the treasury wallet", "desk 4")
    assert route["counterpartyId"] is None
    assert route["createdAt"].endswith("Z") and route["updatedAt"] == route["createdAt"]

    fetched = await tenant.client.get(f"/v1/fixed-routes/{route['id']}")
    assert fetched.status_code == 200 and fetched.json() == route
    another = await create_route(tenant.client, BANK_PATH, to_usdc_on_base(customer.id))
    assert another["depositInstructions"]["accountId"] != instructions["accountId"]
    assert another["developerFee"] is None
    assert await event_types(app, tenant.organization_id, route["id"]) == ["fixed_route.created"]


async def test_a_euro_route_gets_an_iban_and_a_wallet_route_an_address(tenant, customer):
    euro = await customer.euro_account()
    bank = await create_route(
        tenant.client,
        BANK_PATH,
        {
            "customerId": customer.id,
            "source": {"currency": "EUR", "paymentRail": "SEPA"},
            "destination": {"externalAccountId": euro, "paymentRail": "SEPA", "currency": "EUR"},
        },
    )
    assert bank["flow"] == "FIAT_TO_FIAT"
    instructions = bank["depositInstructions"]
    assert instructions["iban"].startswith("DE") and instructions["bic"]
    assert "accountNumber" not in instructions and "routingNumber" not in instructions

    wallet = await create_route(
        tenant.client,
        WALLET_PATH,
        {
            "customerId": customer.id,
            "source": {"currency": "USDC", "paymentRail": "SOLANA"},
            "destination": {"accountId": customer.accounts["USD"]},
        },
    )
    assert wallet["type"] == "VIRTUAL_WALLET" and wallet["flow"] == "CRYPTO_TO_FIAT"
    crypto = wallet["depositInstructions"]
    assert crypto["type"] == "crypto" and crypto["paymentRail"] == "SOLANA"
    assert crypto["accountId"].startswith("vwa_") and 32 <= len(crypto["toAddress"]) <= 44
    assert "bankName" not in crypto
    assert wallet["destination"]["accountType"] == "BALANCE"


async def test_create_honours_the_idempotency_key(tenant, customer):
    body = to_usdc_on_base(customer.id)
    headers = {"Idempotency-Key": "route-once"}
    first = await tenant.client.post(BANK_PATH, json=body, headers=headers)
    again = await tenant.client.post(BANK_PATH, json=body, headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.headers["idempotent-replayed"] == "true" and again.content == first.content
    other = await tenant.client.post(
        BANK_PATH, json={**body, "remarks": "different"}, headers=headers
    )
    assert_error(other, 409, "idempotency_key_reused")


async def test_impossible_routes_are_refused_naming_the_field(tenant, customer):
    cases = [
        (WALLET_PATH, to_usdc_on_base(customer.id), "source.paymentRail"),
        (
            BANK_PATH,
            to_usdc_on_base(customer.id, source={"currency": "USDC", "paymentRail": "BASE"}),
            "source.paymentRail",
        ),
        (
            BANK_PATH,
            to_usdc_on_base(customer.id, source={"currency": "EUR", "paymentRail": "ACH"}),
            "source.paymentRail",
        ),
        (
            BANK_PATH,
            to_usdc_on_base(
                customer.id,
                destination={"toAddress": "0x1234", "currency": "USDC", "paymentRail": "BASE"},
            ),
            "destination.toAddress",
        ),
        (
            BANK_PATH,
            to_usdc_on_base(customer.id, developerFee={"fixed": "0", "percent": 1}),
            "developerFee.percent",
        ),
        (
            BANK_PATH,
            to_usdc_on_base(customer.id, destination={"currency": "USDC"}),
            "destination",
        ),
    ]
    for path, body, field in cases:
        response = await tenant.client.post(path, json=body)
        problem = assert_error(response, 422, "validation_error")
        assert problem["errors"][0]["field"] == field, (body, problem)
    unknown_field = await tenant.client.post(
        BANK_PATH, json={**to_usdc_on_base(customer.id), "status": "ACTIVE"}
    )
    assert_error(unknown_field, 422, "validation_error")
    listed = await tenant.client.get("/v1/fixed-routes")
    assert listed.json()["data"] == []


async def test_only_an_active_customer_gets_a_route(tenant):
    pending = await create_individual(tenant.client)
    response = await tenant.client.post(BANK_PATH, json=to_usdc_on_base(pending["id"]))
    assert assert_error(response, 409, "invalid_state")["currentStatus"] == pending["status"]
    unknown = await tenant.client.post(
        BANK_PATH, json=to_usdc_on_base("cus_01jd3x0p6x9e3k2v1m8q4r7s5t")
    )
    assert_error(unknown, 404, "not_found")


async def test_validate_answers_200_whether_valid_or_not(tenant, make_tenant, customer):
    path = "/v1/fixed-routes/validate"
    valid = await tenant.client.post(path, json=to_usdc_on_base(customer.id))
    assert valid.status_code == 200
    assert valid.json() == {"valid": True, "flow": "FIAT_TO_CRYPTO", "errors": []}

    stranger = await make_tenant()
    theirs = await make_customer(stranger.client)
    their_account = await theirs.bank_account()
    counterparty = await create_counterparty(tenant.client, customer.id)
    euro = await customer.euro_account()
    cases = [
        ({"type": "VIRTUAL_WALLET"}, "source.paymentRail"),
        ({"source": {"currency": "USDC", "paymentRail": "WIRE"}}, "source.currency"),
        ({"source": {"currency": "GBP", "paymentRail": "ACH"}}, "source.paymentRail"),
        (
            {"destination": {"toAddress": "nope", "currency": "USDC", "paymentRail": "BASE"}},
            "destination.toAddress",
        ),
        (
            {
                "destination": {
                    "externalAccountId": their_account,
                    "paymentRail": "ACH",
                    "currency": "USD",
                }
            },
            "destination.externalAccountId",
        ),
        (
            {"destination": {"externalAccountId": euro, "paymentRail": "ACH", "currency": "EUR"}},
            "destination.paymentRail",
        ),
        (
            {
                "destination": {
                    "externalAccountId": (
                        await create_account(tenant.client, {"counterpartyId": counterparty["id"]})
                    )["id"],
                    "paymentRail": "ACH",
                    "currency": "USD",
                },
                "counterpartyId": "cp_01jd3x0p6x9e3k2v1m8q4r7s5t",
            },
            "counterpartyId",
        ),
        ({"customerId": theirs.id}, "customerId"),
        ({"developerFee": {"fixed": "-1"}}, "developerFee.fixed"),
    ]
    for overrides, field in cases:
        response = await tenant.client.post(path, json=to_usdc_on_base(customer.id, **overrides))
        assert response.status_code == 200, response.text
        body = response.json()
        assert body["valid"] is False and body["flow"] is None, (overrides, body)
        assert body["errors"][0]["field"] == field, (overrides, body)
        assert body["errors"][0]["message"]
    pending = await create_individual(tenant.client)
    inactive = (await tenant.client.post(path, json=to_usdc_on_base(pending["id"]))).json()
    assert inactive["errors"][0]["field"] == "customerId"
    assert "ACTIVE" in inactive["errors"][0]["message"]
    assert (await tenant.client.get("/v1/fixed-routes")).json()["data"] == []


async def test_lists_are_newest_first_and_filtered_by_customer(tenant, customer):
    other = await make_customer(tenant.client)
    first = await create_route(tenant.client, BANK_PATH, to_usdc_on_base(customer.id))
    second = await create_route(tenant.client, BANK_PATH, to_usdc_on_base(customer.id))
    theirs = await create_route(tenant.client, BANK_PATH, to_usdc_on_base(other.id))
    everything = (await tenant.client.get("/v1/fixed-routes")).json()
    assert [route["id"] for route in everything["data"]] == [
        theirs["id"],
        second["id"],
        first["id"],
    ]
    page = (
        await tenant.client.get(f"/v1/customers/{customer.id}/fixed-routes", params={"limit": 1})
    ).json()
    assert [route["id"] for route in page["data"]] == [second["id"]] and page["hasMore"]
    rest = (
        await tenant.client.get(
            f"/v1/customers/{customer.id}/fixed-routes", params={"cursor": page["nextCursor"]}
        )
    ).json()
    assert [route["id"] for route in rest["data"]] == [first["id"]] and not rest["hasMore"]
    filtered = (await tenant.client.get("/v1/fixed-routes", params={"customerId": other.id})).json()
    assert [route["id"] for route in filtered["data"]] == [theirs["id"]]
    assert_error(
        await tenant.client.get("/v1/customers/cus_01jd3x0p6x9e3k2v1m8q4r7s5t/fixed-routes"),
        404,
        "not_found",
    )


async def test_update_rules(app, tenant, customer):
    route = await create_route(tenant.client, BANK_PATH, to_usdc_on_base(customer.id))
    patched = await patch_route(
        tenant.client,
        route["id"],
        {
            "destination": {"blockchainMemo": "memo-1"},
            "developerFee": {"fixed": "25"},
            "remarks": "changed",
            "clientReferenceId": "route-8",
        },
    )
    assert patched["destination"]["blockchainMemo"] == "memo-1"
    assert patched["developerFee"] == {"fixed": "25", "percent": 0.0}
    assert (patched["remarks"], patched["clientReferenceId"]) == ("changed", "route-8")
    assert patched["depositInstructions"] == route["depositInstructions"]

    external = await customer.bank_account()
    moved = await patch_route(
        tenant.client,
        route["id"],
        {
            "destination": {
                "toAddress": None,
                "blockchainMemo": None,
                "externalAccountId": external,
                "paymentRail": "WIRE",
                "currency": "USD",
            }
        },
    )
    assert moved["flow"] == "FIAT_TO_FIAT"
    assert moved["destination"]["externalAccountId"] == external
    assert "toAddress" not in moved["destination"]

    for body, field in (
        ({"source": {"currency": "EUR"}}, "source.currency"),
        ({"source": {"paymentRail": "ACH"}}, "source.paymentRail"),
        ({"virtualAccountId": "vba_01jd3x0p6x9e3k2v1m8q4r7s5t"}, "virtualAccountId"),
        ({"destination": {"paymentRail": "SEPA"}}, "destination.paymentRail"),
        ({"status": "DELETED"}, "status"),
    ):
        response = await tenant.client.patch(f"/v1/fixed-routes/{route['id']}", json=body)
        problem = assert_error(response, 422, "validation_error")
        assert problem["errors"][0]["field"] == field, problem
    unchanged = (await tenant.client.get(f"/v1/fixed-routes/{route['id']}")).json()
    assert unchanged["destination"] == moved["destination"]

    paused = await patch_route(tenant.client, route["id"], {"status": "PAUSED"})
    assert paused["status"] == "PAUSED"
    closed = await patch_route(tenant.client, route["id"], {"status": "CLOSED"})
    assert closed["status"] == "CLOSED"
    for body in ({"status": "ACTIVE"}, {"remarks": "again"}):
        response = await tenant.client.patch(f"/v1/fixed-routes/{route['id']}", json=body)
        assert assert_error(response, 409, "invalid_state")["currentStatus"] == "CLOSED"
    types = await event_types(app, tenant.organization_id, route["id"])
    assert types == ["fixed_route.created"] + ["fixed_route.updated"] * 4


async def test_another_organizations_route_is_not_found(tenant, make_tenant, customer):
    route = await create_route(tenant.client, BANK_PATH, to_usdc_on_base(customer.id))
    stranger = await make_tenant()
    for response in (
        await stranger.client.get(f"/v1/fixed-routes/{route['id']}"),
        await stranger.client.patch(f"/v1/fixed-routes/{route['id']}", json={"status": "PAUSED"}),
        await stranger.client.get(f"/v1/customers/{customer.id}/fixed-routes"),
        await stranger.client.post(BANK_PATH, json=to_usdc_on_base(customer.id)),
        await stranger.client.post(
            "/v1/sandbox/deposits",
            json={
                "paymentRail": "WIRE",
                "amount": {"currency": "USD", "value": "100"},
                "virtualAccountId": route["depositInstructions"]["accountId"],
            },
        ),
        await tenant.client.get("/v1/fixed-routes/frt_01jd3x0p6x9e3k2v1m8q4r7s5t"),
        await tenant.client.get("/v1/fixed-routes/nonsense"),
    ):
        assert_error(response, 404, "not_found")
    assert (await stranger.client.get("/v1/fixed-routes")).json()["data"] == []


async def test_scopes(app, tenant, customer):
    route = await create_route(tenant.client, BANK_PATH, to_usdc_on_base(customer.id))
    async with client_for(app, bearer(await key_secret(tenant, ["transfers:read"]))) as reader:
        assert (await reader.get(f"/v1/fixed-routes/{route['id']}")).status_code == 200
        refused = await reader.post(BANK_PATH, json=to_usdc_on_base(customer.id))
        assert_error(refused, 403, "forbidden")
        patch = await reader.patch(f"/v1/fixed-routes/{route['id']}", json={"status": "PAUSED"})
        assert_error(patch, 403, "forbidden")


async def test_a_caller_bound_to_a_customer_sees_only_its_routes(app, tenant, customer):
    other = await make_customer(tenant.client)
    theirs = await create_route(tenant.client, BANK_PATH, to_usdc_on_base(other.id))
    bound = {**tenant.headers(), "X-Corridor-On-Behalf-Of": customer.id}
    async with client_for(app, bound) as client:
        body = to_usdc_on_base(customer.id)
        del body["customerId"]
        mine = await create_route(client, BANK_PATH, body)
        assert mine["customerId"] == customer.id
        listed = (await client.get("/v1/fixed-routes")).json()["data"]
        assert [route["id"] for route in listed] == [mine["id"]]
        assert_error(await client.get(f"/v1/fixed-routes/{theirs['id']}"), 404, "not_found")
        refused = await client.post(BANK_PATH, json=to_usdc_on_base(other.id))
        assert_error(refused, 404, "not_found")
