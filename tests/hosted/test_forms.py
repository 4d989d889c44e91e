"""The hosted page's forms over HTTP: the terms of service accepted with the answers, a
business's owners added and removed with the API's validation shown beside each field, the
owner link saving the person's own details, and the CSRF token every form and call needs."""

from __future__ import annotations

from sqlalchemy import select

from corridor.models.customer import TermsOfServiceAcceptance
from tests.conftest import assert_error
from tests.documents import files
from tests.hosted.pages import field_error, link_secrets, secrets_of
from tests.hosted.test_page import ANSWERS, _call_headers, _upload
from tests.support import create_individual

BROWSER = "Mozilla/5.0 (X11; Linux x86_64) TestBrowser/1.0"


async def _link(client, customer_id: str) -> str:
    started = await client.post(f"/v1/customers/{customer_id}/verification-sessions")
    assert started.status_code == 201, started.text
    return started.json()["url"]


def _requirement(page: str, code: str) -> str:
    marker = f'data-requirement="{code}" data-satisfied="'
    start = page.index(marker) + len(marker)
    return page[start : page.index('"', start)]


async def test_the_terms_of_service_are_accepted_on_the_page(tenant, anonymous, app):
    customer = await create_individual(
        tenant.client, firstName="Ada", lastName="Byron", tosAcceptanceId=None
    )
    assert customer["tosAcceptanceId"] is None
    url = await _link(tenant.client, customer["id"])
    session_id, secrets = await link_secrets(anonymous, url)
    page = (await anonymous.get(url.split("testserver", 1)[-1])).text
    assert 'type="checkbox" id="field-termsAccepted" name="termsAccepted" value="yes"' in page
    assert '<a href="/hosted/terms-of-service" target="_blank" rel="noopener">' in page
    assert _requirement(page, "terms_of_service_accepted") == "no"
    terms = await anonymous.get("/hosted/terms-of-service")
    assert terms.status_code == 200 and "Version 2026-01-01" in terms.text
    assert "default-src 'none'" in terms.headers["content-security-policy"]

    await _upload(
        anonymous, session_id, secrets["token"], "id_front", files.pdf("ID"), "application/pdf"
    )
    unticked = await anonymous.post(
        f"/verify/{session_id}", data={**ANSWERS, **secrets, "outcome": "ACTIVE"}
    )
    assert unticked.status_code == 422
    assert field_error(unticked.text, "termsAccepted") == "accept the terms of service to continue"
    assert 'href="#field-termsAccepted">Terms of service</a>' in unticked.text
    assert 'value="123-45-6789"' in unticked.text  # what was typed stays
    unchanged = (await tenant.client.get(f"/v1/customers/{customer['id']}")).json()
    assert unchanged["status"] == "INCOMPLETE" and unchanged["tosAcceptanceId"] is None

    done = await anonymous.post(
        f"/verify/{session_id}",
        data={**ANSWERS, **secrets, "termsAccepted": "yes", "outcome": "ACTIVE"},
        headers={"User-Agent": BROWSER},
    )
    assert done.status_code == 303, done.text
    verified = (await tenant.client.get(f"/v1/customers/{customer['id']}")).json()
    assert verified["status"] == "ACTIVE"
    acceptance_id = verified["tosAcceptanceId"]
    assert acceptance_id.startswith("tos_")
    acceptance = await tenant.client.get(f"/v1/terms-of-service/acceptances/{acceptance_id}")
    assert acceptance.json()["status"] == "ACCEPTED" and acceptance.json()["acceptedAt"]
    requirements = await tenant.client.get(
        f"/v1/customers/{customer['id']}/compliance-requirements"
    )
    assert requirements.status_code == 200, requirements.text
    assert requirements.json()["satisfied"] is True
    # Recorded with the requester's IP address and user agent, as the API records them.
    async with app.state.database.session() as session:
        stored = (
            await session.execute(
                select(TermsOfServiceAcceptance).where(TermsOfServiceAcceptance.id == acceptance_id)
            )
        ).scalar_one()
    assert stored.accepted_user_agent == BROWSER and stored.accepted_ip == "127.0.0.1"


