"""Confirmations' refusals (API.md section 2)."""

from __future__ import annotations

from corridor.kit.errors import Conflict, CorridorError


class ConfirmationRequired(CorridorError):
    """A write tool call that waits for a person, on a client that can ask none: refused,
    with the console page where an owner approves exactly this call."""

    status, code = 403, "tool_confirmation_required"

    def __init__(self, confirmation_id: str, url: str, summary: str) -> None:
        super().__init__(
            f"This call needs a person's confirmation: {summary}. An owner approves it at "
            f"{url}; then make the same call with the same arguments again (it runs once)",
            extra={"confirmationId": confirmation_id, "url": url},
        )


class ConfirmationInvalid(CorridorError):
    """A requestState or approval that is not this credential's call with these arguments."""

    status, code = 409, "tool_confirmation_invalid"

    def __init__(self, reason: str) -> None:
        super().__init__(f"{reason}; nothing was carried out")


class ConfirmationUsed(Conflict):
    code = "tool_confirmation_already_decided"

    def __init__(self, confirmation_id: str, status: str) -> None:
        super().__init__(
            f"Confirmation {confirmation_id} is {status} and was used; nothing was carried "
            "out. Make the call again to be asked again",
            extra={"currentStatus": status},
        )


class ConfirmationExpired(CorridorError):
    status, code = 409, "tool_confirmation_expired"

    def __init__(self, confirmation_id: str) -> None:
        super().__init__(
            f"Confirmation {confirmation_id} expired; nothing was carried out. Make the call "
            "again to be asked again"
        )


class ConfirmationRefused(CorridorError):
    status, code = 403, "tool_confirmation_refused"

    def __init__(self, confirmation_id: str) -> None:
        super().__init__(f"The person declined confirmation {confirmation_id}; nothing was done")
