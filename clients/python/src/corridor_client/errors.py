"""Every refusal as a typed exception: status, code, message, request id and field errors.

The class follows the error's `code` where the SDK knows it (`AgentLimitExceeded`,
`InvalidStateError`, …) and its status otherwise (`NotFoundError`, `ValidationError`, …);
every one is a `CorridorError`, so `except CorridorError` catches them all.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

import httpx
import pydantic
from pydantic import BaseModel, ConfigDict, Field

from corridor_client._headers import retry_after_s
from corridor_client.models import FieldError


class AgentDenial(BaseModel):
    """Why an agent's payment was refused or parked (spec 7). Amounts are exact decimals
    in major units of `currency` (the server sends decimal strings such as "20.00")."""

    model_config = ConfigDict(populate_by_name=True, frozen=True)

    code: str  # per_transfer_limit_exceeded, daily_limit_exceeded, monthly_limit_exceeded
    message: str
    window: str  # transfer, day or month
    limit: Decimal
    attempted_amount: Decimal = Field(alias="attemptedAmount")
    currency: str
    # Only for the day and month windows.
    used: Decimal | None = None
    remaining: Decimal | None = None


class CorridorError(Exception):
    """An error answer of the Corridor API (or, for `APIConnectionError`, no answer)."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        code: str = "error",
        request_id: str | None = None,
        errors: list[FieldError] | None = None,
        body: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = code
        self.request_id = request_id
        self.errors: list[FieldError] = errors or []
        self.body: Mapping[str, Any] = body or {}
        self.headers: Mapping[str, str] = headers or {}

    def __str__(self) -> str:
        status = "" if self.status is None else f"{self.status} "
        where = f" [{status}{self.code}" + (
            f", request {self.request_id}]" if self.request_id else "]"
        )
        fields = "".join(f"\n  {error.field}: {error.message}" for error in self.errors)
        return f"{self.message}{where}{fields}"

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(status={self.status!r}, code={self.code!r}, "
            f"message={self.message!r}, request_id={self.request_id!r})"
        )


class APIConnectionError(CorridorError):
    """No answer: the connection failed or timed out (after the retries allowed)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, code="connection_error")


class BadRequestError(CorridorError):
    """400: the body is not JSON (`invalid_json`)."""


class AuthenticationError(CorridorError):
    """401 `unauthorized`: credentials missing, unknown, revoked or of the other environment."""


class PermissionDeniedError(CorridorError):
    """403: valid credentials without the right (`forbidden`, `sandbox_only`, …)."""


class AgentRefused(PermissionDeniedError):
    """403 `agent_…`: an agent's payment refused; `hint` says what would lift it."""

    @property
    def hint(self) -> str | None:
        hint = self.body.get("hint")
        return hint if isinstance(hint, str) else None


class AgentDenialError(AgentRefused):
    """An agent's payment over one of its limits; `denial` says which and by how much."""

    @property
    def denial(self) -> AgentDenial:
        return AgentDenial.model_validate(self.body.get("denial"))


class AgentLimitExceeded(AgentDenialError):
    """403 `agent_limit_exceeded`: over a limit, refused (`overLimitAction: REJECT`)."""


class AgentApprovalRequired(AgentDenialError):
    """403 `agent_approval_required`: over a limit, the draft `transfer_id` now awaits an
    owner's approval (`overLimitAction: REQUEST_APPROVAL`)."""

    @property
    def transfer_id(self) -> str:
        return str(self.body.get("transferId"))


class AgentInactive(AgentRefused):
    """403 `agent_inactive`: the agent is paused or revoked."""


class AgentDestinationNotAllowed(AgentRefused):
    """403 `agent_destination_not_allowed`: the payee is not on the agent's allowlist."""


class AgentCurrencyMismatch(AgentRefused):
    """403 `agent_currency_mismatch`: the amount is not in the agent's currency."""


class NotFoundError(CorridorError):
    """404 `not_found`: unknown id, or an id of another organization."""


class ConflictError(CorridorError):
    """409: the request conflicts with the current state of things."""


class InvalidStateError(ConflictError):
    """409 `invalid_state`: the resource's status forbids the call (`current_status`)."""

    @property
    def current_status(self) -> str | None:
        status = self.body.get("currentStatus")
        return status if isinstance(status, str) else None


class InsufficientFundsError(ConflictError):
    """409 `insufficient_funds`: the balance does not cover the amount."""


class IdempotencyKeyReusedError(ConflictError):
    """409 `idempotency_key_reused`: the key was used before with another request."""


