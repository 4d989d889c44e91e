"""The statements domain's errors."""

from __future__ import annotations

from corridor.kit.errors import CorridorError, ValidationFailed


class NoSuchPeriod(ValidationFailed):
    def __init__(self, message: str) -> None:
        super().__init__("period", message)


class StatementTooLarge(CorridorError):
    status, code = 422, "statement_too_large"

    def __init__(self, limit: int) -> None:
        super().__init__(
            f"This month has more than {limit} balance transactions; read them with "
            "GET /v1/accounts/{id}/balance-transactions"
        )
