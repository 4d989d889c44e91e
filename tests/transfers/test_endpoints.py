"""The transfer resource and operations as a client sees them: fields present exactly when
they apply, PATCH rules, lists and filters, counterparties, idempotency, events."""

from __future__ import annotations

from sqlalchemy import select

from corridor.models.event import Event
from tests.auth.credentials import bearer, key_secret
from tests.conftest import assert_error, client_for
from tests.documents.helpers import confirmed_document
from tests.parties.helpers import EVM_ADDRESS, create_account, create_counterparty
from tests.support import create_individual
from tests.transfers.conftest import act, amount, create, fetch, make_customer, settle

PAYMENT_REASON = "PAYMENT_FOR_GOODS_AND_SERVICES"


def _internal(customer, value: int = 1_000, **extra) -> dict:
    return {
        "customerId": customer.id,
        "source": {"accountId": customer.accounts["USD"]},
        "destination": {"accountId": customer.accounts["USD"]},
        "amount": amount("USD", value),
        **extra,
    }


async def test_a_draft_shows_exactly_the_fields_that_apply(tenant, customer):
    draft = await create(tenant.client, _internal(customer))
    always = {
        "id",
        "organizationId",
        "sourceCustomerId",
        "flow",
        "status",
        "source",
        "destination",
        "sourceAmount",
        "destinationAmount",
        "createdAt",
        "updatedAt",
        "legs",
        "fundingNeeded",
        "agentId",
        "agentApprovalStatus",
        "mandateId",
        "developerFee",
        "returnedToAccountId",
        "currentLegIndex",
        "isThirdParty",
        "documentIds",
    }
    assert set(draft) == always
    assert draft["id"].startswith("tfr_") and draft["organizationId"] == tenant.organization_id
    assert draft["agentId"] is None and draft["agentApprovalStatus"] is None
    assert draft["mandateId"] is None
    assert draft["returnedToAccountId"] is None and draft["currentLegIndex"] == 0
    assert draft["sourceAmount"] == {
        "currency": "USD",
        "exponent": 2,
        "value": "1000",
        "displayValue": "10.00",
    }
    assert all(leg["id"].startswith("tleg_") for leg in draft["legs"])
    assert [leg["sequence"] for leg in draft["legs"]] == [0, 1]


async def test_patch_changes_every_field_of_the_update_request(tenant, customer):
    external = await customer.bank_account()
    draft = await create(tenant.client, _internal(customer))
    document = (await confirmed_document(tenant.client, customer.id))["id"]
    response = await tenant.client.patch(
        f"/v1/transfers/{draft['id']}",
        json={
            "clientReferenceId": "r" * 256,
            "remarks": "m" * 1000,
            "internalRemarks": "i" * 1000,
            "paymentReason": PAYMENT_REASON,
            "documentIds": [document],
            "amount": amount("USD", 2_000),
            "source": {"currency": "USD"},
            "destination": {
                "accountId": None,
                "externalAccountId": external,
                "paymentRail": "WIRE",
                "currency": "USD",
                "wireMessage": "Invoice 1",
                "correspondentBankName": "Correspondent Bank",
                "correspondentBankSwiftCode": "CHASUS33",
                "correspondentAccountNumber": "12345",
                "sepaReference": "SEPA-1",
                "achReference": "ACH 1",
                "swiftReference": "SWIFT 1",
                "rtpReference": "RTP 1",
                "blockchainMemo": "memo",
            },
        },
    )
    assert response.status_code == 200, response.text
    patched = response.json()
    assert patched["flow"] == "FIAT_TO_FIAT" and patched["status"] == "DRAFT"
    assert [leg["type"] for leg in patched["legs"]] == ["DEBIT_BALANCE", "PAYOUT_FIAT"]
    assert patched["paymentReason"] == PAYMENT_REASON and patched["documentIds"] == [document]
    assert patched["destination"]["correspondentBankSwiftCode"] == "CHASUS33"
    assert patched["destination"]["externalAccountId"] == external
    assert "accountId" not in patched["destination"]
    assert len(patched["remarks"]) == 1000 and len(patched["clientReferenceId"]) == 256
    documents = await tenant.client.get(f"/v1/transfers/{draft['id']}/documents")
    assert [found["id"] for found in documents.json()["data"]] == [document]
    assert documents.json()["data"][0]["status"] == "UPLOADED"


