"""The sandbox clock's errors."""

from __future__ import annotations

from corridor.kit.errors import CorridorError, ValidationFailed


class ClockNotFound(CorridorError):
    """Production has no sandbox clock: 404, as for any path it does not serve (API.md 9)."""

    status, code = 404, "not_found"

    def __init__(self) -> None:
        super().__init__("The sandbox clock exists only in the sandbox environment")


class ClockBackwards(ValidationFailed):
    def __init__(self, field: str, message: str) -> None:
        super().__init__(field, message)
