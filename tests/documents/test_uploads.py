"""Documents on the embedded default (local files): the upload request, Corridor's own signed
PUT, confirmation, reading, listing, archiving, and every refusal of issue 13."""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta
from urllib.parse import parse_qs, urlencode, urlsplit

from sqlalchemy import select, text

from corridor.documents.rules import document_bytes_max
from corridor.kit.clock import as_utc
from corridor.models.event import Event
from tests.auth.credentials import bearer, key_secret
from tests.conftest import assert_error, client_for
from tests.documents import files
from tests.documents.helpers import confirmed_document, put_file, request_upload
from tests.support import create_individual


async def _documents(client, **query) -> list[dict]:
    response = await client.get("/v1/documents", params=query)
    assert response.status_code == 200, response.text
    return response.json()["data"]


def _at(timestamp: str) -> datetime:
    return as_utc(datetime.fromisoformat(timestamp.replace("Z", "+00:00")))


def _with_query(url: str, **changes: str) -> str:
    parts = urlsplit(url)
    query = {name: values[0] for name, values in parse_qs(parts.query).items()}
    query.update(changes)
    return parts._replace(query=urlencode(query)).geturl()


async def test_a_file_goes_from_upload_request_to_confirmed(app, tenant, clock):
    customer = await create_individual(tenant.client)
    content = files.pdf()
    created = await request_upload(tenant.client, content, customerId=customer["id"])
    assert created["id"].startswith("doc_") and created["status"] == "PENDING_UPLOAD"
    assert created["customerId"] == customer["id"] and created["transferId"] is None
    assert created["size"] == len(content) and created["sha256"] is None
    assert created["uploadMethod"] == "PUT"
    assert created["uploadHeaders"] == {
        "Content-Type": "application/pdf",
        "Content-Length": str(len(content)),
    }
    assert _at(created["expiresAt"]) - _at(created["createdAt"]) == timedelta(minutes=15)
    assert created["uploadUrl"].startswith(f"http://testserver/uploads/{created['id']}?")

    uploaded = await put_file(tenant.client, created, content)
    assert uploaded.status_code == 204, uploaded.text
    still_pending = await tenant.client.get(f"/v1/documents/{created['id']}")
    assert still_pending.json()["status"] == "PENDING_UPLOAD"

    confirmed = await tenant.client.post(f"/v1/documents/{created['id']}/confirm")
    assert confirmed.status_code == 200, confirmed.text
    document = confirmed.json()
    assert document["status"] == "UPLOADED" and document["uploadedAt"] is not None
    assert document["sha256"] == hashlib.sha256(content).hexdigest()
    assert "uploadUrl" not in document
    fetched = await tenant.client.get(f"/v1/documents/{created['id']}")
    assert fetched.json() == document

    async with app.state.database.session() as session:
        events = (
            await session.execute(
                select(Event).where(
                    Event.organization_id == tenant.organization_id,
                    Event.type == "document.confirmed",
                )
            )
        ).scalars()
        assert [event.data["id"] for event in events] == [created["id"]]
    stored = app.state.settings.documents_directory / "documents" / tenant.organization_id
    assert (stored / created["id"]).read_bytes() == content


async def test_the_list_filters_and_pages(tenant):
    first = await create_individual(tenant.client)
    second = await create_individual(tenant.client, email="grace@example.com")
    invoice = await confirmed_document(tenant.client, first["id"], purpose="invoice")
    proof = await confirmed_document(tenant.client, first["id"])
    pending = await request_upload(tenant.client, files.pdf(), customerId=second["id"])

    assert [d["id"] for d in await _documents(tenant.client)] == [
        pending["id"],
        proof["id"],
        invoice["id"],
    ]
    assert [d["id"] for d in await _documents(tenant.client, customerId=first["id"])] == [
        proof["id"],
        invoice["id"],
    ]
    assert [d["id"] for d in await _documents(tenant.client, purpose="invoice")] == [invoice["id"]]
    assert [d["id"] for d in await _documents(tenant.client, status="PENDING_UPLOAD")] == [
        pending["id"]
    ]
    page = await tenant.client.get("/v1/documents", params={"limit": 2})
    assert page.json()["hasMore"] is True
    rest = await tenant.client.get(
        "/v1/documents", params={"limit": 2, "cursor": page.json()["nextCursor"]}
    )
    assert [d["id"] for d in rest.json()["data"]] == [invoice["id"]]
    assert rest.json()["hasMore"] is False
    for query, field in [
        ({"customerId": "nope"}, "customerId"),
        ({"transferId": "cus_01jd3x0p6x9e3k2v1m8q4r7s5t"}, "transferId"),
        ({"status": "LOST"}, "status"),
        ({"purpose": "selfie_with_cat"}, "purpose"),
    ]:
        body = assert_error(
            await tenant.client.get("/v1/documents", params=query), 422, "validation_error"
        )
        assert body["errors"][0]["field"] == field


