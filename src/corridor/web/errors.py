"""The web layer's refusals (Idempotency-Key, rate limits), and the handlers that turn every
failure into the one error answer of API.md section 2."""

from __future__ import annotations

from typing import Any, Protocol

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from sqlalchemy.exc import DBAPIError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match, Mount

from corridor.kit.errors import CorridorError, InvalidJson, ServiceUnavailable, render_error


class RateWindow(Protocol):
    """What a 429 tells of the spent window (web/ratelimits.py's WindowState)."""

    @property
    def reset_s(self) -> int: ...

    def headers(self) -> dict[str, str]: ...


class IdempotencyKeyReused(CorridorError):
    status, code = 409, "idempotency_key_reused"

    def __init__(self) -> None:
        super().__init__(
            "This Idempotency-Key was used with a different request; use a new key for a new request"
        )


class IdempotencyKeyInProgress(CorridorError):
    status, code = 409, "idempotency_key_in_progress"

    def __init__(self) -> None:
        super().__init__(
            "A request with this Idempotency-Key is still being processed; retry later",
            headers={"Retry-After": "1"},
        )


class RateLimited(CorridorError):
    status, code = 429, "rate_limited"

    def __init__(self, message: str, window: RateWindow) -> None:
        super().__init__(message, headers={"Retry-After": str(window.reset_s), **window.headers()})


# PostgreSQL's answers when it cannot take another connection (too many clients, starting
# up or shutting down): the request did nothing and may be retried.
_REFUSED_SQLSTATES = frozenset({"53300", "57P03"})


def _refused_connection(exc: DBAPIError) -> bool:
    original = getattr(exc, "orig", None)
    cause = getattr(original, "__cause__", None) or original
    return getattr(cause, "sqlstate", None) in _REFUSED_SQLSTATES


def database_unavailable(exc: Exception) -> ServiceUnavailable | None:
    """The 503 a failure to reach the database is answered with (the request wrote
    nothing: retry it), or None when `exc` is another error."""
    if isinstance(exc, PoolTimeout):
        return ServiceUnavailable("Too many requests in flight; no database connection was free")
    if isinstance(exc, DBAPIError):
        if _refused_connection(exc):
            return ServiceUnavailable("The database refused a connection; retry shortly")
        if exc.connection_invalidated:
            # The server dropped the connection (restarted, or closed it idle): nothing
            # this request wrote was committed, and the pool now opens fresh connections.
            return ServiceUnavailable("The database connection was lost; retry shortly")
    return None


def error_response(error: CorridorError) -> Response:
    return Response(
        render_error(error),
        status_code=error.status,
        headers=error.headers,
        media_type="application/json",
    )


_BODY_NOT_JSON_TYPES = {"json_invalid", "model_attributes_type", "dict_type", "missing"}


def _field_path(location: tuple[Any, ...]) -> str:
    parts = (
        [str(part) for part in location[1:]]
        if location[:1] in (("body",), ("query",), ("path",), ("header",))
        else [str(p) for p in location]
    )
    return ".".join(parts) or str(location[0] if location else "body")


def validation_error_from(exc: RequestValidationError) -> CorridorError:
    problems = exc.errors()
    for problem in problems:
        location = tuple(problem.get("loc", ()))
        not_json = problem.get("type") == "json_invalid"
        if not_json or (location == ("body",) and problem.get("type") in _BODY_NOT_JSON_TYPES):
            return InvalidJson("Request body must be a JSON object")
    errors = []
    for problem in problems:
        field = _field_path(tuple(problem.get("loc", ())))
        message = str(problem.get("msg", "invalid value")).removeprefix("Value error, ")
        if problem.get("type") == "extra_forbidden":
            message = "unknown field"
        errors.append({"field": field, "message": message})
    first = errors[0]
    return CorridorError(
        f"{first['field']}: {first['message']}", status=422, code="validation_error", errors=errors
    )


_HTTP_CODES = {
    # FastAPI answers 400 itself when the body is not UTF-8 text (UnicodeDecodeError).
    400: ("invalid_json", "Request body must be a JSON object"),
    404: ("not_found", "No such path"),
    413: ("payload_too_large", "Request body too large"),
    405: ("method_not_allowed", "Method not allowed on this path"),
}


_METHODS = ("DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT")
# StaticFiles (the reference pages' assets) matches any method, then refuses all but these.
_MOUNT_METHODS = frozenset({"GET", "HEAD"})


def allowed_methods(request: Request) -> list[str]:
    """The methods the request's path answers, for a 405's `Allow` header (RFC 9110 15.5.6).

    Starlette's router stops at the first route whose path matches, so its own header names
    only that route's methods; here the router is asked about each method in turn."""
    allowed = []
    for method in _METHODS:
        scope = {**request.scope, "method": method}
        for route in request.app.router.routes:
            match, _ = route.matches(scope)
            if match is Match.FULL and (not isinstance(route, Mount) or method in _MOUNT_METHODS):
                allowed.append(method)
                break
    return allowed


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(CorridorError)
    async def handle_corridor_error(_: Request, exc: CorridorError) -> Response:
        return error_response(exc)

    @app.exception_handler(RequestValidationError)
    async def handle_validation_error(_: Request, exc: RequestValidationError) -> Response:
        return error_response(validation_error_from(exc))

    @app.exception_handler(PoolTimeout)
    async def handle_pool_timeout(_: Request, exc: PoolTimeout) -> Response:
        unavailable = database_unavailable(exc)
        assert unavailable is not None
        return error_response(unavailable)

    @app.exception_handler(DBAPIError)
    async def handle_database_error(request: Request, exc: DBAPIError) -> Response:
        unavailable = database_unavailable(exc)
        if unavailable is None:
            raise exc
        return error_response(unavailable)

    @app.exception_handler(StarletteHTTPException)
    async def handle_http_error(request: Request, exc: StarletteHTTPException) -> Response:
        code, message = _HTTP_CODES.get(exc.status_code, ("http_error", str(exc.detail)))
        headers = dict(exc.headers or {})
        if exc.status_code == 405:
            headers["Allow"] = ", ".join(allowed_methods(request)) or headers.get("Allow", "")
        error = CorridorError(message, status=exc.status_code, code=code, headers=headers or None)
        return error_response(error)
