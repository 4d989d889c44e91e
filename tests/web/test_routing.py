"""The route index (web/routing.py) picks the route FastAPI's own walk picks, for every
operation of the app, and answers what the walk answers where it has no match."""

from __future__ import annotations

import re

import pytest
from fastapi.routing import iter_route_contexts
from starlette.routing import Match, Mount

from corridor.web.routing import RouteIndex

PARAMETER = re.compile(r"\{[^}]+\}")


def _first_full(routes, scope):
    for route in routes:
        match, _ = route.matches(dict(scope))
        if match == Match.FULL:
            return route
    return None


def _scope(path: str, method: str) -> dict:
    return {
        "type": "http",
        "method": method,
        "path": path,
        "root_path": "",
        "headers": [],
        "query_string": b"",
    }


async def test_the_index_is_what_the_router_dispatches_through(app):
    assert isinstance(app.router.middleware_stack, RouteIndex)


async def test_every_operation_is_found_as_the_walk_finds_it(app):
    index: RouteIndex = app.router.middleware_stack
    checked = 0
    for context in iter_route_contexts(app.router.routes):
        path = context.path
        if not isinstance(path, str):
            continue
        if isinstance(context.original_route, Mount):  # static files: one inside it
            path += "/file.js"
        for method in sorted(getattr(context.original_route, "methods", None) or {"GET"}):
            scope = _scope(PARAMETER.sub("x1", path), method)
            walked = _first_full(app.router.routes, scope)
            assert walked is not None, (method, path)
            assert _first_full(index.candidates(scope), scope) is walked, (method, path)
            checked += 1
    assert checked > 150  # every operation of the API, the console's and the docs'


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("GET", "/v1/no-such-thing", 404),
        ("GET", "/nothing-here", 404),
        ("DELETE", "/v1/health", 405),
    ],
)
async def test_what_the_index_does_not_match_is_answered_by_the_walk(
    anonymous, method, path, status
):
    response = await anonymous.request(method, path)
    assert response.status_code == status
    assert response.json()["code"] in {"not_found", "method_not_allowed"}