async def test_bad_upload_requests_are_refused_and_create_nothing(tenant):
    customer = await create_individual(tenant.client)
    cases = [
        ({"contentType": "application/x-msdownload"}, 422, "validation_error", "contentType"),
        ({"contentType": "text/html"}, 422, "validation_error", "contentType"),
        ({"size": document_bytes_max + 1}, 413, "payload_too_large", "size"),
        ({"size": 0}, 422, "validation_error", "size"),
        ({"size": "12"}, 422, "validation_error", "size"),
        ({"purpose": "gossip"}, 422, "validation_error", "purpose"),
        ({"fileName": "../../etc/passwd"}, 422, "validation_error", "fileName"),
        ({"fileName": "a" * 256}, 422, "validation_error", "fileName"),
        ({"customerId": None}, 422, "validation_error", "customerId"),
        ({"status": "UPLOADED"}, 422, "validation_error", "status"),
    ]
    for change, status, code, field in cases:
        body = {
            "customerId": customer["id"],
            "purpose": "proof_of_address",
            "fileName": "bill.pdf",
            "contentType": "application/pdf",
            "size": 1000,
            **change,
        }
        response = await tenant.client.post("/v1/documents/upload-requests", json=body)
        answer = assert_error(response, status, code)
        assert answer["errors"][0]["field"] == field, (change, answer)
    unknown = await tenant.client.post(
        "/v1/documents/upload-requests",
        json={
            "customerId": "cus_01jd3x0p6x9e3k2v1m8q4r7s5t",
            "purpose": "other",
            "fileName": "x.pdf",
            "contentType": "application/pdf",
            "size": 10,
        },
    )
    assert_error(unknown, 404, "not_found")
    assert await _documents(tenant.client) == []


async def test_an_expired_upload_url_is_refused(tenant, clock):
    customer = await create_individual(tenant.client)
    content = files.pdf()
    created = await request_upload(tenant.client, content, customerId=customer["id"])
    clock.set(_at(created["expiresAt"]) + timedelta(seconds=1))
    assert_error(await put_file(tenant.client, created, content), 403, "upload_url_expired")
    clock.reset()
    confirm = await tenant.client.post(f"/v1/documents/{created['id']}/confirm")
    assert_error(confirm, 409, "invalid_state")


async def test_an_upload_url_works_once(tenant):
    customer = await create_individual(tenant.client)
    content = files.pdf()
    created = await request_upload(tenant.client, content, customerId=customer["id"])
    assert (await put_file(tenant.client, created, content)).status_code == 204
    again = await put_file(tenant.client, created, files.pdf("Something else"))
    assert_error(again, 409, "upload_url_used")
    confirmed = await tenant.client.post(f"/v1/documents/{created['id']}/confirm")
    assert confirmed.json()["sha256"] == hashlib.sha256(content).hexdigest()
    after = await put_file(tenant.client, created, content)
    assert_error(after, 409, "upload_url_used")


async def test_a_tampered_upload_url_is_refused(tenant):
    customer = await create_individual(tenant.client)
    content = files.pdf()
    created = await request_upload(tenant.client, content, customerId=customer["id"])
    other = await request_upload(tenant.client, content, customerId=customer["id"])
    url = created["uploadUrl"]
    signature = parse_qs(urlsplit(url).query)["signature"][0]
    expires = int(parse_qs(urlsplit(url).query)["expires"][0])
    flipped = ("A" if signature[0] != "A" else "B") + signature[1:]
    tampered = [
        _with_query(url, signature=flipped),
        _with_query(url, expires=str(expires + 3600)),
        _with_query(url, signature=""),
        url.replace(created["id"], other["id"]),
    ]
    for bad_url in tampered:
        response = await put_file(tenant.client, created, content, url=bad_url)
        assert_error(response, 403, "invalid_signature")
    # The genuine URL still works: refusals used nothing up.
    assert (await put_file(tenant.client, created, content)).status_code == 204


async def test_confirm_before_upload_is_refused_and_changes_nothing(tenant):
    customer = await create_individual(tenant.client)
    created = await request_upload(tenant.client, files.pdf(), customerId=customer["id"])
    body = assert_error(
        await tenant.client.post(f"/v1/documents/{created['id']}/confirm"), 409, "invalid_state"
    )
    assert body["currentStatus"] == "PENDING_UPLOAD"
    fetched = await tenant.client.get(f"/v1/documents/{created['id']}")
    assert fetched.json()["status"] == "PENDING_UPLOAD"


