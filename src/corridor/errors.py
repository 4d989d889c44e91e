"""CorridorError, the one error base, and the handlers that shape every error answer."""

from __future__ import annotations

import json
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from corridor.kit.logging import get_logger
from corridor.kit.request_context import current_request_id

logger = get_logger(__name__)


class CorridorError(Exception):
    """An expected failure with an HTTP status and a stable machine-readable code."""

    status: int = 400
    code: str = "bad_request"
    # A refusal whose work must still be kept (an agent's over-limit submit parked for
    # approval): the request's unit of work commits before the error is answered.
    keeps_changes: bool = False

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        code: str | None = None,
        errors: list[dict[str, str]] | None = None,
        extra: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status
        if code is not None:
            self.code = code
        self.errors = errors
        self.extra = extra or {}
        self.headers = headers

    def body(self) -> dict[str, Any]:
        return error_body(self.code, self.message, errors=self.errors, extra=self.extra)


class InvalidJson(CorridorError):
    status, code = 400, "invalid_json"


class Unauthorized(CorridorError):
    status, code = 401, "unauthorized"

    def __init__(self, message: str = "Missing or invalid credentials") -> None:
        super().__init__(message, headers={"WWW-Authenticate": "Bearer"})


class Forbidden(CorridorError):
    status, code = 403, "forbidden"


class SandboxOnly(CorridorError):
    status, code = 403, "sandbox_only"

    def __init__(self) -> None:
        super().__init__("This operation exists only in the sandbox environment")


class CustomerBindingRequired(CorridorError):
    status, code = 403, "customer_binding_required"

    def __init__(self) -> None:
        super().__init__(
            "This session must be bound to a customer first: send X-Corridor-On-Behalf-Of "
            "with a customer id, or create a business customer"
        )


class NotFound(CorridorError):
    status, code = 404, "not_found"

    def __init__(self, resource: str, identifier: str) -> None:
        super().__init__(f"No {resource} with id {identifier!r}")


class InvalidState(CorridorError):
    status, code = 409, "invalid_state"

    def __init__(self, message: str, *, current_status: str) -> None:
        super().__init__(message, extra={"currentStatus": current_status})


class Conflict(CorridorError):
    status, code = 409, "conflict"


class PayloadTooLarge(CorridorError):
    status, code = 413, "payload_too_large"


class ValidationFailed(CorridorError):
    status, code = 422, "validation_error"

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}", errors=[{"field": field, "message": message}])


def error_body(
    code: str,
    message: str,
    *,
    errors: list[dict[str, str]] | None = None,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    body: dict[str, Any] = {"code": code, "message": message, "requestId": current_request_id()}
    if errors:
        body["errors"] = errors
    if extra:
        body.update(extra)
    return body


def render_error(error: CorridorError) -> bytes:
    """The exact bytes of an error answer (also what an idempotent replay sends again)."""
    return json.dumps(error.body(), ensure_ascii=False, separators=(",", ":")).encode()


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
        message = str(problem.get("msg", "invalid value"))
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


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(CorridorError)
    async def handle_corridor_error(_: Request, exc: CorridorError) -> Response:
        return error_response(exc)

    @app.exception_handler(RequestValidationError)
    async def handle_validation_error(_: Request, exc: RequestValidationError) -> Response:
        return error_response(validation_error_from(exc))

    @app.exception_handler(StarletteHTTPException)
    async def handle_http_error(_: Request, exc: StarletteHTTPException) -> Response:
        code, message = _HTTP_CODES.get(exc.status_code, ("http_error", str(exc.detail)))
        return error_response(CorridorError(message, status=exc.status_code, code=code))