async def test_limits_and_bad_values_are_validation_errors(tenant, customer):
    draft = await create(tenant.client, _internal(customer))
    path = f"/v1/transfers/{draft['id']}"
    cases = [
        ({"clientReferenceId": "r" * 257}, "clientReferenceId"),
        ({"remarks": "m" * 1001}, "remarks"),
        ({"internalRemarks": "i" * 1001}, "internalRemarks"),
        ({"paymentReason": "BRIBES"}, "paymentReason"),
        ({"documentIds": ["not-a-doc"]}, "documentIds.0"),
        ({"amount": {"currency": "USD", "value": "-5"}}, "amount"),
        ({"amount": {"currency": "USD", "value": "0"}}, "amount.value"),
        ({"amount": {"currency": "EUR", "value": "100"}}, "amount.currency"),
        ({"amount": {"currency": "USD", "value": 100}}, "amount.value"),
        ({"developerFee": {"fixed": "2000", "percent": 0}}, "developerFee"),
        ({"developerFee": {"fixed": "1", "percent": 1.5}}, "developerFee.percent"),
        (
            {"developerFeePercent": 0.1, "developerFee": {"fixed": "0", "percent": 0.2}},
            "developerFeeFixed",
        ),
        ({"status": "COMPLETED"}, "status"),
        ({"destination": {"paymentRail": "CARRIER_PIGEON"}}, "destination.paymentRail"),
        ({"destination": {"accountId": None}}, "destination"),
        ({"source": {"paymentRail": "ACH"}}, "source.paymentRail"),
        ({"remarks": "bad\u0000"}, "remarks"),
    ]
    for body, field in cases:
        response = await tenant.client.patch(path, json=body)
        problem = assert_error(response, 422, "validation_error")
        assert field in {error["field"] for error in problem.get("errors", [])}, (body, problem)
    assert (await fetch(tenant.client, draft["id"]))["updatedAt"] == draft["updatedAt"]


async def test_the_wrong_amount_form_is_named_with_the_form_expected(tenant, customer):
    """The tools take "25.50"; REST takes {currency, value} in minor units. Each interface
    says which form it got and which it wants."""
    body = _internal(customer)
    for sent, field, words in (
        ("25.50", "amount", '{"currency": "USD", "value": "2550"}'),
        (25.5, "amount", "not a JSON number"),
        ({"currency": "USD", "value": 2550}, "amount.value", 'such as "2550"'),
    ):
        response = await tenant.client.post("/v1/transfers", json={**body, "amount": sent})
        problem = assert_error(response, 422, "validation_error")
        [error] = [error for error in problem["errors"] if error["field"] == field]
        assert words in error["message"] and "Value error" not in error["message"], problem
    listed = await tenant.client.get("/v1/transfers", params={"customerId": customer.id})
    assert listed.json()["data"] == []


async def test_malformed_bodies_are_refused_without_a_server_error(tenant, customer):
    for content in (b"{", b"[]", b"null", b'"x"', b"\xff"):
        response = await tenant.client.post(
            "/v1/transfers", content=content, headers={"Content-Type": "application/json"}
        )
        assert_error(response, 400, "invalid_json")
    for body in (
        {},
        {"source": "acc", "destination": {}, "amount": {}},
        {**_internal(customer), "confirm": "yes"},
        {**_internal(customer), "flow": "INTERNAL"},
        {**_internal(customer), "source": {"accountId": "x" * 65}},
    ):
        assert_error(await tenant.client.post("/v1/transfers", json=body), 422, "validation_error")


async def test_patch_or_submit_of_a_submitted_transfer_is_invalid_state(app, tenant, customer):
    await customer.fund("USD", 5_000)
    transfer = await create(tenant.client, _internal(customer, confirm=True))
    patched = await tenant.client.patch(f"/v1/transfers/{transfer['id']}", json={"remarks": "x"})
    assert assert_error(patched, 409, "invalid_state")["currentStatus"] == "PENDING"
    again = await tenant.client.post(f"/v1/transfers/{transfer['id']}/submit")
    assert assert_error(again, 409, "invalid_state")["currentStatus"] == "PENDING"
    await settle(app, tenant.organization_id)
    done = await tenant.client.patch(f"/v1/transfers/{transfer['id']}", json={})
    assert assert_error(done, 409, "invalid_state")["currentStatus"] == "COMPLETED"


