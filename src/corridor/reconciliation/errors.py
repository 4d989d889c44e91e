"""Reconciliation's errors."""

from __future__ import annotations

from corridor.kit.errors import InvalidState, ValidationFailed


class UnreadableStatement(ValidationFailed):
    def __init__(self, message: str) -> None:
        super().__init__("content", message)


class LineNotAnException(InvalidState):
    def __init__(self, status: str) -> None:
        super().__init__(
            f"Only an exception can be resolved; this line is {status}",
            current_status=status,
        )