async def test_bytes_other_than_declared_are_refused_at_upload(tenant):
    customer = await create_individual(tenant.client)
    content = files.pdf()
    created = await request_upload(tenant.client, content, customerId=customer["id"])
    image = files.png()
    # A PNG sent as the PDF (padded to the declared size): sniffed, not trusted.
    disguised = image + b"\x00" * (len(content) - len(image))
    refused = await put_file(tenant.client, created, disguised)
    body = assert_error(refused, 422, "validation_error")
    assert "image/png" in body["message"]
    wrong_type_header = await put_file(
        tenant.client, created, content, headers={"Content-Type": "image/png"}
    )
    assert_error(wrong_type_header, 422, "validation_error")
    too_short = await put_file(tenant.client, created, content[:-10])
    assert_error(too_short, 422, "validation_error")
    too_long = await put_file(tenant.client, created, content + b"0123456789")
    assert_error(too_long, 413, "payload_too_large")
    # Nothing was kept, and the URL is still good for the right file.
    assert_error(
        await tenant.client.post(f"/v1/documents/{created['id']}/confirm"), 409, "invalid_state"
    )
    assert (await put_file(tenant.client, created, content)).status_code == 204
    confirmed = await tenant.client.post(f"/v1/documents/{created['id']}/confirm")
    assert confirmed.json()["status"] == "UPLOADED"


async def test_images_are_accepted_as_their_type(tenant):
    customer = await create_individual(tenant.client)
    document = await confirmed_document(
        tenant.client,
        customer["id"],
        files.png(),
        purpose="id_front",
        fileName="front.png",
        contentType="image/png",
    )
    assert document["contentType"] == "image/png" and document["purpose"] == "id_front"


async def test_archive_is_final(tenant):
    customer = await create_individual(tenant.client)
    document = await confirmed_document(tenant.client, customer["id"])
    archived = await tenant.client.post(f"/v1/documents/{document['id']}/archive")
    assert archived.status_code == 200, archived.text
    assert archived.json()["status"] == "ARCHIVED" and archived.json()["archivedAt"]
    again = await tenant.client.post(f"/v1/documents/{document['id']}/archive")
    assert_error(again, 409, "invalid_state")
    confirm = await tenant.client.post(f"/v1/documents/{document['id']}/confirm")
    assert_error(confirm, 409, "invalid_state")


async def test_documents_are_seen_only_by_their_organization_and_customer(app, tenant, make_tenant):
    customer = await create_individual(tenant.client)
    other_customer = await create_individual(tenant.client, email="grace@example.com")
    document = await confirmed_document(tenant.client, customer["id"])
    stranger = await make_tenant()
    for method, path in [
        ("GET", f"/v1/documents/{document['id']}"),
        ("POST", f"/v1/documents/{document['id']}/confirm"),
        ("POST", f"/v1/documents/{document['id']}/archive"),
    ]:
        assert_error(await stranger.client.request(method, path), 404, "not_found")
    assert await _documents(stranger.client) == []
    upload_for_foreign_customer = await stranger.client.post(
        "/v1/documents/upload-requests",
        json={
            "customerId": customer["id"],
            "purpose": "other",
            "fileName": "x.pdf",
            "contentType": "application/pdf",
            "size": 10,
        },
    )
    assert_error(upload_for_foreign_customer, 404, "not_found")

    bound = client_for(app, {**tenant.headers(), "X-Corridor-On-Behalf-Of": other_customer["id"]})
    async with bound:
        assert_error(await bound.get(f"/v1/documents/{document['id']}"), 404, "not_found")
        assert await _documents(bound) == []

    reader = client_for(app, bearer(await key_secret(tenant, ["documents:read"])))
    async with reader:
        assert (await reader.get(f"/v1/documents/{document['id']}")).status_code == 200
        assert_error(await reader.post(f"/v1/documents/{document['id']}/archive"), 403, "forbidden")
    no_scope = client_for(app, bearer(await key_secret(tenant, ["customers:read"])))
    async with no_scope:
        assert_error(await no_scope.get("/v1/documents"), 403, "forbidden")


async def test_a_replayed_upload_request_does_not_show_the_url_again(app, tenant):
    customer = await create_individual(tenant.client)
    body = {
        "customerId": customer["id"],
        "purpose": "invoice",
        "fileName": "invoice.pdf",
        "contentType": "application/pdf",
        "size": len(files.pdf()),
    }
    headers = {"Idempotency-Key": "upload-invoice-1"}
    first = await tenant.client.post("/v1/documents/upload-requests", json=body, headers=headers)
    again = await tenant.client.post("/v1/documents/upload-requests", json=body, headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.json()["id"] == first.json()["id"]
    assert first.json()["uploadUrl"] and "secretNote" not in first.json()
    assert again.json()["uploadUrl"] is None and "upload URL" in again.json()["secretNote"]
    signature = parse_qs(urlsplit(first.json()["uploadUrl"]).query)["signature"][0]
    async with app.state.database.session() as session:
        stored = await session.execute(
            text("SELECT response_body FROM idempotency_records WHERE key = 'upload-invoice-1'")
        )
        assert all(signature not in (row[0] or "") for row in stored)
