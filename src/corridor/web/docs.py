"""The API reference pages, /docs (Swagger UI) and /redoc (ReDoc), served with their assets
from inside the package so they work on a machine without internet.

The pages hold no inline script (a Content-Security-Policy of `script-src 'self'` allows
them) and name no other host: static/docs/README.md says where each asset comes from."""

from __future__ import annotations

from html import escape
from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

assets_directory = Path(__file__).parent / "static" / "docs"
assets_path = "/docs/assets"


def _page(*, title: str, head: str, body: str) -> str:
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}</title>
<link rel="icon" type="image/png" href="{assets_path}/favicon-32x32.png">
{head}
</head>
<body>
{body}
</body>
</html>
"""


def swagger_ui_page(*, title: str, openapi_url: str) -> str:
    return _page(
        title=f"{title} API reference",
        head=f'<link rel="stylesheet" href="{assets_path}/swagger-ui.css">',
        body=(
            f'<div id="swagger-ui" data-openapi-url="{escape(openapi_url)}"></div>\n'
            f'<script src="{assets_path}/swagger-ui-bundle.js"></script>\n'
            f'<script src="{assets_path}/swagger-init.js"></script>'
        ),
    )


def redoc_page(*, title: str, openapi_url: str) -> str:
    return _page(
        title=f"{title} API reference",
        head=f'<link rel="stylesheet" href="{assets_path}/redoc.css">',
        body=(
            f'<redoc spec-url="{escape(openapi_url)}"></redoc>\n'
            f'<script src="{assets_path}/redoc.standalone.js"></script>'
        ),
    )


def install_docs(app: FastAPI) -> None:
    """Add /docs, /redoc and their assets to an app made with docs_url=None, redoc_url=None."""
    openapi_url = app.openapi_url or "/openapi.json"
    swagger_html = swagger_ui_page(title=app.title, openapi_url=openapi_url)
    redoc_html = redoc_page(title=app.title, openapi_url=openapi_url)
    router = APIRouter(include_in_schema=False)

    @router.get("/docs")
    async def swagger_ui() -> HTMLResponse:
        return HTMLResponse(swagger_html)

    @router.get("/redoc")
    async def redoc() -> HTMLResponse:
        return HTMLResponse(redoc_html)

    app.include_router(router)
    app.mount(assets_path, StaticFiles(directory=assets_directory), name="docs-assets")
