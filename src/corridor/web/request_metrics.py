"""Request metrics: a pure ASGI layer, outside every other of the app's, that counts each
answer by method, route template and status, and times it (`corridor_http_…`).

The route is the template the router matched (`/v1/transfers/{transfer_id}`, never the
id in the path), read from the scope once the app has answered. A request the router
never saw (answered in front of it: the express create+submit, a 413, a 414) is labelled
with its path when that path is a route without parameters, else `unmatched`; so is a
404 for an unknown path. Methods outside the usual few are `OTHER`.
"""

from __future__ import annotations

import time
from typing import Any

from fastapi.routing import iter_route_contexts
from starlette.routing import BaseRoute
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from corridor.kit import metrics

UNMATCHED = "unmatched"
CLIENT_LEFT = 499
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


class _RouteIndex:
    """Each route's full template (an included router's prefix with it), by the route the
    router puts in the scope; and the templates without parameters."""

    def __init__(self, routes: list[BaseRoute]) -> None:
        self.templates: dict[int, str] = {}
        for route, path in _routes_with_paths(routes):
            self.templates.setdefault(id(route), path)
        self.static = frozenset(path for path in self.templates.values() if "{" not in path)


def _routes_with_paths(routes: list[BaseRoute]) -> list[tuple[Any, str]]:
    """(route, full path) of every route, those of included routers too."""
    return [
        (context.original_route, context.path)
        for context in iter_route_contexts(routes)
        if isinstance(context.path, str)
    ]


class RequestMetrics:
    def __init__(self, app: ASGIApp, *, routes: list[BaseRoute]) -> None:
        self.app = app
        self._routes = routes
        self._index: _RouteIndex | None = None

    def _route_of(self, scope: Scope) -> str:
        if self._index is None:  # once the app is complete: at its first request
            self._index = _RouteIndex(self._routes)
        route: Any = scope.get("route")
        if route is not None:
            template = self._index.templates.get(id(route))
            if template is not None:
                return template
        if scope["path"] in self._index.static:
            return scope["path"]
        return UNMATCHED

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        # Until an answer starts: 499 (nginx's word for a client that left first), or 500
        # when the app raised (the server's last-resort answer).
        status = CLIENT_LEFT
        in_progress = metrics.HTTP_IN_PROGRESS
        in_progress.inc()

        async def send_noting_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_noting_status)
        except BaseException:
            if status == CLIENT_LEFT:
                status = 500
            raise
        finally:
            in_progress.dec()
            method = scope["method"] if scope["method"] in METHODS else "OTHER"
            route = self._route_of(scope)
            metrics.HTTP_REQUESTS.labels(method, route, str(status)).inc()
            metrics.HTTP_DURATION.labels(method, route).observe(time.perf_counter() - started)
