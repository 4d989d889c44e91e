"""CorridorError, the one error base, and the one error body of API.md section 2."""

from __future__ import annotations

import json
from typing import Any

from corridor.kit.request_context import current_request_id


class CorridorError(Exception):
    """An expected failure with an HTTP status and a stable machine-readable code."""

    status: int = 400
    code: str = "bad_request"

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


class CsrfTokenInvalid(CorridorError):
    """A state-changing request authenticated by the console cookie alone, without the
    session's CSRF token in the X-Corridor-CSRF header."""

    status, code = 403, "csrf_token_invalid"

    def __init__(self, message: str) -> None:
        super().__init__(message)


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


class ServiceUnavailable(CorridorError):
    """The service is overloaded for a moment (no database connection free in time): the
    request changed nothing and may be retried after `Retry-After` seconds."""

    status, code = 503, "service_unavailable"

    def __init__(self, message: str, *, retry_after_s: int = 1) -> None:
        super().__init__(message, headers={"Retry-After": str(retry_after_s)})


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
