"""The hosted verification page over HTTP: what a link opens, what it refuses, the
security headers, and a whole verification submitted as the page's form and script would."""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

from corridor.kit.clock import SystemClock
from tests.conftest import assert_error
from tests.documents import files
from tests.documents.helpers import put_file
from tests.hosted.pages import secrets_of
from tests.support import create_individual


async def _session(client, customer_id: str) -> tuple[str, str, str]:
    """A verification session of the customer: (path, session id, token)."""
    response = await client.post(f"/v1/customers/{customer_id}/verification-sessions")
    assert response.status_code == 201, response.text
    url = urlsplit(response.json()["url"])
    token = parse_qs(url.query)["token"][0]
    return f"{url.path}?{url.query}", response.json()["id"], token


async def _secrets(client, session_id: str, token: str) -> dict[str, str]:
    """What the page's forms send besides the answers: the link's token and the CSRF token."""
    page = await client.get(f"/verify/{session_id}", params={"token": token})
    return secrets_of(page.text)


def _call_headers(secrets: dict[str, str]) -> dict[str, str]:
    return {"X-Verification-Token": secrets["token"], "X-Corridor-CSRF": secrets["csrf"]}


async def _upload(client, session_id: str, token: str, purpose: str, content: bytes, type_: str):
    headers = _call_headers(await _secrets(client, session_id, token))
    requested = await client.post(
        f"/verify/{session_id}/uploads",
        json={
            "purpose": purpose,
            "fileName": f"{purpose}.pdf",
            "contentType": type_,
            "size": len(content),
        },
        headers=headers,
    )
    assert requested.status_code == 201, requested.text
    target = requested.json()
    put = await put_file(
        client,
        {"uploadUrl": target["uploadUrl"], "uploadHeaders": target["uploadHeaders"]},
        content,
    )
    assert put.status_code == 204, put.text
    confirmed = await client.post(
        f"/verify/{session_id}/uploads/{target['documentId']}/confirm", headers=headers
    )
    assert confirmed.status_code == 200, confirmed.text
    return confirmed.json()


ANSWERS = {
    "dateOfBirth": "1990-12-10",
    "nationality": "US",
    "taxIdentificationNumber": "123-45-6789",
    "idDocumentType": "PASSPORT",
    "idDocumentIssuingCountry": "US",
    "idDocumentNumber": "X1234567",
    "addressLine1": "1 Main St",
    "city": "Austin",
    "state": "TX",
    "postalCode": "78701",
    "country": "US",
}


async def test_a_link_opens_its_own_page_with_strict_headers(tenant, anonymous):
    customer = await create_individual(tenant.client, firstName="Ada", lastName="Byron")
    path, _, _ = await _session(tenant.client, customer["id"])
    page = await anonymous.get(path)
    assert page.status_code == 200, page.text
    assert page.headers["content-type"].startswith("text/html")
    policy = page.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "default-src 'none'" in policy
    assert "unsafe-inline" not in policy and "frame-ancestors 'none'" in policy
    assert page.headers["referrer-policy"] == "no-referrer"
    assert page.headers["cache-control"] == "no-store"
    assert "Ada Byron" in page.text and "What is required" in page.text
    assert "<script>" not in page.text and 'src="/hosted/static/verify.js"' in page.text
    assert "Sandbox: decide the outcome" in page.text
    script = await anonymous.get("/hosted/static/verify.js")
    assert script.status_code == 200 and script.headers["content-type"].startswith(
        "text/javascript"
    )
    assert_error(await anonymous.get("/hosted/static/../../config.py"), 404, "not_found")


