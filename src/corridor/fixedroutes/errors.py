"""The fixed routes domain's errors."""

from __future__ import annotations

from corridor.kit.errors import InvalidState


class FixedRouteClosed(InvalidState):
    """A CLOSED route is final: nothing of it changes any more."""

    def __init__(self, route_id: str) -> None:
        super().__init__(f"Fixed route {route_id} is CLOSED", current_status="CLOSED")


class FixedRouteMoveRefused(InvalidState):
    def __init__(self, route_id: str, current: str, target: str) -> None:
        super().__init__(
            f"Fixed route {route_id} is {current}; it cannot become {target}",
            current_status=current,
        )
