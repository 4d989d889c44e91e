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

from starlette.routing import BaseRoute
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from corridor.kit import metrics

UNMATCHED = "unmatched"
CLIENT_LEFT = 499
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


class RequestMetrics:
    def __init__(self, app: ASGIApp, *, routes: list[BaseRoute]) -> None:
        self.app = app
        self._routes = routes
        self._static: frozenset[str] | None = None

    def _static_paths(self) -> frozenset[str]:
        """The routes' paths that have no parameters (read once the app is complete)."""
        if self._static is None:
            paths = (getattr(route, "path", None) for route in self._routes)
            self._static = frozenset(p for p in paths if isinstance(p, str) and "{" not in p)
        return self._static

    def _route_of(self, scope: Scope) -> str:
        route: Any = scope.get("route")
        path = getattr(route, "path", None)
        if isinstance(path, str):
            return path
        if scope["path"] in self._static_paths():
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
