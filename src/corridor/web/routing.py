"""The app's routes found by an index instead of a walk (issue 24, the framework's share).

FastAPI (0.165) keeps each `include_router` as one entry of the app's routes and, for
every request, asks each of them in turn whether one of its routes matches; each asks
every route it holds, with some bookkeeping in the scope per route. With the API's forty
routers that walk costs about 2 ms of CPU per request (measured with
benchmarks/transfer_cpu.py), more than the SQL of a read.

`RouteIndex` sits where the app's router dispatches (its `middleware_stack`) and tries
only the entries that can match: those holding a path whose first two segments are the
request's (`/v1/transfers/…` tries the transfers router and no other), in the app's own
order, plus every entry whose first two segments hold a parameter (always tried). The
first full match is handled exactly as the router would handle it. Anything else (no
match, a method not allowed, a redirect for a trailing slash, a lifespan or websocket
scope) goes to the router's own walk, so answers are the same, only found sooner.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from fastapi.routing import (
    APIRouter,
    _apply_router_form_limits,
    _route_selected,
    _update_scope,
    iter_route_contexts,
)
from starlette._utils import get_route_path
from starlette.routing import BaseRoute, Match, Mount
from starlette.types import Receive, Scope, Send

Key = tuple[str, ...]


def key_of(path: str) -> Key:
    """A path's first two segments (`/v1/transfers/tfr_1` → `("v1", "transfers")`)."""
    return tuple(path.split("/")[1:3])


def _keys(route: BaseRoute) -> set[Key] | None:
    """The keys a request must have for `route` (an included router: any of its routes)
    to match it; None when a parameter, or a mount, could match any."""
    if isinstance(route, Mount):
        return None
    keys: set[Key] = set()
    for context in iter_route_contexts([route]):
        path = context.path
        if not isinstance(path, str):
            return None
        key = key_of(path)
        if any("{" in part for part in key):
            return None
        keys.add(key)
    return keys


class RouteIndex:
    """The app's router, dispatching through an index of its routes by path prefix."""

    def __init__(self, router: APIRouter) -> None:
        self.router = router
        self._built_for: list[BaseRoute] | None = None
        self._by_key: dict[Key, tuple[BaseRoute, ...]] = {}
        self._anywhere: tuple[BaseRoute, ...] = ()

    def _build(self) -> None:
        """At the first request, once every route is in (and again if the list changed)."""
        routes = list(self.router.routes)
        wanted: dict[Key, list[BaseRoute]] = defaultdict(list)
        anywhere: list[BaseRoute] = []
        keys_of = [_keys(route) for route in routes]
        every_key = {key for keys in keys_of if keys for key in keys}
        for route, keys in zip(routes, keys_of, strict=True):
            if keys is None:
                anywhere.append(route)
                for key in every_key:
                    wanted[key].append(route)
            else:
                for key in keys:
                    wanted[key].append(route)
        self._by_key = {key: tuple(found) for key, found in wanted.items()}
        self._anywhere = tuple(anywhere)
        self._built_for = routes

    def candidates(self, scope: Scope) -> Iterable[BaseRoute]:
        if self._built_for is None or len(self._built_for) != len(self.router.routes):
            self._build()
        return self._by_key.get(key_of(get_route_path(scope)), self._anywhere)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            for route in self.candidates(scope):
                match, child_scope = route.matches(scope)
                if match == Match.FULL:
                    router = self.router
                    _apply_router_form_limits(scope, router.form_limits)
                    scope.setdefault("router", router)
                    _update_scope(scope, child_scope)
                    _route_selected(
                        scope=scope,
                        path=getattr(route, "path_format", None),
                        mount=isinstance(route, Mount),
                    )
                    await route.handle(scope, receive, send)
                    return
        await self.router.app(scope, receive, send)


def install_route_index(router: APIRouter) -> RouteIndex | None:
    """Dispatch `router`'s requests through an index; not when the router has middleware
    of its own or a body limit (they wrap its walk, and would be skipped)."""
    if router.middleware_stack != router.app:
        return None
    index = RouteIndex(router)
    router.middleware_stack = index
    return index
