"""`install_console(app)`: the console's pages, its static files, and `/` leading to it."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, FastAPI, Response
from fastapi.responses import RedirectResponse

from corridor.console.pages import (
    access,
    admin,
    assistant,
    confirmations,
    customers,
    decisions,
    home,
    reconciliation,
    testmode,
    transfers,
)
from corridor.console.routing import CONSOLE_PREFIX
from corridor.kit.errors import NotFound

STATIC_DIRECTORY = Path(__file__).resolve().parent / "static"
STATIC_FILES = {
    "htmx.min.js": "text/javascript",
    "console.js": "text/javascript",
    "console.css": "text/css",
}
static_cache_s = 300

# Every page module's router, in the order their routes are matched.
PAGES = [
    access.router,
    home.router,
    transfers.router,
    decisions.router,
    confirmations.router,
    reconciliation.router,
    customers.router,
    assistant.router,
    testmode.router,
    *admin.ROUTERS,
]


def _static_router() -> APIRouter:
    router = APIRouter(include_in_schema=False)

    @router.get(CONSOLE_PREFIX + "/static/{name}")
    async def static_file(name: str) -> Response:
        if name not in STATIC_FILES:
            raise NotFound("file", name)
        return Response(
            (STATIC_DIRECTORY / name).read_bytes(),
            media_type=STATIC_FILES[name],
            headers={
                "X-Content-Type-Options": "nosniff",
                "Cache-Control": f"public, max-age={static_cache_s}",
            },
        )

    @router.get("/")
    async def root() -> RedirectResponse:
        return RedirectResponse(CONSOLE_PREFIX, status_code=307)

    return router


def install_console(app: FastAPI) -> None:
    app.include_router(_static_router())
    for router in PAGES:
        app.include_router(router)