async def test_a_customer_who_accepted_is_not_asked_again(tenant, anonymous):
    customer = await create_individual(tenant.client, taxIdentificationNumber="123-45-6789")
    url = await _link(tenant.client, customer["id"])
    page = await anonymous.get(url.split("testserver", 1)[-1])
    assert 'name="termsAccepted"' not in page.text
    assert _requirement(page.text, "terms_of_service_accepted") == "yes"
    # What is on file fills the form, but for the tax id: only its last four are shown.
    assert 'name="dateOfBirth" value="1990-12-10"' in page.text
    assert 'name="city" value="San Francisco"' in page.text
    assert 'name="taxIdentificationNumber" value=""' in page.text
    assert "123-45-6789" not in page.text and "On file, ending in 6789" in page.text
    session_id, secrets = await link_secrets(anonymous, url)
    await _upload(
        anonymous, session_id, secrets["token"], "id_front", files.pdf("ID"), "application/pdf"
    )
    kept = {**ANSWERS, "taxIdentificationNumber": ""}
    done = await anonymous.post(
        f"/verify/{session_id}", data={**kept, **secrets, "outcome": "UNDER_REVIEW"}
    )
    assert done.status_code == 303, done.text
    after = (await tenant.client.get(f"/v1/customers/{customer['id']}")).json()
    assert after["status"] == "UNDER_REVIEW" and after["taxIdentificationNumberLast4"] == "6789"


async def _business(client, legal_name: str = "Difference Engines Ltd") -> dict:
    created = await client.post(
        "/v1/customers/business", json={"legalName": legal_name, "email": "ops@engines.test"}
    )
    assert created.status_code == 201, created.text
    return created.json()


OWNER = {
    "firstName": "Charles",
    "lastName": "Babbage",
    "roles": "BENEFICIAL_OWNER",
    "ownershipPercentage": "60",
    "dateOfBirth": "1971-12-26",
    "nationality": "gb",
    "email": "charles@engines.test",
    "addressLine1": "1 Dorset Street",
    "city": "London",
    "country": "GB",
}