async def test_wrong_ends_are_refused_naming_the_field(tenant, customer):
    other = await make_customer(tenant.client)
    wallet = await customer.wallet()
    cases = [
        ({"source": {"accountId": other.accounts["USD"]}}, "source.accountId"),
        (
            {"source": {"accountId": customer.accounts["USD"], "fromAddress": EVM_ADDRESS}},
            "source.fromAddress",
        ),
        ({"source": {"currency": "USD", "paymentRail": "SEPA"}}, "source.paymentRail"),
        (
            {"source": {"currency": "USD", "paymentRail": "WIRE", "fromAddress": EVM_ADDRESS}},
            "source.fromAddress",
        ),
        (
            {
                "destination": {
                    "externalAccountId": wallet,
                    "currency": "USDC",
                    "paymentRail": "TRON",
                }
            },
            "destination.paymentRail",
        ),
        (
            {"destination": {"toAddress": "nope", "currency": "USDC", "paymentRail": "BASE"}},
            "destination.toAddress",
        ),
        (
            {"destination": {"toAddress": EVM_ADDRESS, "currency": "USD", "paymentRail": "BASE"}},
            "destination.paymentRail",
        ),
        (
            {"destination": {"accountId": customer.accounts["USD"], "currency": "EUR"}},
            "destination.currency",
        ),
        ({"counterpartyId": "cp_01jd3x0p6x9e3k2v1m8q4r7s5t"}, "counterpartyId"),
        (
            {"amount": amount("USD", 1), "developerFee": {"fixed": "1", "percent": 0}},
            "developerFee",
        ),
    ]
    for change, field in cases:
        body = {**_internal(customer), **change}
        problem = assert_error(
            await tenant.client.post("/v1/transfers", json=body), 422, "validation_error"
        )
        assert problem["errors"][0]["field"] == field, (change, problem)


async def test_another_organizations_ids_are_not_found(make_tenant, tenant, customer):
    stranger = await make_tenant()
    theirs = await make_customer(stranger.client)
    transfer = await create(stranger.client, _internal(theirs))
    for method, path in (
        ("GET", f"/v1/transfers/{transfer['id']}"),
        ("PATCH", f"/v1/transfers/{transfer['id']}"),
        ("POST", f"/v1/transfers/{transfer['id']}/submit"),
        ("POST", f"/v1/transfers/{transfer['id']}/cancel"),
        ("GET", f"/v1/transfers/{transfer['id']}/documents"),
        ("GET", f"/v1/customers/{theirs.id}/transfers"),
        ("GET", f"/v1/accounts/{theirs.accounts['USD']}/transfers"),
        ("GET", "/v1/transfers/tfr_0"),
        ("GET", "/v1/transfers/" + "x" * 500),
    ):
        response = await tenant.client.request(method, path, json={})
        assert_error(response, 404, "not_found")
    foreign_source = {**_internal(customer), "source": {"accountId": theirs.accounts["USD"]}}
    assert_error(await tenant.client.post("/v1/transfers", json=foreign_source), 404, "not_found")
    foreign_customer = {**_internal(theirs)}
    assert_error(await tenant.client.post("/v1/transfers", json=foreign_customer), 404, "not_found")
    listed = await tenant.client.get("/v1/transfers")
    assert transfer["id"] not in [item["id"] for item in listed.json()["data"]]