class IdempotencyKeyInProgressError(ConflictError):
    """409 `idempotency_key_in_progress`: the first request with this key is still running
    (raised only once the retries allowed are spent)."""


class AgentApprovalRefused(ConflictError):
    """409 `agent_approval_refused`: approval impossible now; `reason` says why."""

    @property
    def reason(self) -> str | None:
        reason = self.body.get("reason")
        return reason if isinstance(reason, str) else None


class PayloadTooLargeError(CorridorError):
    """413 `payload_too_large`."""


class ValidationError(CorridorError):
    """422 `validation_error`: the fields at fault are in `errors` (field and message)."""


class RequestValidationError(ValidationError):
    """The request's fields do not match the server's schema, found before sending it:
    nothing was sent (`status` is None); `errors` lists the fields at fault as the server
    would (camelCase paths such as `amount.value`)."""

    @classmethod
    def of(cls, model: type[BaseModel], error: pydantic.ValidationError) -> RequestValidationError:
        errors = field_errors_of(error)
        return cls(
            f"{model.__name__} not sent: {len(errors)} field(s) do not match the server's schema",
            code="validation_error",
            errors=errors,
        )


class ResponseValidationError(CorridorError):
    """An answer the SDK's models cannot read (a server newer or older than this SDK, or
    a proxy's page): `status` and `request_id` are the answer's, `errors` the fields at
    fault, `body` the answer's JSON object when it is one."""

    @classmethod
    def of(
        cls, response: httpx.Response, model: type[BaseModel], error: pydantic.ValidationError
    ) -> ResponseValidationError:
        return cls(
            f"the answer does not match {model.__name__}",
            status=response.status_code,
            code="invalid_response",
            request_id=response.headers.get("x-request-id"),
            errors=field_errors_of(error),
            body=error_body(response),
            headers=response.headers,
        )


def field_errors_of(error: pydantic.ValidationError) -> list[FieldError]:
    """pydantic's errors in the server's shape: a dotted path (aliases, list indexes) and
    pydantic's message."""
    return [
        FieldError(
            field=".".join(str(part) for part in problem["loc"]) or "body",
            message=problem["msg"],
        )
        for problem in error.errors(include_url=False)
    ]


class RateLimitError(CorridorError):
    """429 `rate_limited` (raised once the retries allowed are spent)."""

    @property
    def retry_after_s(self) -> float | None:
        return retry_after_s(self.headers.get("retry-after"))


class ServerError(CorridorError):
    """5xx: the server failed; `request_id` identifies it in the server's logs."""


class ServiceUnavailableError(ServerError):
    """503 (raised once the retries allowed are spent)."""


_BY_CODE: dict[str, type[CorridorError]] = {
    "agent_limit_exceeded": AgentLimitExceeded,
    "agent_approval_required": AgentApprovalRequired,
    "agent_inactive": AgentInactive,
    "agent_destination_not_allowed": AgentDestinationNotAllowed,
    "agent_currency_mismatch": AgentCurrencyMismatch,
    "invalid_state": InvalidStateError,
    "insufficient_funds": InsufficientFundsError,
    "idempotency_key_reused": IdempotencyKeyReusedError,
    "idempotency_key_in_progress": IdempotencyKeyInProgressError,
    "agent_approval_refused": AgentApprovalRefused,
}
_BY_STATUS: dict[int, type[CorridorError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    413: PayloadTooLargeError,
    422: ValidationError,
    429: RateLimitError,
    503: ServiceUnavailableError,
}


def error_body(response: httpx.Response) -> dict[str, Any]:
    """The error object of an answer, or {} when it has none (a proxy's HTML page, …)."""
    try:
        body = json.loads(response.content)
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


def error_from_response(response: httpx.Response) -> CorridorError:
    body = error_body(response)
    status = response.status_code
    code = _text(body.get("code")) or f"http_{status}"
    message = _text(body.get("message")) or response.reason_phrase or f"HTTP {status}"
    kind = _BY_CODE.get(code) or _BY_STATUS.get(status)
    if kind is None:
        kind = ServerError if status >= 500 else CorridorError
    return kind(
        message,
        status=status,
        code=code,
        request_id=_text(body.get("requestId")) or response.headers.get("x-request-id"),
        errors=_field_errors(body.get("errors")),
        body=body,
        headers=response.headers,
    )


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _field_errors(raw: Any) -> list[FieldError]:
    if not isinstance(raw, list):
        return []
    return [FieldError.model_validate(item) for item in raw if _is_field_error(item)]


def _is_field_error(item: Any) -> bool:
    return (
        isinstance(item, dict)
        and isinstance(item.get("field"), str)
        and isinstance(item.get("message"), str)
    )