async def test_a_business_adds_and_removes_owners_on_its_page(tenant, anonymous):
    business = await _business(tenant.client)
    url = await _link(tenant.client, business["id"])
    session_id, secrets = await link_secrets(anonymous, url)
    page = (await anonymous.get(url.split("testserver", 1)[-1])).text
    assert 'data-testid="no-owners"' in page
    assert _requirement(page, "beneficial_owner_or_control_person") == "no"

    # The API's validation, each problem beside its field; what was typed stays.
    wrong = await anonymous.post(
        f"/verify/{session_id}/owners",
        data={
            **secrets,
            "firstName": "Charles",
            "lastName": "",
            "ownershipPercentage": "150",
            "dateOfBirth": "1971-02-30",
            "nationality": "Britain",
            "email": "not an email",
            "addressLine1": "1 Dorset Street",
        },
    )
    assert wrong.status_code == 422
    assert field_error(wrong.text, "roles") == "choose at least one role"
    assert wrong.text.count('href="#owner-roles">Roles</a>') == 1
    assert "at most 100" in field_error(wrong.text, "ownershipPercentage")
    assert field_error(wrong.text, "dateOfBirth")
    assert field_error(wrong.text, "nationality")
    assert field_error(wrong.text, "email")
    assert field_error(wrong.text, "city")  # the address needs its city and country
    assert 'id="owner-firstName" type="text" name="firstName" value="Charles"' in wrong.text
    assert 'data-testid="owner-errors"' in wrong.text
    missing_name = await anonymous.post(
        f"/verify/{session_id}/owners",
        data={**secrets, **OWNER, "lastName": ""},
    )
    assert field_error(missing_name.text, "lastName") == "required for an INDIVIDUAL entity"

    added = await anonymous.post(f"/verify/{session_id}/owners", data={**secrets, **OWNER})
    assert added.status_code == 303, added.text
    assert added.headers["location"].endswith("#owners")
    page = (await anonymous.get(added.headers["location"])).text
    assert "Charles Babbage" in page and "60.00%" in page
    assert _requirement(page, "beneficial_owner_or_control_person") == "yes"
    requirements = await tenant.client.get(
        f"/v1/customers/{business['id']}/compliance-requirements"
    )
    met = {r["code"]: r["satisfied"] for r in requirements.json()["requirements"]}
    assert met["beneficial_owner_or_control_person"] is True

    # Ownership over 100% in all is refused as the API refuses it.
    too_much = await anonymous.post(
        f"/verify/{session_id}/owners",
        data={
            **secrets,
            "firstName": "Ada",
            "lastName": "Lovelace",
            "roles": ["BENEFICIAL_OWNER", "CONTROL_PERSON"],
            "ownershipPercentage": "50",
        },
    )
    assert too_much.status_code == 422
    assert field_error(too_much.text, "ownershipPercentage") == (
        "ownership of all entities exceeds 100%"
    )
    assert 'id="owner-role-CONTROL_PERSON" name="roles" value="CONTROL_PERSON" checked' in (
        too_much.text
    )
    second = await anonymous.post(
        f"/verify/{session_id}/owners",
        data={**secrets, "firstName": "Ada", "lastName": "Lovelace", "roles": "CONTROL_PERSON"},
    )
    assert second.status_code == 303, second.text

    page = (await anonymous.get(second.headers["location"])).text
    owner_ids = [part.split('"')[0] for part in page.split('data-owner="')[1:]]
    assert len(owner_ids) == 2
    removed = await anonymous.post(
        f"/verify/{session_id}/owners/{owner_ids[0]}/remove", data=secrets
    )
    assert removed.status_code == 303
    gone = await tenant.client.get(
        f"/v1/customers/{business['id']}/associated-entities/{owner_ids[0]}"
    )
    assert_error(gone, 404, "not_found")
    kept = await tenant.client.get(
        f"/v1/customers/{business['id']}/associated-entities/{owner_ids[1]}"
    )
    assert kept.json()["roles"] == ["CONTROL_PERSON"]
    unknown = await anonymous.post(
        f"/verify/{session_id}/owners/{owner_ids[0]}/remove", data=secrets
    )
    assert unknown.status_code == 422 and 'data-testid="owner-errors"' in unknown.text


async def test_a_business_without_owners_is_told_so(tenant, anonymous):
    business = await _business(tenant.client)
    session_id, secrets = await link_secrets(anonymous, await _link(tenant.client, business["id"]))
    await _upload(
        anonymous,
        session_id,
        secrets["token"],
        "business_registration",
        files.pdf("Certificate"),
        "application/pdf",
    )
    answers = {
        "termsAccepted": "yes",
        "registrationNumber": "C1234567",
        "incorporationCountry": "GB",
        "addressLine1": "1 Engine Row",
        "city": "London",
        "country": "GB",
    }
    refused = await anonymous.post(f"/verify/{session_id}", data={**answers, **secrets})
    assert refused.status_code == 422
    assert '<a href="#owners">Owners and control persons</a>: required: At least one' in (
        refused.text
    )
    unchanged = (await tenant.client.get(f"/v1/customers/{business['id']}")).json()
    assert unchanged["status"] == "INCOMPLETE" and unchanged["tosAcceptanceId"] is None
    assert unchanged["registrationNumber"] is None  # nothing saved


async def test_another_customers_owner_cannot_be_removed(tenant, anonymous):
    mine = await _business(tenant.client)
    theirs = await _business(tenant.client, "Analytical Engines Ltd")
    owner = await tenant.client.post(
        f"/v1/customers/{theirs['id']}/associated-entities",
        json={"type": "INDIVIDUAL", "roles": ["CONTROL_PERSON"], "firstName": "A", "lastName": "B"},
    )
    session_id, secrets = await link_secrets(anonymous, await _link(tenant.client, mine["id"]))
    refused = await anonymous.post(
        f"/verify/{session_id}/owners/{owner.json()['id']}/remove", data=secrets
    )
    assert refused.status_code == 422
    still = await tenant.client.get(
        f"/v1/customers/{theirs['id']}/associated-entities/{owner.json()['id']}"
    )
    assert still.status_code == 200


