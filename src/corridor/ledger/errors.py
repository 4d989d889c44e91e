"""The ledger's expected failures, as errors with a status and a code."""

from __future__ import annotations

from corridor.kit.errors import CorridorError, InvalidState
from corridor.kit.money import amount_object, to_decimal_string
from corridor.kit.money import currency as currency_of


class InsufficientFunds(CorridorError):
    """A debit larger than the account's available balance; the body says what is there."""

    status, code = 409, "insufficient_funds"

    def __init__(self, *, account_id: str, available: int, currency: str) -> None:
        shown = to_decimal_string(available, currency_of(currency).exponent)
        super().__init__(
            f"Account {account_id} has {shown} {currency} available",
            extra={"accountId": account_id, "available": amount_object(available, currency)},
        )


class BalanceLimitExceeded(CorridorError):
    status, code = 409, "balance_limit_exceeded"

    def __init__(self, *, account_id: str) -> None:
        super().__init__(
            f"Account {account_id} cannot hold a balance that large",
            extra={"accountId": account_id},
        )


class AccountNotOpen(InvalidState):
    def __init__(self, *, account_id: str, status: str) -> None:
        super().__init__(f"Account {account_id} is {status}", current_status=status)
