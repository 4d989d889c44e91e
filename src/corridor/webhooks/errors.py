"""The webhooks domain's expected failures."""

from __future__ import annotations

from corridor.kit.errors import Conflict, Forbidden, InvalidState


class EndpointLimitReached(Conflict):
    def __init__(self, limit: int) -> None:
        super().__init__(f"An organization may have at most {limit} webhook endpoints")


class EndpointDisabled(InvalidState):
    def __init__(self, action: str) -> None:
        super().__init__(
            f"The endpoint is disabled; enable it (PATCH disabled: false) to {action}",
            current_status="DISABLED",
        )


class MessageNotSentYet(InvalidState):
    def __init__(self) -> None:
        super().__init__(
            "The message is still being fanned out to its endpoints; resend it afterwards",
            current_status="PENDING",
        )


class NotSubscribed(Conflict):
    def __init__(self, event_type: str) -> None:
        super().__init__(f"The endpoint does not subscribe to {event_type!r} events")


class OrganizationWide(Forbidden):
    def __init__(self) -> None:
        super().__init__(
            "Webhooks belong to the whole organization: send the request without a customer "
            "binding (X-Corridor-On-Behalf-Of)"
        )