async def test_an_individuals_page_has_no_owners(tenant, anonymous):
    customer = await create_individual(tenant.client)
    session_id, secrets = await link_secrets(anonymous, await _link(tenant.client, customer["id"]))
    refused = await anonymous.post(f"/verify/{session_id}/owners", data={**secrets, **OWNER})
    assert refused.status_code == 422
    assert "Only a business&#39;s page has owners" in refused.text


async def test_every_form_and_call_needs_the_pages_csrf_token(tenant, anonymous):
    business = await _business(tenant.client)
    session_id, secrets = await link_secrets(anonymous, await _link(tenant.client, business["id"]))
    other = await _business(tenant.client, "Other Ltd")
    _, other_secrets = await link_secrets(anonymous, await _link(tenant.client, other["id"]))
    forged_forms = [
        {"token": secrets["token"]},
        {"token": secrets["token"], "csrf": ""},
        {"token": secrets["token"], "csrf": other_secrets["csrf"]},
        {"token": secrets["token"], "csrf": secrets["csrf"][:-2] + "xx"},
    ]
    for path in ("", "/owners", "/owners/ae_01jd3x0p6x9e3k2v1m8q4r7s5t/remove"):
        for fields in forged_forms:
            refused = await anonymous.post(f"/verify/{session_id}{path}", data={**OWNER, **fields})
            assert refused.status_code == 403, (path, fields)
            assert "This form could not be accepted" in refused.text
        # The right token, but sent by another site's page.
        cross_site = await anonymous.post(
            f"/verify/{session_id}{path}",
            data={**OWNER, **secrets},
            headers={"Sec-Fetch-Site": "cross-site"},
        )
        assert cross_site.status_code == 403
    assert (
        "Charles"
        not in (
            await anonymous.get(f"/verify/{session_id}", params={"token": secrets["token"]})
        ).text
    )
    upload = {
        "purpose": "business_registration",
        "fileName": "a.pdf",
        "contentType": "application/pdf",
        "size": 10,
    }
    headers = _call_headers(secrets)
    without = await anonymous.post(
        f"/verify/{session_id}/uploads",
        json=upload,
        headers={"X-Verification-Token": secrets["token"]},
    )
    assert_error(without, 403, "csrf_token_invalid")
    cross_site = await anonymous.post(
        f"/verify/{session_id}/uploads",
        json=upload,
        headers={**headers, "Sec-Fetch-Site": "same-site"},
    )
    assert_error(cross_site, 403, "csrf_token_invalid")
    same_origin = await anonymous.post(
        f"/verify/{session_id}/uploads",
        json=upload,
        headers={**headers, "Sec-Fetch-Site": "same-origin"},
    )
    assert same_origin.status_code == 201, same_origin.text
    confirm = await anonymous.post(
        f"/verify/{session_id}/uploads/{same_origin.json()['documentId']}/confirm",
        headers={"X-Verification-Token": secrets["token"], "X-Corridor-CSRF": "wrong"},
    )
    assert_error(confirm, 403, "csrf_token_invalid")


async def test_what_people_typed_is_escaped(tenant, anonymous):
    business = await _business(tenant.client, '<script>alert("legal")</script> & Co')
    session_id, secrets = await link_secrets(anonymous, await _link(tenant.client, business["id"]))
    added = await anonymous.post(
        f"/verify/{session_id}/owners",
        data={
            **secrets,
            "firstName": '"><img src=x onerror=alert(1)>',
            "lastName": "O'Brien",
            "roles": "CONTROL_PERSON",
        },
    )
    assert added.status_code == 303, added.text
    page = (await anonymous.get(added.headers["location"])).text
    assert "<script>alert" not in page and "<img src=x" not in page
    assert "&lt;script&gt;alert(&#34;legal&#34;)&lt;/script&gt; &amp; Co" in page
    assert 'aria-label="Remove &#34;&gt;&lt;img src=x onerror=alert(1)&gt; O&#39;Brien"' in page
    wrong = await anonymous.post(
        f"/verify/{session_id}/owners",
        data={**secrets, "firstName": "<b>x</b>", "lastName": "y", "roles": "<i>NOPE</i>"},
    )
    assert wrong.status_code == 422
    assert "<b>x</b>" not in wrong.text and "<i>NOPE</i>" not in wrong.text
    assert 'value="&lt;b&gt;x&lt;/b&gt;"' in wrong.text
    assert secrets_of(wrong.text) == secrets