async def test_a_wrong_or_expired_token_shows_no_ones_data(tenant, make_tenant, anonymous, clock):
    customer = await create_individual(tenant.client, firstName="Ada", lastName="Byron")
    path, session_id, token = await _session(tenant.client, customer["id"])
    # One character changed (never to itself: a token may end in "x").
    changed = token[:-1] + ("y" if token.endswith("x") else "x")
    other = await create_individual(tenant.client, firstName="Grace", lastName="Hopper")
    _, other_id, other_token = await _session(tenant.client, other["id"])
    for bad in [
        f"/verify/{session_id}?token={other_token}",
        f"/verify/{other_id}?token={token}",
        f"/verify/{session_id}?token={changed}",
        f"/verify/{session_id}",
        f"/verify/vs_01jd3x0p6x9e3k2v1m8q4r7s5t?token={token}",
        "/verify/nonsense?token=x",
    ]:
        page = await anonymous.get(bad)
        assert page.status_code == 404, bad
        assert "This link is not valid" in page.text
        assert "Ada" not in page.text and "Grace" not in page.text
        assert "content-security-policy" in page.headers
    uploads = await anonymous.post(
        f"/verify/{session_id}/uploads",
        json={
            "purpose": "id_front",
            "fileName": "a.pdf",
            "contentType": "application/pdf",
            "size": 10,
        },
        headers={"X-Verification-Token": other_token},
    )
    assert_error(uploads, 404, "verification_link_invalid")
    clock.set(SystemClock().now() + timedelta(days=7, minutes=1))
    expired = await anonymous.get(path)
    assert expired.status_code == 410
    assert "This link has expired" in expired.text and "Ada" not in expired.text


async def test_a_verification_submitted_through_the_page(tenant, anonymous):
    customer = await create_individual(
        tenant.client, firstName="Ada", lastName="Byron", dateOfBirth=None, address=None
    )
    _, session_id, token = await _session(tenant.client, customer["id"])
    secrets = await _secrets(anonymous, session_id, token)
    # Submitting without the required document: the page says what is missing, nothing saved.
    refused = await anonymous.post(
        f"/verify/{session_id}", data={**ANSWERS, **secrets, "outcome": "ACTIVE"}
    )
    assert refused.status_code == 422
    assert "Front of your ID document" in refused.text
    assert (await tenant.client.get(f"/v1/customers/{customer['id']}")).json()[
        "status"
    ] == "INCOMPLETE"

    front = await _upload(
        anonymous, session_id, token, "id_front", files.pdf("Passport"), "application/pdf"
    )
    assert front["status"] == "UPLOADED" and front["customerId"] == customer["id"]
    wrong_purpose = await anonymous.post(
        f"/verify/{session_id}/uploads",
        json={
            "purpose": "invoice",
            "fileName": "a.pdf",
            "contentType": "application/pdf",
            "size": 10,
        },
        headers=_call_headers(secrets),
    )
    assert_error(wrong_purpose, 422, "validation_error")

    bad_answer = await anonymous.post(
        f"/verify/{session_id}", data={**ANSWERS, "dateOfBirth": "not a date", **secrets}
    )
    assert bad_answer.status_code == 422 and "dateOfBirth" in bad_answer.text
    assert 'value="123-45-6789"' in bad_answer.text  # the answers stay filled in

    done = await anonymous.post(
        f"/verify/{session_id}", data={**ANSWERS, **secrets, "outcome": "ACTIVE"}
    )
    assert done.status_code == 303
    thanks = await anonymous.get(done.headers["location"])
    assert "Your verification is approved." in thanks.text
    verified = (await tenant.client.get(f"/v1/customers/{customer['id']}")).json()
    assert verified["status"] == "ACTIVE" and verified["dateOfBirth"] == "1990-12-10"
    assert verified["address"]["city"] == "Austin"
    documents = await tenant.client.get("/v1/documents", params={"customerId": customer["id"]})
    assert [(d["purpose"], d["status"]) for d in documents.json()["data"]] == [
        ("id_front", "UPLOADED")
    ]
    # The link is used: no more uploads or submits.
    again = await anonymous.post(f"/verify/{session_id}", data={**ANSWERS, **secrets})
    assert again.status_code == 303 and again.headers["location"] == done.headers["location"]
    late_upload = await anonymous.post(
        f"/verify/{session_id}/uploads",
        json={
            "purpose": "id_back",
            "fileName": "b.pdf",
            "contentType": "application/pdf",
            "size": 9,
        },
        headers=_call_headers(secrets),
    )
    assert_error(late_upload, 409, "verification_link_used")


