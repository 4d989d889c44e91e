"""The hosted verification page in a real browser (headless Chromium through Playwright,
Debian's /usr/bin/chromium): a customer opens the link, sees what is required, fills the
form, uploads an identity document through a signed upload URL, picks the sandbox outcome
and submits. Skipped, saying why, where no browser can be started."""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import BACKENDS
from tests.documents import files
from tests.live_server import LiveServer, live_corridor

CHROMIUM = os.environ.get("CORRIDOR_TEST_CHROMIUM", "/usr/bin/chromium")
# Where the screenshot of the filled page is kept (to look at after a run).
SCREENSHOT = Path(os.environ.get("CORRIDOR_TEST_SCREENSHOTS", "/tmp")) / "verify-page.png"
# .ci/run sets it: in CI a missing browser is a failure, never a skip.
BROWSER_REQUIRED = os.environ.get("CORRIDOR_TEST_BROWSER_REQUIRED") == "1"


def _no_browser(reason: str) -> None:
    if BROWSER_REQUIRED:
        pytest.fail(reason, pytrace=False)
    pytest.skip(reason, allow_module_level=True)


try:
    from playwright import async_api
except ImportError:
    _no_browser(
        "Playwright's Python package is not installed (it is in the dev extras: make install)"
    )
if shutil.which(CHROMIUM) is None:
    _no_browser(
        f"no Chromium at {CHROMIUM} (apt-get install chromium, or set CORRIDOR_TEST_CHROMIUM)"
    )


@pytest.fixture(scope="module", params=BACKENDS)
def live(request, tmp_path_factory) -> Iterator[LiveServer]:
    directory = tmp_path_factory.mktemp("hosted")
    settings = {"CORRIDOR_DOCUMENTS_DIRECTORY": str(directory / "files")}
    with live_corridor(request.param, directory, settings=settings) as server:
        yield server


@pytest.fixture
async def browser() -> AsyncIterator:
    async with async_api.async_playwright() as playwright:
        launched = await playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox"]
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
    acceptance = (await api.post("/v1/terms-of-service/acceptances")).json()["id"]
    await api.post(f"/v1/terms-of-service/acceptances/{acceptance}/accept")
    created = await api.post(
        "/v1/customers/individual",
        json={
            "firstName": "Ada",
            "lastName": "Byron",
            "email": "ada@byron.test",
            "tosAcceptanceId": acceptance,
        },
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
        await page.screenshot(path=str(SCREENSHOT), full_page=True)

        await page.click("#submit")
        await page.get_by_test_id("message").filter(has_text="approved").wait_for()
        assert await page.get_by_test_id("title").inner_text() == "Thank you"
        assert [problem for problem in problems if "Content Security Policy" in problem] == []

        customer = (await api.get(f"/v1/customers/{customer_id}")).json()
        assert customer["status"] == "ACTIVE"
        assert customer["address"]["city"] == "London" and customer["nationality"] == "GB"
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