async def test_scopes_decide_who_reads_and_who_writes(app, tenant, customer):
    transfer = await create(tenant.client, _internal(customer))
    async with client_for(app, bearer(await key_secret(tenant, ["transfers:read"]))) as reader:
        assert (await reader.get(f"/v1/transfers/{transfer['id']}")).status_code == 200
        assert_error(await reader.post("/v1/transfers", json=_internal(customer)), 403, "forbidden")
        assert_error(await reader.post(f"/v1/transfers/{transfer['id']}/submit"), 403, "forbidden")
        assert_error(
            await reader.patch(f"/v1/transfers/{transfer['id']}", json={}), 403, "forbidden"
        )
        assert_error(
            await reader.post(
                "/v1/sandbox/deposits",
                json={"paymentRail": "ACH", "amount": amount("USD", 1), "toAddress": "x"},
            ),
            403,
            "forbidden",
        )
    async with client_for(app, bearer(await key_secret(tenant, ["accounts:read"]))) as other:
        assert_error(await other.get("/v1/transfers"), 403, "forbidden")
        assert_error(await other.get(f"/v1/transfers/{transfer['id']}"), 403, "forbidden")


async def test_a_caller_bound_to_a_customer_sees_only_its_transfers(app, tenant, customer):
    other = await make_customer(tenant.client)
    mine = await create(tenant.client, _internal(customer))
    theirs = await create(tenant.client, _internal(other))
    bound = {**tenant.headers(), "X-Corridor-On-Behalf-Of": customer.id}
    async with client_for(app, bound) as client:
        listed = await client.get("/v1/transfers")
        assert [item["id"] for item in listed.json()["data"]] == [mine["id"]]
        assert_error(await client.get(f"/v1/transfers/{theirs['id']}"), 404, "not_found")
        implied = await client.post(
            "/v1/transfers", json={**_internal(customer), "customerId": None}
        )
        assert implied.status_code == 201, implied.text
        assert implied.json()["sourceCustomerId"] == customer.id


async def test_list_filters(app, tenant, customer):
    await customer.fund("USD", 10_000)
    first = await create(tenant.client, _internal(customer, clientReferenceId="a"))
    second = await create(tenant.client, _internal(customer, clientReferenceId="b", confirm=True))
    other = await make_customer(tenant.client)
    third = await create(tenant.client, _internal(other))

    async def ids(**params) -> list[str]:
        response = await tenant.client.get("/v1/transfers", params=params)
        assert response.status_code == 200, response.text
        return [item["id"] for item in response.json()["data"]]

    assert await ids() == [third["id"], second["id"], first["id"]]
    assert await ids(status="PENDING") == [second["id"]]
    assert await ids(clientReferenceId="a") == [first["id"]]
    assert await ids(customerId=other.id) == [third["id"]]
    assert await ids(flow="INTERNAL", limit=1) == [third["id"]]
    assert await ids(agentApprovalStatus="PENDING") == []
    assert await ids(createdAfter=second["createdAt"]) == [third["id"]]
    assert await ids(createdBefore=second["createdAt"]) == [first["id"]]
    page = (await tenant.client.get("/v1/transfers", params={"limit": 2})).json()
    assert page["hasMore"] is True
    rest = await ids(cursor=page["nextCursor"])
    assert rest == [first["id"]]
    for bad in (
        {"status": "LOST"},
        {"flow": "TELEPORT"},
        {"createdAfter": "yesterday"},
        {"limit": 0},
        {"agentApprovalStatus": "MAYBE"},
    ):
        assert_error(await tenant.client.get("/v1/transfers", params=bad), 422, "validation_error")
    customer_list = await tenant.client.get(f"/v1/customers/{customer.id}/transfers")
    assert [item["id"] for item in customer_list.json()["data"]] == [second["id"], first["id"]]


async def test_third_party_transfers_name_the_counterparty_and_expand_it(tenant, customer):
    counterparty = await create_counterparty(tenant.client, customer.id)
    external = await create_account(tenant.client, {"counterpartyId": counterparty["id"]})
    transfer = await create(
        tenant.client,
        {
            "customerId": customer.id,
            "source": {"accountId": customer.accounts["USD"]},
            "destination": {
                "externalAccountId": external["id"],
                "paymentRail": "ACH",
                "currency": "USD",
            },
            "amount": amount("USD", 1_000),
        },
    )
    assert transfer["isThirdParty"] is True and transfer["counterpartyId"] == counterparty["id"]
    assert "counterparty" not in transfer
    assert "counterparty" not in await fetch(tenant.client, transfer["id"])
    expanded = await tenant.client.get(
        f"/v1/transfers/{transfer['id']}", params={"expand": "counterparty"}
    )
    assert expanded.json()["counterparty"]["id"] == counterparty["id"]
    assert expanded.json()["counterparty"]["address"]["transliterated"]
    assert_error(
        await tenant.client.get(f"/v1/transfers/{transfer['id']}", params={"expand": "legs"}),
        422,
        "validation_error",
    )
    wrong = await tenant.client.patch(
        f"/v1/transfers/{transfer['id']}", json={"counterpartyId": "cp_01jd3x0p6x9e3k2v1m8q4r7s5t"}
    )
    assert_error(wrong, 422, "validation_error")
    first_party = await create(tenant.client, _internal(customer))
    assert first_party["isThirdParty"] is False and "counterpartyId" not in first_party