async def _business_with_owner(client) -> tuple[dict, dict]:
    business = await client.post(
        "/v1/customers/business",
        json={"legalName": "Difference Engines Ltd", "email": "ops@engines.test"},
    )
    assert business.status_code == 201, business.text
    owner = await client.post(
        f"/v1/customers/{business.json()['id']}/associated-entities",
        json={
            "type": "INDIVIDUAL",
            "roles": ["BENEFICIAL_OWNER"],
            "ownershipPercentage": "60",
            "firstName": "Charles",
            "lastName": "Babbage",
        },
    )
    assert owner.status_code == 201, owner.text
    return business.json(), owner.json()


async def test_a_business_is_verified_through_its_page(tenant, anonymous):
    business, _ = await _business_with_owner(tenant.client)
    path, session_id, token = await _session(tenant.client, business["id"])
    page = await anonymous.get(path)
    assert "Difference Engines Ltd" in page.text and "Registration number" in page.text
    await _upload(
        anonymous,
        session_id,
        token,
        "business_registration",
        files.pdf("Certificate"),
        "application/pdf",
    )
    secrets = await _secrets(anonymous, session_id, token)
    answers = {
        "termsAccepted": "yes",
        "registrationNumber": "C1234567",
        "incorporationCountry": "gb",
        "addressLine1": "1 Engine Row",
        "city": "London",
        "country": "GB",
    }
    done = await anonymous.post(
        f"/verify/{session_id}", data={**answers, **secrets, "outcome": "RFI_PENDING"}
    )
    assert done.status_code == 303, done.text
    thanks = await anonymous.get(done.headers["location"])
    assert "More information is needed" in thanks.text
    customer = (await tenant.client.get(f"/v1/customers/{business['id']}")).json()
    assert customer["status"] == "RFI_PENDING"
    assert customer["registrationNumber"] == "C1234567"
    assert customer["incorporationCountry"] == "GB"


async def test_an_owner_verifies_through_the_entity_link(tenant, anonymous):
    business, owner = await _business_with_owner(tenant.client)
    link = await tenant.client.post(
        f"/v1/customers/{business['id']}/associated-entities/{owner['id']}/verification-link"
    )
    assert link.status_code == 201, link.text
    url = urlsplit(link.json()["url"])
    token = parse_qs(url.query)["token"][0]
    page = await anonymous.get(f"{url.path}?{url.query}")
    assert "Verify Charles Babbage" in page.text
    # The person's own details (what the API knows already is filled in) and documents.
    assert 'name="firstName" value="Charles"' in page.text
    assert 'name="dateOfBirth"' in page.text and 'name="addressLine1"' in page.text
    assert 'name="termsAccepted"' not in page.text  # the customer's terms, not the person's
    await _upload(anonymous, link.json()["id"], token, "id_front", files.png(), "image/png")
    secrets = await _secrets(anonymous, link.json()["id"], token)
    details = {
        "firstName": "Charles",
        "lastName": "Babbage",
        "dateOfBirth": "1971-12-26",
        "nationality": "gb",
        "taxIdentificationNumber": "AB123456C",
        "addressLine1": "1 Dorset Street",
        "city": "London",
        "country": "GB",
    }
    done = await anonymous.post(
        f"/verify/{link.json()['id']}", data={**details, **secrets, "outcome": "ACTIVE"}
    )
    assert done.status_code == 303, done.text
    entity = await tenant.client.get(
        f"/v1/customers/{business['id']}/associated-entities/{owner['id']}"
    )
    assert entity.json()["verificationStatus"] == "VERIFIED"
    # The person's own details were saved as PATCH …/associated-entities/{id} saves them.
    assert entity.json()["dateOfBirth"] == "1971-12-26" and entity.json()["nationality"] == "GB"
    assert entity.json()["taxIdentificationNumberLast4"] == "456C"
    assert entity.json()["address"]["city"] == "London"
    # The business itself is not decided by an owner's link.
    assert (await tenant.client.get(f"/v1/customers/{business['id']}")).json()["status"] == (
        "INCOMPLETE"
    )
