"""The customers domain's expected failures."""

from __future__ import annotations

from corridor.kit.errors import CorridorError, InvalidState


class CustomerArchived(InvalidState):
    def __init__(self) -> None:
        super().__init__("An archived customer cannot be changed", current_status="ARCHIVED")


class IllegalStatusMove(InvalidState):
    def __init__(self, current: str, target: str) -> None:
        super().__init__(
            f"A customer cannot move from {current} to {target}", current_status=current
        )


class WrongCustomerType(InvalidState):
    def __init__(self, action: str, *, wanted: str, current_status: str) -> None:
        super().__init__(f"Only {wanted} customers can {action}", current_status=current_status)


class FieldProblems(CorridorError):
    """Several field-level problems at once, each listed in `errors`."""

    status, code = 422, "validation_error"

    def __init__(self, summary: str, errors: list[dict[str, str]]) -> None:
        assert errors
        first = errors[0]
        message = f"{summary}: {first['field']}: {first['message']}"
        if len(errors) > 1:
            message += f" (and {len(errors) - 1} more)"
        super().__init__(message, errors=errors)
