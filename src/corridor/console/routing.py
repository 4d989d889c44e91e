"""Routes of console pages: every refusal becomes a page, never JSON. A missing or
ended session sends the person to sign-in (htmx requests through `HX-Redirect`), any other
CorridorError is shown on the error page with its status and message."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Request, Response
from fastapi.routing import APIRoute

from corridor.console.errors import SignInRequired
from corridor.console.rendering import SECURITY_HEADERS, render
from corridor.kit.errors import CorridorError
from corridor.web.authentication import CONSOLE_SESSION_COOKIE

CONSOLE_PREFIX = "/console"
SIGN_IN_PATH = f"{CONSOLE_PREFIX}/sign-in"


def is_htmx(request: Request) -> bool:
    return request.headers.get("HX-Request") == "true"


def redirect(request: Request, location: str) -> Response:
    """303 See Other (after a form post, or to sign-in); htmx follows `HX-Redirect`."""
    if is_htmx(request):
        return Response(status_code=200, headers={**SECURITY_HEADERS, "HX-Redirect": location})
    return Response(status_code=303, headers={**SECURITY_HEADERS, "Location": location})


def local_path(candidate: str | None) -> str:
    """Where to go after sign-in: a console path of this site, never another site's URL."""
    if (
        candidate
        and candidate.startswith(CONSOLE_PREFIX)
        and not candidate.startswith("//")
        and "\\" not in candidate
    ):
        return candidate
    return CONSOLE_PREFIX


def to_sign_in(request: Request, *, expired: bool) -> Response:
    query: dict[str, str] = {}
    if request.method == "GET" and request.url.path != SIGN_IN_PATH:
        target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        query["next"] = local_path(target)
    if expired:
        query["expired"] = "1"
    location = SIGN_IN_PATH + (f"?{urlencode(query)}" if query else "")
    response = redirect(request, location)
    if expired:
        response.delete_cookie(CONSOLE_SESSION_COOKIE)
    return response


def error_page(error: CorridorError) -> Response:
    return render(
        "error.html",
        status=error.status,
        headers=error.headers,
        error=error,
        problems=error.errors or [],
    )


class ConsoleRoute(APIRoute):
    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def console_handler(request: Request) -> Response:
            try:
                return await handler(request)
            except SignInRequired as refused:
                return to_sign_in(request, expired=refused.expired)
            except CorridorError as error:
                return error_page(error)

        return console_handler


def console_router(**options: Any) -> APIRouter:
    """The router of one page module: HTML answers, kept out of the OpenAPI document."""
    return APIRouter(
        prefix=CONSOLE_PREFIX, include_in_schema=False, route_class=ConsoleRoute, **options
    )
