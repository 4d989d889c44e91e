"""The accounts domain's errors."""

from __future__ import annotations

from corridor.kit.errors import InvalidState


class CustomerNotActive(InvalidState):
    """Money moves only for ACTIVE customers (a sandbox funding too)."""

    def __init__(self, customer_id: str, status: str) -> None:
        super().__init__(
            f"Customer {customer_id} is {status}; only ACTIVE customers move money",
            current_status=status,
        )
