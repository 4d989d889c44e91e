"""A transfer's `documentIds` take only confirmed documents of its organization and customer,
and GET /v1/transfers/{id}/documents lists document resources a page at a time."""

from __future__ import annotations

from tests.conftest import assert_error
from tests.documents import files
from tests.documents.helpers import confirmed_document, put_file, request_upload
from tests.support import active_customer
from tests.transfers.conftest import amount, create


def _draft_body(customer, **extra) -> dict:
    return {
        "customerId": customer.id,
        "source": {"accountId": customer.accounts["USD"]},
        "destination": {"accountId": customer.accounts["USD"]},
        "amount": amount("USD", 1_000),
        **extra,
    }


async def test_only_confirmed_documents_of_the_same_customer_attach(tenant, make_tenant, customer):
    draft = await create(tenant.client, _draft_body(customer))
    path = f"/v1/transfers/{draft['id']}"
    pending = await request_upload(tenant.client, files.pdf(), customerId=customer.id)
    archived = await confirmed_document(tenant.client, customer.id)
    await tenant.client.post(f"/v1/documents/{archived['id']}/archive")
    someone_else = await active_customer(tenant.client)
    theirs = await confirmed_document(tenant.client, someone_else["id"])
    stranger = await make_tenant()
    stranger_customer = await active_customer(stranger.client)
    foreign = await confirmed_document(stranger.client, stranger_customer["id"])
    other_draft = await create(tenant.client, _draft_body(customer))
    for_other_transfer = await confirmed_document(
        tenant.client, customer.id, transferId=other_draft["id"]
    )
    for document_id in [
        pending["id"],
        archived["id"],
        theirs["id"],
        foreign["id"],
        for_other_transfer["id"],
        "doc_01jd3x0p6x9e3k2v1m8q4r7s5t",
    ]:
        refused = await tenant.client.patch(path, json={"documentIds": [document_id]})
        body = assert_error(refused, 422, "validation_error")
        assert body["errors"][0]["field"] == "documentIds.0", body
        created = await tenant.client.post(
            "/v1/transfers", json=_draft_body(customer, documentIds=[document_id])
        )
        assert_error(created, 422, "validation_error")
    unchanged = await tenant.client.get(path)
    assert unchanged.json()["documentIds"] == []

    good = await confirmed_document(tenant.client, customer.id, purpose="invoice")
    patched = await tenant.client.patch(path, json={"documentIds": [good["id"], good["id"]]})
    assert patched.status_code == 200, patched.text
    assert patched.json()["documentIds"] == [good["id"]]
    at_create = await tenant.client.post(
        "/v1/transfers", json=_draft_body(customer, documentIds=[good["id"]])
    )
    assert at_create.status_code == 201, at_create.text


async def test_a_transfers_documents_are_resources_a_page_at_a_time(tenant, customer):
    draft = await create(tenant.client, _draft_body(customer))
    attached = [
        (await confirmed_document(tenant.client, customer.id, purpose="invoice"))["id"]
        for _ in range(2)
    ]
    await tenant.client.patch(f"/v1/transfers/{draft['id']}", json={"documentIds": attached})
    # Uploaded for the transfer: its customer comes from the transfer.
    content = files.pdf("Contract")
    for_transfer = await request_upload(
        tenant.client, content, transferId=draft["id"], purpose="contract"
    )
    assert for_transfer["customerId"] == customer.id
    assert for_transfer["transferId"] == draft["id"]
    assert (await put_file(tenant.client, for_transfer, content)).status_code == 204

    first = await tenant.client.get(f"/v1/transfers/{draft['id']}/documents", params={"limit": 2})
    assert first.status_code == 200, first.text
    assert first.json()["hasMore"] is True
    rest = await tenant.client.get(
        f"/v1/transfers/{draft['id']}/documents",
        params={"limit": 2, "cursor": first.json()["nextCursor"]},
    )
    listed = [*first.json()["data"], *rest.json()["data"]]
    assert [document["id"] for document in listed] == [for_transfer["id"], *reversed(attached)]
    assert {document["purpose"] for document in listed} == {"invoice", "contract"}
    by_transfer = await tenant.client.get("/v1/documents", params={"transferId": draft["id"]})
    assert [document["id"] for document in by_transfer.json()["data"]] == [for_transfer["id"]]


async def test_a_transfer_and_another_customer_do_not_mix(tenant, customer):
    draft = await create(tenant.client, _draft_body(customer))
    other = await active_customer(tenant.client)
    body = await request_upload(
        tenant.client,
        files.pdf(),
        expect=422,
        transferId=draft["id"],
        customerId=other["id"],
    )
    assert body["errors"][0]["field"] == "customerId"
    unknown = await request_upload(
        tenant.client, files.pdf(), expect=404, transferId="tfr_01jd3x0p6x9e3k2v1m8q4r7s5t"
    )
    assert unknown["code"] == "not_found"
