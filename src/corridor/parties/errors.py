"""The parties domain's expected failures."""

from __future__ import annotations

from corridor.customers.errors import FieldProblems
from corridor.kit.errors import InvalidState, ValidationFailed

__all__ = ["CustomerArchived", "FieldProblems", "OneOwnerRequired", "PartyClosed"]


class PartyClosed(InvalidState):
    def __init__(self, resource: str) -> None:
        super().__init__(f"A closed {resource} cannot be changed", current_status="CLOSED")


class CustomerArchived(InvalidState):
    def __init__(self, customer_id: str) -> None:
        super().__init__(
            f"Customer {customer_id} is ARCHIVED: it gets no new counterparties, "
            "external accounts or wallets",
            current_status="ARCHIVED",
        )


class OneOwnerRequired(ValidationFailed):
    def __init__(self) -> None:
        super().__init__("customerId", "send exactly one of customerId and counterpartyId")