async def test_in_production_a_review_decides_not_the_page(make_tenant, production_app):
    from tests.conftest import client_for

    live = await make_tenant(production_app)
    async with client_for(production_app) as anonymous:
        customer = await create_individual(
            live.client, email="ada@lovelace.co.uk", tosAcceptanceId=None
        )
        url = await _link(live.client, customer["id"])
        session_id, secrets = await link_secrets(anonymous, url)
        page = (await anonymous.get(url.split("testserver", 1)[-1])).text
        assert "Sandbox: decide the outcome" not in page and 'name="outcome"' not in page
        assert 'name="termsAccepted"' in page
        await _upload(
            anonymous, session_id, secrets["token"], "id_front", files.pdf("ID"), "application/pdf"
        )
        chosen = await anonymous.post(
            f"/verify/{session_id}",
            data={**ANSWERS, **secrets, "termsAccepted": "yes", "outcome": "ACTIVE"},
        )
        assert chosen.status_code == 422
        assert "Outcome</a>: is not an outcome this page offers" in chosen.text
        done = await anonymous.post(
            f"/verify/{session_id}", data={**ANSWERS, **secrets, "termsAccepted": "yes"}
        )
        assert done.status_code == 303, done.text
        thanks = await anonymous.get(done.headers["location"])
        assert "Your details are under review." in thanks.text
        customer = (await live.client.get(f"/v1/customers/{customer['id']}")).json()
        assert customer["status"] == "UNDER_REVIEW" and customer["tosAcceptanceId"]


async def test_a_request_for_information_is_answered_on_a_new_link(tenant, anonymous, app):
    from corridor.models.customer import EnhancedDiligenceRfi

    customer = await create_individual(tenant.client)
    session_id, secrets = await link_secrets(anonymous, await _link(tenant.client, customer["id"]))
    await _upload(
        anonymous, session_id, secrets["token"], "id_front", files.pdf("ID"), "application/pdf"
    )
    asked = await anonymous.post(
        f"/verify/{session_id}", data={**ANSWERS, **secrets, "outcome": "RFI_PENDING"}
    )
    assert asked.status_code == 303
    pending = await tenant.client.get(
        f"/v1/customers/{customer['id']}/pending-enhanced-diligence-rfi"
    )
    assert pending.status_code == 200, pending.text

    # The customer's next link asks the request's questions, each required.
    url = await _link(tenant.client, customer["id"])
    session_id, secrets = await link_secrets(anonymous, url)
    page = (await anonymous.get(url.split("testserver", 1)[-1])).text
    assert "More information: Personal information" in page
    assert 'name="rfi.personal.occupation"' in page
    assert 'type="checkbox" id="field-rfi.attestation.confirmed"' in page
    await _upload(
        anonymous, session_id, secrets["token"], "id_front", files.pdf("ID"), "application/pdf"
    )
    partly = await anonymous.post(
        f"/verify/{session_id}",
        data={**ANSWERS, **secrets, "rfi.personal.occupation": "Mathematician"},
    )
    assert partly.status_code == 422
    assert field_error(partly.text, "rfi.personal.occupation") is None
    assert field_error(partly.text, "rfi.personal.sourceOfFunds") == "required"
    assert field_error(partly.text, "rfi.attestation.confirmed") == "required"
    assert (
        '<a href="#field-rfi.activity.purposeOfAccount">What the account will be used for</a>'
        in (partly.text)
    )
    assert 'value="Mathematician"' in partly.text
    too_long = await anonymous.post(
        f"/verify/{session_id}",
        data={
            **ANSWERS,
            **secrets,
            "rfi.personal.occupation": "x" * 1001,
            "rfi.personal.sourceOfFunds": "Salary",
            "rfi.activity.expectedMonthlyVolume": "5000",
            "rfi.activity.purposeOfAccount": "Paying suppliers",
            "rfi.attestation.confirmed": "yes",
        },
    )
    assert too_long.status_code == 422
    assert field_error(too_long.text, "rfi.personal.occupation") == "at most 1000 characters"
    still = (await tenant.client.get(f"/v1/customers/{customer['id']}")).json()
    assert still["status"] == "RFI_PENDING"

    done = await anonymous.post(
        f"/verify/{session_id}",
        data={
            **ANSWERS,
            **secrets,
            "rfi.personal.occupation": "Mathematician",
            "rfi.personal.sourceOfFunds": "Salary",
            "rfi.activity.expectedMonthlyVolume": "5000",
            "rfi.activity.purposeOfAccount": "Paying suppliers",
            "rfi.attestation.confirmed": "yes",
            "outcome": "ACTIVE",
        },
    )
    assert done.status_code == 303, done.text
    after = (await tenant.client.get(f"/v1/customers/{customer['id']}")).json()
    assert after["status"] == "ACTIVE"
    gone = await tenant.client.get(f"/v1/customers/{customer['id']}/pending-enhanced-diligence-rfi")
    assert_error(gone, 404, "not_found")
    async with app.state.database.session() as session:
        rfi = await session.get(EnhancedDiligenceRfi, pending.json()["id"])
    assert rfi.status == "SUBMITTED"
    assert rfi.answers["personal"]["occupation"] == "Mathematician"
    assert rfi.answers["attestation"]["confirmed"] is True
    assert all(step["completed"] for step in rfi.steps)