async def test_create_replays_with_the_same_idempotency_key(tenant, customer):
    headers = {"Idempotency-Key": "transfer-1"}
    first = await tenant.client.post("/v1/transfers", json=_internal(customer), headers=headers)
    again = await tenant.client.post("/v1/transfers", json=_internal(customer), headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.headers["idempotent-replayed"] == "true" and again.content == first.content
    other = await tenant.client.post(
        "/v1/transfers", json=_internal(customer, value=2), headers=headers
    )
    assert_error(other, 409, "idempotency_key_reused")


async def test_events_carry_the_resource_and_the_ids_involved(app, tenant, customer):
    await customer.fund("USD", 5_000)
    transfer = await create(tenant.client, _internal(customer, internalRemarks="ops only"))
    await act(tenant.client, transfer["id"], "submit")
    await settle(app, tenant.organization_id)
    async with app.state.database.session(write=False) as session:
        rows = (
            await session.execute(
                select(Event)
                .where(Event.organization_id == tenant.organization_id)
                .order_by(Event.id)
            )
        ).scalars()
        events = [event for event in rows if transfer["id"] in event.tags]
    assert [event.type for event in events] == [
        "transfer.created",
        "transfer.pending",
        "transfer.leg.updated",
        "transfer.processing",
        "transfer.leg.updated",
        "transfer.completed",
    ]
    assert events[0].data["id"] == transfer["id"] and events[0].data["status"] == "DRAFT"
    assert events[-1].data["status"] == "COMPLETED"
    assert customer.id in events[0].tags
    leg_event = events[2]
    assert leg_event.data["legs"][0]["status"] == "COMPLETED"
    assert transfer["legs"][0]["id"] in leg_event.tags


async def test_a_non_active_customer_cannot_transfer(tenant):
    pending = await create_individual(tenant.client)
    body = {
        "customerId": pending["id"],
        "source": {"currency": "USD", "paymentRail": "WIRE"},
        "destination": {"toAddress": EVM_ADDRESS, "currency": "USDC", "paymentRail": "BASE"},
        "amount": amount("USD", 100),
    }
    refused = await tenant.client.post("/v1/transfers", json=body)
    assert assert_error(refused, 409, "invalid_state")["currentStatus"] == "INCOMPLETE"


async def test_an_unknown_quote_id_is_not_found(tenant, customer):
    body = _internal(customer, quoteId="quo_01jd3x0p6x9e3k2v1m8q4r7s5t")
    assert_error(await tenant.client.post("/v1/transfers", json=body), 404, "not_found")


async def test_organization_default_fee_applies_unless_the_transfer_names_one(tenant, customer):
    configured = await tenant.client.patch(
        "/v1/organizations/current/configuration",
        json={"defaultDeveloperFee": {"fixed": "10", "percent": 0.01}},
    )
    assert configured.status_code == 200, configured.text
    defaulted = await create(tenant.client, _internal(customer, value=10_000))
    assert defaulted["developerFee"]["amount"]["value"] == "110"
    none = await create(tenant.client, _internal(customer, value=10_000, developerFee=None))
    assert none["developerFee"] is None and none["destinationAmount"]["value"] == "10000"
    legacy = await create(
        tenant.client,
        _internal(customer, value=10_000, developerFeeFixed="5", developerFeePercent=0),
    )
    assert legacy["developerFee"]["amount"]["value"] == "5"
    assert legacy["developerFeeFixed"] == "5" and legacy["developerFeePercent"] == 0
