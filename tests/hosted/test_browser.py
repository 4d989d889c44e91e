"""The hosted verification page in a real browser (headless Chromium through Playwright,
Debian's /usr/bin/chromium): a customer opens the link, sees what is required, fills the
form, accepts the terms of service, uploads an identity document through a signed upload
URL, picks the sandbox outcome and submits; a business adds and removes its owners, and an
owner completes their own link. Skipped, saying why, where no browser can be started."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
from playwright import async_api

from tests.conftest import BACKENDS
from tests.documents import files
from tests.live_server import LiveServer, live_corridor
from tests.programs import needs, require

# Where the screenshots of the pages are kept (to look at after a run; docs/hosted has
# the ones the README shows: CORRIDOR_TEST_SCREENSHOTS=docs/hosted).
SCREENSHOTS = Path(os.environ.get("CORRIDOR_TEST_SCREENSHOTS", "/tmp"))
SCREENSHOT = SCREENSHOTS / "verify-page.png"

pytestmark = needs("chromium")


@pytest.fixture(scope="module", params=BACKENDS)
def live(request, tmp_path_factory) -> Iterator[LiveServer]:
    directory = tmp_path_factory.mktemp("hosted")
    settings = {"CORRIDOR_DOCUMENTS_DIRECTORY": str(directory / "files")}
    with live_corridor(request.param, directory, settings=settings) as server:
        yield server


@pytest.fixture
async def browser() -> AsyncIterator:
    chromium = require("chromium")["chromium"]
    async with async_api.async_playwright() as playwright:
        launched = await playwright.chromium.launch(
            executable_path=chromium, headless=True, args=["--no-sandbox"]
        )
        try:
            yield launched
        finally:
            await launched.close()


def _api(live: LiveServer) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        base_url=live.base_url, headers={"Authorization": f"Bearer {live.api_key}"}
    )


async def _customer_and_link(api: httpx.AsyncClient) -> tuple[str, str]:
    """An individual who has not accepted the terms of service yet (the page asks)."""
    created = await api.post(
        "/v1/customers/individual",
        json={"firstName": "Ada", "lastName": "Byron", "email": "ada@byron.test"},
    )
    assert created.status_code == 201, created.text
    customer_id = created.json()["id"]
    started = await api.post(f"/v1/customers/{customer_id}/verification-sessions")
    assert started.status_code == 201, started.text
    return customer_id, started.json()["url"]


async def test_a_customer_verifies_in_the_browser(live, browser):
    async with _api(live) as api:
        customer_id, url = await _customer_and_link(api)
        page = await browser.new_page(viewport={"width": 900, "height": 1200})
        problems: list[str] = []
        page.on(
            "console",
            lambda message: problems.append(message.text) if message.type == "error" else None,
        )
        page.on("pageerror", lambda error: problems.append(str(error)))

        await page.goto(url)
        assert await page.title() == "Verify Ada Byron for Sandbox organization"
        required = await page.locator("section.required").inner_text()
        assert "Identity document" in required and "Front of your ID document" in required

        await page.fill("input[name=dateOfBirth]", "1990-12-10")
        await page.fill("input[name=nationality]", "GB")
        await page.fill("input[name=taxIdentificationNumber]", "123-45-6789")
        await page.select_option("select[name=idDocumentType]", "PASSPORT")
        await page.fill("input[name=idDocumentIssuingCountry]", "GB")
        await page.fill("input[name=idDocumentNumber]", "X1234567")
        await page.fill("input[name=addressLine1]", "12 St James's Square")
        await page.fill("input[name=city]", "London")
        await page.fill("input[name=postalCode]", "SW1Y 4LB")
        await page.fill("input[name=country]", "GB")
        await page.set_input_files(
            "#file-id_front",
            files=[
                {
                    "name": "passport.pdf",
                    "mimeType": "application/pdf",
                    "buffer": files.pdf("Passport"),
                }
            ],
        )
        status = page.locator('[data-status-for="id_front"]')
        await status.filter(has_text="Uploaded: passport.pdf").wait_for()
        await page.set_input_files(
            "#file-id_back",
            files=[{"name": "notes.txt", "mimeType": "text/plain", "buffer": b"not an image"}],
        )
        await page.locator('[data-status-for="id_back"]').filter(has_text="not accepted").wait_for()
        await page.check("input[name=outcome][value=ACTIVE]")
        # The terms open beside the page, from the checkbox's link.
        async with page.context.expect_page() as opened:
            await page.get_by_role("link", name="terms of service").click()
        terms = await opened.value
        await terms.get_by_test_id("title").filter(has_text="Terms of service").wait_for()
        await terms.screenshot(path=str(SCREENSHOTS / "terms.png"), full_page=True)
        await terms.close()
        await page.check("input[name=termsAccepted]")
        assert await _unlabelled(page) == []
        await page.screenshot(path=str(SCREENSHOT), full_page=True)

        await page.click("#submit")
        await page.get_by_test_id("message").filter(has_text="approved").wait_for()
        assert await page.get_by_test_id("title").inner_text() == "Thank you"
        assert [problem for problem in problems if "Content Security Policy" in problem] == []

        customer = (await api.get(f"/v1/customers/{customer_id}")).json()
        assert customer["status"] == "ACTIVE"
        assert customer["address"]["city"] == "London" and customer["nationality"] == "GB"
        assert customer["tosAcceptanceId"].startswith("tos_")
        requirements = await api.get(f"/v1/customers/{customer_id}/compliance-requirements")
        assert requirements.json()["satisfied"] is True
        documents = (await api.get("/v1/documents", params={"customerId": customer_id})).json()
        uploaded = [
            (d["purpose"], d["status"], d["fileName"])
            for d in documents["data"]
            if d["status"] == "UPLOADED"
        ]
        assert uploaded == [("id_front", "UPLOADED", "passport.pdf")]


async def test_a_tampered_link_shows_a_page_that_says_so(live, browser):
    async with _api(live) as api:
        _, url = await _customer_and_link(api)
    page = await browser.new_page()
    await page.goto(url[:-3] + "abc")
    assert await page.get_by_test_id("title").inner_text() == "This link is not valid"
    assert "Ada" not in await page.content()


# Every control a person uses has a label (or, for a button, its text or aria-label).
_UNLABELLED = """() => [...document.querySelectorAll(
    'input:not([type=hidden]), select, textarea, button')]
  .filter((e) => e.tagName === 'BUTTON'
      ? !(e.textContent.trim() || e.getAttribute('aria-label'))
      : e.labels.length === 0)
  .map((e) => e.outerHTML)"""


async def _unlabelled(page) -> list[str]:
    return await page.evaluate(_UNLABELLED)


def _watch(page) -> list[str]:
    problems: list[str] = []
    page.on(
        "console",
        lambda message: problems.append(message.text) if message.type == "error" else None,
    )
    page.on("pageerror", lambda error: problems.append(str(error)))
    return problems


async def _requirement(page, code: str) -> str:
    return await page.locator(f'[data-requirement="{code}"]').get_attribute("data-satisfied")


async def _add_owner(page, fields: dict[str, str], roles: list[str]) -> None:
    for name, value in fields.items():
        await page.fill(f"#owner-{name}", value)
    for role in roles:
        await page.check(f"#owner-role-{role}")
    await page.click("#add-owner-submit")


async def test_a_business_adds_its_owners_and_an_owner_verifies(live, browser):
    async with _api(live) as api:
        created = await api.post(
            "/v1/customers/business",
            json={"legalName": "Difference Engines Ltd", "email": "ops@engines.test"},
        )
        assert created.status_code == 201, created.text
        business_id = created.json()["id"]
        started = await api.post(f"/v1/customers/{business_id}/verification-sessions")
        page = await browser.new_page(viewport={"width": 900, "height": 1200})
        problems = _watch(page)

        await page.goto(started.json()["url"])
        assert await page.title() == "Verify Difference Engines Ltd for Sandbox organization"
        await page.get_by_test_id("no-owners").wait_for()
        assert await _requirement(page, "beneficial_owner_or_control_person") == "no"
        assert await _unlabelled(page) == []

        # A mistake the browser lets through: the API's answer shows beside the field.
        await _add_owner(
            page,
            {"firstName": "Charles", "lastName": "Babbage", "ownershipPercentage": "150"},
            ["BENEFICIAL_OWNER"],
        )
        error = page.locator('[data-error-for="ownershipPercentage"]')
        await error.wait_for()
        assert "at most 100" in await error.inner_text()
        assert await page.input_value("#owner-firstName") == "Charles"
        assert await page.locator("#owner-ownershipPercentage").get_attribute("aria-invalid") == (
            "true"
        )
        await page.locator("#owners").screenshot(path=str(SCREENSHOTS / "owner-errors.png"))

        await page.fill("#owner-ownershipPercentage", "60")
        await page.fill("#owner-dateOfBirth", "1971-12-26")
        await page.fill("#owner-nationality", "GB")
        await page.fill("#owner-email", "charles@engines.test")
        await page.click("#add-owner-submit")
        await page.locator("tr[data-owner]").filter(has_text="Charles Babbage").wait_for()
        await _add_owner(page, {"firstName": "Ada", "lastName": "Lovelace"}, ["DIRECTOR"])
        await page.locator("tr[data-owner]").filter(has_text="Ada Lovelace").wait_for()
        await page.get_by_role("button", name="Remove Ada Lovelace").click()
        await page.locator("tr[data-owner]").first.wait_for()
        assert await page.locator("tr[data-owner]").count() == 1
        assert await _requirement(page, "beneficial_owner_or_control_person") == "yes"
        owner_id = await page.locator("tr[data-owner]").get_attribute("data-owner")

        await page.fill("#field-registrationNumber", "C1234567")
        await page.fill("#field-incorporationCountry", "GB")
        await page.fill("#field-addressLine1", "1 Engine Row")
        await page.fill("#field-city", "London")
        await page.fill("#field-country", "GB")
        await page.set_input_files(
            "#file-business_registration",
            files=[
                {
                    "name": "certificate.pdf",
                    "mimeType": "application/pdf",
                    "buffer": files.pdf("Certificate of incorporation"),
                }
            ],
        )
        status = page.locator('[data-status-for="business_registration"]')
        await status.filter(has_text="Uploaded: certificate.pdf").wait_for()
        await page.check("input[name=termsAccepted]")
        await page.check("input[name=outcome][value=ACTIVE]")
        assert await _unlabelled(page) == []
        await page.screenshot(path=str(SCREENSHOTS / "business-page.png"), full_page=True)
        await page.click("#submit")
        await page.get_by_test_id("message").filter(has_text="approved").wait_for()

        business = (await api.get(f"/v1/customers/{business_id}")).json()
        assert business["status"] == "ACTIVE" and business["tosAcceptanceId"]
        requirements = await api.get(f"/v1/customers/{business_id}/compliance-requirements")
        assert requirements.json()["satisfied"] is True

        # The owner's own link: their details and their identity document.
        expanded = await api.get(
            f"/v1/customers/{business_id}", params={"expand": "associatedEntities"}
        )
        assert [e["id"] for e in expanded.json()["associatedEntities"]] == [owner_id]
        link = await api.post(
            f"/v1/customers/{business_id}/associated-entities/{owner_id}/verification-link"
        )
        assert link.status_code == 201, link.text
        await page.goto(link.json()["url"])
        assert await page.title() == "Verify Charles Babbage for Sandbox organization"
        assert await page.input_value("#field-firstName") == "Charles"
        assert await page.input_value("#field-dateOfBirth") == "1971-12-26"
        assert await page.locator("input[name=termsAccepted]").count() == 0
        await page.fill("#field-taxIdentificationNumber", "AB123456C")
        await page.fill("#field-addressLine1", "1 Dorset Street")
        await page.fill("#field-city", "London")
        await page.fill("#field-country", "GB")
        await page.set_input_files(
            "#file-id_front",
            files=[{"name": "passport.png", "mimeType": "image/png", "buffer": files.png()}],
        )
        await (
            page.locator('[data-status-for="id_front"]')
            .filter(has_text="Uploaded: passport.png")
            .wait_for()
        )
        await page.check("input[name=outcome][value=ACTIVE]")
        assert await _unlabelled(page) == []
        await page.screenshot(path=str(SCREENSHOTS / "owner-page.png"), full_page=True)
        await page.click("#submit")
        await page.get_by_test_id("title").filter(has_text="Thank you").wait_for()
        owner = (
            await api.get(f"/v1/customers/{business_id}/associated-entities/{owner_id}")
        ).json()
        assert owner["verificationStatus"] == "VERIFIED"
        assert owner["taxIdentificationNumberLast4"] == "456C"
        assert owner["address"]["city"] == "London"
        assert [problem for problem in problems if "Content Security Policy" in problem] == []
        # Nothing else went wrong: the owner's form sent back with its problems is a 422.
        assert [p for p in problems if not p.endswith("422 (Unprocessable Entity)")] == []


async def test_a_customer_answers_a_request_for_information(live, browser):
    async with _api(live) as api:
        customer_id, _ = await _customer_and_link(api)
        acceptance = (await api.post("/v1/terms-of-service/acceptances")).json()["id"]
        await api.post(f"/v1/terms-of-service/acceptances/{acceptance}/accept")
        details = {
            "tosAcceptanceId": acceptance,
            "address": {"addressLine1": "1 Main St", "city": "Austin", "country": "US"},
        }
        assert (await api.patch(f"/v1/customers/{customer_id}", json=details)).status_code == 200
        saved = await api.put(
            f"/v1/customers/{customer_id}/individual-verification",
            json={"dateOfBirth": "1990-12-10", "taxIdentificationNumber": "123-45-6789"},
        )
        assert saved.status_code in (200, 201), saved.text
        asked = await api.post(
            f"/v1/sandbox/customers/{customer_id}/verification-status",
            json={"status": "RFI_PENDING"},
        )
        assert asked.status_code == 200, asked.text
        started = await api.post(f"/v1/customers/{customer_id}/verification-sessions")
        page = await browser.new_page(viewport={"width": 900, "height": 1200})
        problems = _watch(page)
        await page.goto(started.json()["url"])
        await page.locator("[data-rfi-step=personal]").wait_for()
        assert await page.locator("input[name=termsAccepted]").count() == 0
        await page.select_option("select[name=idDocumentType]", "PASSPORT")
        await page.fill("#field-idDocumentIssuingCountry", "US")
        await page.fill("#field-idDocumentNumber", "X1234567")
        await page.fill('[name="rfi.personal.occupation"]', "Mathematician")
        await page.fill('[name="rfi.personal.sourceOfFunds"]', "Salary")
        await page.fill('[name="rfi.activity.expectedMonthlyVolume"]', "5000")
        await page.fill('[name="rfi.activity.purposeOfAccount"]', "Paying suppliers")
        await page.check('[name="rfi.attestation.confirmed"]')
        await page.set_input_files(
            "#file-id_front",
            files=[{"name": "id.pdf", "mimeType": "application/pdf", "buffer": files.pdf("ID")}],
        )
        await (
            page.locator('[data-status-for="id_front"]')
            .filter(has_text="Uploaded: id.pdf")
            .wait_for()
        )
        await page.check("input[name=outcome][value=UNDER_REVIEW]")
        assert await _unlabelled(page) == []
        await page.screenshot(path=str(SCREENSHOTS / "rfi-page.png"), full_page=True)
        await page.click("#submit")
        await page.get_by_test_id("message").filter(has_text="under review").wait_for()
        customer = (await api.get(f"/v1/customers/{customer_id}")).json()
        assert customer["status"] == "UNDER_REVIEW"
        pending = await api.get(f"/v1/customers/{customer_id}/pending-enhanced-diligence-rfi")
        assert pending.status_code == 404
        assert problems == []