async def test_a_form_with_too_many_fields_is_refused_not_a_crash(tenant, anonymous):
    business = await _business(tenant.client)
    session_id, secrets = await link_secrets(anonymous, await _link(tenant.client, business["id"]))
    flood = {f"field{number}": "x" for number in range(100)}
    for path in ("", "/owners", "/owners/ae_01jd3x0p6x9e3k2v1m8q4r7s5t/remove"):
        refused = await anonymous.post(f"/verify/{session_id}{path}", data={**secrets, **flood})
        assert refused.status_code == 400, path
        assert "This form could not be read" in refused.text


async def test_a_company_that_owns_the_business_completes_its_link(tenant, anonymous):
    business = await _business(tenant.client)
    holding = await tenant.client.post(
        f"/v1/customers/{business['id']}/associated-entities",
        json={
            "type": "BUSINESS",
            "roles": ["BENEFICIAL_OWNER"],
            "ownershipPercentage": "30",
            "legalName": "Engine Holdings plc",
        },
    )
    assert holding.status_code == 201, holding.text
    link = await tenant.client.post(
        f"/v1/customers/{business['id']}/associated-entities/{holding.json()['id']}"
        "/verification-link"
    )
    session_id, secrets = await link_secrets(anonymous, link.json()["url"])
    page = (await anonymous.get(f"/verify/{session_id}", params={"token": secrets["token"]})).text
    assert "Verify Engine Holdings plc" in page and "Company details" in page
    assert 'name="legalName" value="Engine Holdings plc"' in page
    assert 'name="dateOfBirth"' not in page and 'id="file-id_front"' not in page
    await _upload(
        anonymous,
        session_id,
        secrets["token"],
        "business_registration",
        files.pdf("Certificate"),
        "application/pdf",
    )
    missing = await anonymous.post(f"/verify/{session_id}", data={**secrets, "outcome": "ACTIVE"})
    assert missing.status_code == 422
    assert field_error(missing.text, "registrationNumber") == "required"
    assert field_error(missing.text, "addressLine1") == "required"
    done = await anonymous.post(
        f"/verify/{session_id}",
        data={
            **secrets,
            "legalName": "Engine Holdings plc",
            "registrationNumber": "HX998877",
            "incorporationCountry": "gb",
            "addressLine1": "2 Engine Row",
            "city": "London",
            "country": "GB",
            "outcome": "ACTIVE",
        },
    )
    assert done.status_code == 303, done.text
    saved = await tenant.client.get(
        f"/v1/customers/{business['id']}/associated-entities/{holding.json()['id']}"
    )
    assert saved.json()["verificationStatus"] == "VERIFIED"
    assert saved.json()["registrationNumber"] == "HX998877"
    assert saved.json()["incorporationCountry"] == "GB"
