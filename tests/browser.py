"""Headless Chromium for tests of pages people look at: Debian's /usr/bin/chromium driven
by Playwright (which cannot download its own browsers here), with every request to a host
other than the server under test refused and recorded. A test module using it says
`pytestmark = needs("chromium")` (tests/programs.py: skipped where Chromium is missing,
failed under CORRIDOR_TEST_REQUIRE_ALL=1)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from playwright.sync_api import Browser, Page, Route, sync_playwright

from tests.programs import require


@contextlib.contextmanager
def chromium() -> Iterator[Browser]:
    chromium_path = require("chromium")["chromium"]
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path)
        try:
            yield browser
        finally:
            browser.close()


@dataclass
class OfflinePage:
    page: Page
    # Requests the page tried to send anywhere but the server under test (all refused).
    refused_urls: list[str] = field(default_factory=list)
    # Uncaught JavaScript errors and console errors.
    errors: list[str] = field(default_factory=list)


@contextlib.contextmanager
def offline_page(browser: Browser, base_url: str) -> Iterator[OfflinePage]:
    """A page that may reach only `base_url`'s host and port: as on a machine without
    internet, other requests fail, and are listed in `refused_urls`."""
    allowed = urlsplit(base_url).netloc
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    offline = OfflinePage(page)

    def route(route: Route) -> None:
        address = urlsplit(route.request.url)
        if address.scheme in ("data", "blob") or address.netloc == allowed:
            route.continue_()
        else:
            offline.refused_urls.append(route.request.url)
            route.abort("internetdisconnected")

    page.route("**/*", route)
    page.on("pageerror", lambda error: offline.errors.append(f"page error: {error}"))
    page.on(
        "console",
        lambda message: (
            offline.errors.append(f"console: {message.text}") if message.type == "error" else None
        ),
    )
    try:
        yield offline
    finally:
        context.close()
