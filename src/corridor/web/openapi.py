"""OpenAPI pieces shared by every router: the one error shape of API.md section 2."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from corridor.kit.schemas import ResponseModel


class FieldError(ResponseModel):
    field: str = Field(examples=["remarks"])
    message: str = Field(examples=["String should have at most 1000 characters"])


class ErrorBody(ResponseModel):
    code: str = Field(examples=["validation_error"])
    message: str = Field(examples=["remarks: String should have at most 1000 characters"])
    request_id: str | None = Field(default=None, examples=["req_01jd3x0p6x9e3k2v1m8q4r7s5t"])
    errors: list[FieldError] | None = None


def _error(description: str) -> dict[str, Any]:
    return {"model": ErrorBody, "description": description}


ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: _error("`invalid_json`: the body is not a JSON object"),
    401: _error(
        "`unauthorized`: credentials missing, unknown, revoked or of the other environment"
    ),
    403: _error("`forbidden`, `sandbox_only` or `customer_binding_required`"),
    404: _error("`not_found`: unknown id, or an id of another organization"),
    409: _error(
        "`invalid_state`, `insufficient_funds`, `idempotency_key_reused` or `idempotency_key_in_progress`"
    ),
    413: _error("`payload_too_large`: body over 1 MiB"),
    422: _error("`validation_error`: field-level problems, listed in `errors`"),
}
