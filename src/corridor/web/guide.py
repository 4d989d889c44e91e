"""/guide: the guide, the docs site MkDocs builds from docs/ (`make docs`, into `site/`),
served as static files by the API process. Built, not rendered here: serving it costs the
app's start nothing. Until it is built, /guide answers a page saying how to build it.

The site names no other host (mkdocs.yml: no web fonts; search runs in the browser on the
site's own index), so it works on a machine without internet."""

from __future__ import annotations

from html import escape
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import HTMLResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles
from starlette.types import Receive, Scope, Send

guide_path = "/guide"
# The checkout's root, where mkdocs.yml and the built site/ are (an editable install).
_checkout = Path(__file__).resolve().parents[3]


def default_guide_directory() -> Path:
    """`site/` of the checkout Corridor runs from, or of the working directory."""
    if (_checkout / "mkdocs.yml").is_file():
        return _checkout / "site"
    return Path.cwd() / "site"


def not_built_page(directory: Path) -> str:
    return f"""<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>The guide is not built</title></head>
<body>
<h1>The guide is not built yet</h1>
<p>Build it from the checkout with <code>make docs</code> (MkDocs, offline, into
<code>{escape(str(directory))}</code>), then reload this page. <code>make serve</code>
builds it before serving. The API reference is at <a href="/docs">/docs</a>.</p>
</body>
</html>
"""


class Guide:
    """The built site's files; until its index.html exists, a 404 page saying how to build it
    (checked on each request, so a site built after the server started is served)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.files = StaticFiles(directory=directory, html=True, check_dir=False)

    def built(self) -> bool:
        return (self.directory / "index.html").is_file()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not self.built():
            response = HTMLResponse(not_built_page(self.directory), status_code=404)
            await response(scope, receive, send)
            return
        await self.files(scope, receive, send)


def install_guide(app: FastAPI, directory: Path | None) -> None:
    guide = Guide(directory or default_guide_directory())
    app.state.guide = guide

    @app.get(guide_path, include_in_schema=False)
    async def guide_root() -> RedirectResponse:
        return RedirectResponse(f"{guide_path}/", status_code=307)

    app.mount(guide_path, guide, name="guide")
