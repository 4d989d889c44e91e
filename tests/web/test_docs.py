"""/docs (Swagger UI) and /redoc (ReDoc) work on a machine without internet: the pages
and every asset they load come from Corridor itself, and they render the API in a real
browser whose requests to any other host are refused."""

from __future__ import annotations

import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import httpx
import pytest

from tests.browser import chromium, offline_page
from tests.live_server import LiveServer, live_corridor
from tests.programs import needs

render_timeout_ms = 60_000
documentation_pages = ("/docs", "/redoc")


@pytest.fixture(scope="module")
def live(tmp_path_factory) -> Iterator[LiveServer]:
    # The pages read no data: one backend is enough.
    with live_corridor("sqlite", tmp_path_factory.mktemp("docs")) as server:
        yield server


@pytest.fixture(scope="module")
def operations_count(live) -> int:
    spec = httpx.get(f"{live.base_url}/openapi.json", timeout=60).json()
    return sum(len(operations) for operations in spec["paths"].values())


class _References(HTMLParser):
    """Every URL an HTML page names, and the text of its inline scripts."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self.inline_scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        values = dict(attrs)
        for name in ("src", "href", "spec-url", "data-openapi-url", "action", "poster"):
            if values.get(name):
                self.urls.append(values[name])
        if tag == "script":
            self._in_script = True
            if not values.get("src"):
                self.inline_scripts.append("")
        if any(name.startswith("on") for name in values):
            self.inline_scripts.append(f"<{tag}> event handler attribute")

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False

    def handle_data(self, data):
        if self._in_script and data.strip():
            self.inline_scripts.append(data)


def _css_urls(stylesheet: str) -> list[str]:
    quoted = re.findall(r"""url\(\s*(["']?)(.*?)\1\s*\)""", stylesheet)
    imported = re.findall(r"""@import\s+["']([^"']+)["']""", stylesheet)
    return [url for _, url in quoted] + imported


@pytest.mark.parametrize("page", documentation_pages)
def test_page_and_every_asset_it_loads_are_served_by_corridor(live, page):
    response = httpx.get(f"{live.base_url}{page}")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert "http://" not in response.text and "https://" not in response.text
    references = _References()
    references.feed(response.text)
    assert references.inline_scripts == [], "a Content-Security-Policy would block these"
    assert "/openapi.json" in references.urls
    assets = [url for url in references.urls if url != "/openapi.json"]
    assert any(url.endswith(".js") for url in assets)
    for url in assets:
        assert url.startswith("/") and not url.startswith("//"), url
        asset = httpx.get(f"{live.base_url}{url}")
        assert asset.status_code == 200, url
        assert asset.content, url
        if url.endswith(".css"):
            assert asset.headers["content-type"].startswith("text/css")
            for inner in _css_urls(asset.text):
                assert inner.startswith("data:") or not re.match(r"^([a-z]+:)?//", inner), inner
        if url.endswith(".js"):
            assert "javascript" in asset.headers["content-type"]


@needs("chromium")
def test_swagger_ui_renders_every_tag_offline_and_opens_one(live, tmp_path: Path):
    """Swagger UI starts with its tags folded (docExpansion none: with every tag open at
    load, it gets no further than the fourth; docs/decisions.md); every tag is listed, and
    a tag opens to its
    operations, an operation to its response example. ReDoc, below, shows every one."""
    spec = httpx.get(f"{live.base_url}/openapi.json", timeout=60).json()
    tags = {operation["tags"][0] for path in spec["paths"].values() for operation in path.values()}
    transfers = sum(
        operation["tags"][0] == "Transfers"
        for path in spec["paths"].values()
        for operation in path.values()
    )
    with chromium() as browser, offline_page(browser, live.base_url) as offline:
        page = offline.page
        page.goto(f"{live.base_url}/docs")
        page.wait_for_function(
            f"document.querySelectorAll('.opblock-tag').length >= {len(tags)}",
            timeout=render_timeout_ms,
        )
        assert page.locator(".opblock-tag").count() == len(tags)
        assert page.locator(".info .title").inner_text().startswith("Corridor")
        page.locator("[data-tag='Transfers']").first.click()
        page.wait_for_function(
            f"document.querySelectorAll('.opblock').length >= {transfers}",
            timeout=render_timeout_ms,
        )
        assert page.locator(".opblock").count() == transfers
        assert page.locator(".opblock-summary-path", has_text="/v1/transfers").first.is_visible()
        page.locator(".opblock-post .opblock-summary-control").first.click()
        page.wait_for_selector(".opblock-body .responses-table", timeout=render_timeout_ms)
        page.screenshot(path=str(tmp_path / "swagger-ui.png"))
        assert offline.refused_urls == []
        assert offline.errors == []


@needs("chromium")
def test_redoc_renders_every_operation_offline(live, operations_count, tmp_path: Path):
    with chromium() as browser, offline_page(browser, live.base_url) as offline:
        page = offline.page
        page.goto(f"{live.base_url}/redoc")
        operations = page.locator("[data-section-id^='operation/']")
        page.wait_for_function(
            "document.querySelectorAll(\"[data-section-id^='operation/']\").length"
            f" >= {operations_count}",
            timeout=render_timeout_ms,
        )
        assert operations.count() == operations_count
        assert page.get_by_role("heading", name="Corridor").first.is_visible()
        page.screenshot(path=str(tmp_path / "redoc.png"))
        assert offline.refused_urls == []
        assert offline.errors == []
