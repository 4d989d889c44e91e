"""The guide (docs/, mkdocs.yml) builds offline and strictly (a broken link or a page left
out of the navigation fails), names no other host for what a page loads, and
`corridor serve` serves it at /guide: a page saying how to build it until it is built, the
site (its index, a page, the search index) once it is, without a restart."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import httpx

from tests.docs_samples import CHECKOUT
from tests.live_server import live_corridor

build_s_max = 300


def build_guide(site: Path) -> subprocess.CompletedProcess[str]:
    """`make docs`'s MkDocs build, into `site` instead of the checkout's site/ (its catalog
    check is tests/test_docs_catalog.py's)."""
    environment = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=CHECKOUT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=build_s_max,
    )


class _Loaded(HTMLParser):
    """What a page makes the browser load: scripts, stylesheets, images, fonts, icons."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag, attrs):
        values = dict(attrs)
        if tag in {"script", "img", "iframe", "source"} and values.get("src"):
            self.urls.append(values["src"])
        if tag == "link" and values.get("href") and values.get("rel") != "canonical":
            self.urls.append(values["href"])


def _loaded(html: str) -> list[str]:
    parser = _Loaded()
    parser.feed(html)
    return parser.urls


def test_the_guide_is_built_offline_and_served_at_guide(tmp_path):
    site = tmp_path / "site"
    settings = {"CORRIDOR_GUIDE_DIRECTORY": str(site)}
    with live_corridor("sqlite", tmp_path / "server", settings=settings) as live:
        not_built = httpx.get(f"{live.base_url}/guide/", timeout=60)
        assert not_built.status_code == 404
        assert "make docs" in not_built.text

        built = build_guide(site)
        assert built.returncode == 0, built.stderr[-4000:]

        # Every page loads only the site's own files: nothing from a font or script CDN.
        pages = sorted(site.rglob("*.html"))
        assert len(pages) > 20
        for page in pages:
            outside = [url for url in _loaded(page.read_text()) if re.match(r"(https?:)?//", url)]
            assert outside == [], f"{page.relative_to(site)} loads {outside}"

        root = httpx.get(f"{live.base_url}/guide", timeout=60, follow_redirects=True)
        assert root.status_code == 200
        assert str(root.url) == f"{live.base_url}/guide/"
        assert "Corridor guide" in root.text and "Quickstarts" in root.text
        for url in _loaded(root.text):
            asset = httpx.get(httpx.URL(f"{live.base_url}/guide/").join(url), timeout=60)
            assert asset.status_code == 200, url

        events = httpx.get(f"{live.base_url}/guide/reference/events/", timeout=60)
        assert events.status_code == 200
        assert "transfer.pending" in events.text and "Ordering" in events.text
        walkthrough = httpx.get(f"{live.base_url}/guide/quickstart/curl/", timeout=60)
        assert walkthrough.status_code == 200 and "CORRIDOR_API_KEY" in walkthrough.text

        # Search runs in the browser, on the site's own index.
        index = httpx.get(f"{live.base_url}/guide/search/search_index.json", timeout=60)
        assert index.status_code == 200
        assert any("event" in doc["location"] for doc in index.json()["docs"])

        missing = httpx.get(f"{live.base_url}/guide/no-such-page/", timeout=60)
        assert missing.status_code == 404
